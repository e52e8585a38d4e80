// bench:google's accuracy measure on real 5-keyword answers (bench/lib/batches.ts),
// on small files in the same format, so that the figures it publishes, and the
// check run with TRENDS_BATCHES_FILE on other answers, rest on tested arithmetic.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measureBatchedSeries, readBatches } from '../../bench/lib/batches.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'batches-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const day = (start: string, i: number) => new Date(Date.parse(`${start}T00:00:00Z`) + i * 86_400_000).toISOString().slice(0, 10);

/** Writes a batches file and its index: each request is its keywords' truths, normalised together and rounded as Google does. */
async function batchesFile(
  name: string,
  start: string,
  requests: Array<Record<string, number[]>>,
  options: { everyOtherDay?: boolean } = {},
) {
  const index = ['request_id,set,geo,keyword_1,keyword_2,keyword_3,keyword_4,keyword_5'];
  const rows = ['request_id,keyword_mid,date,value'];
  requests.forEach((req, r) => {
    const id = `t:r${r}`;
    const keywords = Object.keys(req);
    index.push([id, 'test', 'US', ...keywords, ...Array(5 - keywords.length).fill('')].join(','));
    const top = Math.max(...Object.values(req).flat());
    for (const k of keywords)
      req[k]!.forEach((v, i) => rows.push(`${id},${k},${day(start, options.everyOtherDay ? 2 * i : i)},${Math.round((v * 100) / top)}`));
  });
  const file = path.join(dir, `${name}.csv`);
  await writeFile(file, rows.join('\n') + '\n');
  await writeFile(path.join(dir, `${name}-index.csv`), index.join('\n') + '\n');
  return file;
}

// 30 days alternating 100 and 33: at a tenth of the scale, 33 rounds to 3 and reads 30.
const quiet = Array.from({ length: 30 }, (_, i) => (i % 2 ? 33 : 100));
const loud = quiet.map((v) => v * 10);
const flat = (level: number, days = 30) => Array(days).fill(level) as number[];

describe("bench:google's accuracy of a served series on real 5-keyword answers", () => {
  it('measures 30-day requests: the rounding a louder partner causes, against the precise answers, and the one-keyword floor', async () => {
    const file = await batchesFile('thirty', '2026-01-01', [
      { a: quiet, big: loud }, // a peaks at 10: served (rule: >= 10), rounded at a tenth of the scale
      { a: quiet, small: flat(20) }, // a is the 100: one-keyword precision
      { a: quiet, other: flat(30) }, // again
      { tiny: flat(1), big: loud }, // tiny peaks at 1: not served
    ]);
    const r = await measureBatchedSeries(file);
    expect(r.requests).toBe(4);
    expect(r.requestDays).toEqual({ min: 30, max: 30 });
    // a from the loud request: 30 instead of 33 on 15 of 30 days → 1.5.
    expect(r.served).toContainEqual(1.5);
    // a at full precision, against the other full-precision answer: 0 (rounding 33 → 33 both).
    expect(r.single.filter((e) => e === 0).length).toBeGreaterThanOrEqual(2);
    expect(r.selfAgreement).toEqual([0, 0]); // a (its two full-precision answers) and big
    // a three times, big twice; small and other have no second answer to measure against.
    expect(r.served.length).toBe(3 + 2);
    expect(r.unmeasurable).toBe(2);
    // tiny is below the rule: blind counts it, served does not (and it has no reference anyway).
    expect(r.blind.length).toBe(r.served.length);
  });

  it("uses only the 90-day windows that hold the request's own 100 in a longer request", async () => {
    const days = 150;
    const spikeLate = Array.from({ length: days }, (_, i) => (i === days - 10 ? 100 : 50));
    const spikeEarly = Array.from({ length: days }, (_, i) => (i === 5 ? 100 : 50));
    const file = await batchesFile('long', '2025-01-01', [
      { a: spikeLate, b: flat(60, days) },
      { a: spikeLate, c: flat(40, days) },
      { d: spikeEarly, e: flat(10, days) },
      { d: spikeEarly, f: flat(20, days) },
    ]);
    const r = await measureBatchedSeries(file);
    // 90-day windows end on days 150, 120 and 90: a's spike (day 140) is only in the first, d's
    // (day 5) only in the last, so each request yields one window, not three.
    expect(r.served).toEqual([0, 0, 0, 0]);
    expect(r.unmeasurable).toBe(4); // b, c, e and f have no second answer
    // a's spike falls in its served 30 days: one-keyword precision; d's does not.
    expect(r.single).toEqual([0, 0]);
    expect(r.selfAgreement).toEqual([0]);
  });

  it('refuses files it cannot measure, naming the problem', async () => {
    const sparse = await batchesFile('sparse', '2026-01-01', [{ a: quiet }, { a: quiet }], { everyOtherDay: true });
    await expect(readBatches(sparse)).rejects.toThrow(/is not daily/);
    await expect(readBatches(path.join(dir, 'missing.csv'))).rejects.toThrow(/ENOENT|cannot be read/);
    const noIndex = path.join(dir, 'alone.csv');
    await writeFile(noIndex, 'request_id,keyword_mid,date,value\n');
    await expect(readBatches(noIndex)).rejects.toThrow(/index file beside/);
  });
});
