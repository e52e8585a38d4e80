// insights score-series: the JSONL contract, and the same numbers as the
// backtest when fed the backtest's windows (so a check on unseen series
// measures the shipped formula, not something else).
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { scoreSeriesJsonl } from '../../src/jsonl/score-series.js';
import { BACKTEST } from '../../src/domain/scoring/backtest-results.js';
import { momentumWindows, spearman, type MomentumWindow } from '../../src/domain/scoring/momentum-backtest.js';
import { TREND_CLASSES } from '../../src/domain/scoring/trend-class.js';
import { runCli } from '../support/cli.js';
import { itWithSharedData, realSeries } from '../support/shared-data.js';

const day = (i: number) => new Date(Date.UTC(2020, 0, 1) + i * 86_400_000).toISOString().slice(0, 10);
const asPoints = (values: number[], offset = 0) => values.map((value, i) => ({ date: day(offset + i), value }));
const lineOf = (id: string, w: MomentumWindow) => JSON.stringify({ id, points: asPoints(w.days30, 60), points_90d: asPoints(w.days90) });

async function run(lines: string[]) {
  const out = new PassThrough();
  const chunks: string[] = [];
  out.on('data', (c) => chunks.push(String(c)));
  const summary = await scoreSeriesJsonl(Readable.from(lines.map((l) => `${l}\n`)), out);
  return {
    summary,
    rows: chunks
      .join('')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

describe('insights score-series', () => {
  itWithSharedData('scores the backtest windows to the published held-out rank correlation', async () => {
    const windows: MomentumWindow[] = [];
    for (const [id, points] of await realSeries())
      windows.push(
        ...momentumWindows(
          id,
          points.map((p) => p.value),
        ),
      );
    const held = windows.filter((w) => w.split === 'holdout');
    const { summary, rows } = await run(held.map((w, i) => lineOf(`w${i}`, w)));
    expect(summary).toEqual({ lines: held.length, scored: held.length, unscored: 0, errors: 0 });
    expect(rows.map((r) => r.id)).toEqual(held.map((_, i) => `w${i}`));
    for (const r of rows) {
      expect(Object.keys(r).sort()).toEqual(['id', 'model', 'momentum', 'trend_class']);
      expect(TREND_CLASSES).toContain(r.trend_class);
    }
    const rho = spearman(
      rows.map((r) => r.momentum as number),
      held.map((w) => w.nextMean / w.monthMean),
    );
    expect(Math.round(rho * 1000) / 1000).toBe(BACKTEST.momentum.held_out.rank_correlation);
  });

  it('uses a long "points" as the 90 days, falls back to the 30-day model, and says why it cannot score', async () => {
    const values = Array.from({ length: 120 }, (_, i) => 30 + (i % 7) + (i > 110 ? 20 : 0));
    const { rows, summary } = await run([
      JSON.stringify({ id: 'long', points: asPoints(values) }),
      JSON.stringify({ id: 'month', points: asPoints(values.slice(-30), 90) }),
      JSON.stringify({ id: 'zeros', points: asPoints(Array(30).fill(0)) }),
    ]);
    expect(summary).toEqual({ lines: 3, scored: 2, unscored: 1, errors: 0 });
    expect(rows[0]).toMatchObject({ id: 'long', model: '90d' });
    expect(rows[1]).toMatchObject({ id: 'month', model: '30d' });
    expect(rows[2]).toEqual({ id: 'zeros', momentum: null, trend_class: null, reason: expect.stringMatching(/all zeros/) });
  });

  it('reports a bad line with its number and goes on', async () => {
    const ok = { id: 'ok', points: asPoints(Array.from({ length: 30 }, (_, i) => 40 + i)) };
    const { rows, summary } = await run([
      '{"id":',
      JSON.stringify({
        id: 'gap',
        points: [
          { date: '2026-01-01', value: 1 },
          { date: '2026-01-03', value: 1 },
        ],
      }),
      JSON.stringify({ ...ok, points_90d: asPoints(Array(90).fill(5), 5) }),
      JSON.stringify(ok),
    ]);
    expect(summary).toEqual({ lines: 4, scored: 1, unscored: 0, errors: 3 });
    expect(rows[0]).toEqual({ line: 1, error: 'not valid JSON' });
    expect(rows[1]).toEqual({ line: 2, error: expect.stringMatching(/does not follow 2026-01-01 by one day/) });
    expect(rows[2]).toEqual({ line: 3, error: expect.stringMatching(/"points_90d" must end on the same day as "points"/) });
    expect(rows[3]).toMatchObject({ id: 'ok', model: '30d' });
  });

  it('runs as a CLI on files and stdin/stdout, exit 1 when a line failed', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'si-score-series-'));
    const input = path.join(dir, 'in.jsonl');
    const output = path.join(dir, 'out.jsonl');
    await writeFile(input, `${JSON.stringify({ id: 'a', points: asPoints(Array.from({ length: 90 }, (_, i) => 20 + (i % 5))) })}\n`);
    const ok = await runCli(['score-series', '--input', input, '--output', output], {});
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(await readFile(output, 'utf8'))).toMatchObject({ id: 'a', model: '90d', trend_class: expect.any(String) });
    await writeFile(input, 'nonsense\n');
    const bad = await runCli(['score-series', '--input', input, '--output', '-'], {});
    expect(bad.code).toBe(1);
    expect(bad.stdout.trim()).toBe('{"line":1,"error":"not valid JSON"}');
    expect(bad.stderr).toMatch(/1 errors/);
    const missing = await runCli(['score-series', '--input', path.join(dir, 'nope.jsonl'), '--output', '-'], {});
    expect(missing.code).toBe(2);
  });
});
