import { PassThrough, Readable } from 'node:stream';
import { mkdtemp, writeFile, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { forecastJsonl } from '../../src/jsonl/forecast.js';
import { parseGuardedJson, parseMultiline } from '../../src/providers/google/format.js';
import { runCli } from '../support/cli.js';
import { recordedBody } from '../support/recorded.js';

// Real Google series that are not the GTAB benchmark set: the recorded 5-year
// answers for "pizza" and "bagel" (weekly points, re-dated as consecutive days
// because the batch format is daily).
function recordedSeries() {
  const body = recordedBody('pytrends', 'test_interest_over_time_partial__022e5a92f6', /multiline_200/);
  const parsed = parseMultiline(parseGuardedJson(body, 'recorded'), ['pizza', 'bagel'], 'recorded');
  return ['pizza', 'bagel'].map((name, k) => ({
    id: name,
    points: parsed.points.map((p, i) => ({
      date: new Date(Date.UTC(2025, 0, 1) + i * 86_400_000).toISOString().slice(0, 10),
      value: p.values[k]!,
    })),
  }));
}

async function run(lines: string[], horizon = 7) {
  const out = new PassThrough();
  const chunks: string[] = [];
  out.on('data', (c) => chunks.push(String(c)));
  const summary = await forecastJsonl(Readable.from(lines.map((l) => `${l}\n`)), out, horizon);
  return {
    summary,
    rows: chunks
      .join('')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l)),
  };
}

describe('insights forecast (batch JSONL)', () => {
  it('forecasts real series in input order, with ordered intervals', async () => {
    const series = recordedSeries();
    expect(series[0]!.points.length).toBeGreaterThan(200);
    const { summary, rows } = await run(series.map((s) => JSON.stringify(s)));
    expect(summary).toEqual({ lines: 2, forecast: 2, withheld: 0, errors: 0 });
    expect(rows.map((r) => r.id)).toEqual(['pizza', 'bagel']);
    for (const row of rows) {
      expect(Object.keys(row).sort()).toEqual(['id', 'model', 'points']);
      expect(row.points).toHaveLength(7);
      for (const p of row.points) {
        expect(p.lower_95 <= p.lower_80 && p.lower_80 <= p.value && p.value <= p.upper_80 && p.upper_80 <= p.upper_95).toBe(true);
        expect(p.lower_95).toBeGreaterThanOrEqual(0);
        expect(p.upper_95).toBeLessThanOrEqual(100);
      }
    }
  });

  it('reports a bad line with its number and goes on; honours per-line and default horizons', async () => {
    const [pizza] = recordedSeries();
    const { summary, rows } = await run(
      [
        '{"id": "broken"',
        JSON.stringify({ ...pizza, horizon: 3 }),
        JSON.stringify({ id: 'x', points: [{ date: '2026-01-01', value: 101 }] }),
        JSON.stringify({ id: 'short', points: pizza!.points.slice(0, 5) }),
        JSON.stringify(pizza),
      ],
      14,
    );
    expect(summary).toEqual({ lines: 5, forecast: 2, withheld: 1, errors: 2 });
    expect(rows[0]).toEqual({ line: 1, error: 'not valid JSON' });
    expect(rows[1].points).toHaveLength(3);
    expect(rows[2]).toEqual({ line: 3, error: 'points[0].value must be a number from 0 to 100' });
    expect(rows[3]).toMatchObject({ id: 'short', withheld: true, reason: expect.stringMatching(/at least 21/) });
    expect(rows[4].points).toHaveLength(14);
  });

  it('runs as a CLI on files and stdin/stdout, exit 1 when a line failed', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'si-forecast-'));
    const input = path.join(dir, 'in.jsonl');
    const output = path.join(dir, 'out.jsonl');
    await writeFile(
      input,
      `${recordedSeries()
        .map((s) => JSON.stringify(s))
        .join('\n')}\n`,
    );
    const ok = await runCli(['forecast', '--input', input, '--output', output], {});
    expect(ok.code, ok.stderr).toBe(0);
    expect((await readFile(output, 'utf8')).trim().split('\n')).toHaveLength(2);
    await writeFile(input, 'nonsense\n');
    const bad = await runCli(['forecast', '--input', input, '--output', output], {});
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/1 errors/);
    const usage = await runCli(['forecast', '--input', input, '--output', output, '--horizon', '0'], {});
    expect(usage.code).toBe(2);
  });
});
