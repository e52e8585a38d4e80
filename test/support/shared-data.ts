// Real data for tests. The repository carries a small copy (data/: the demo's
// 48 series and the replay answers; test/fixtures/: the recorded bodies tests
// parse), so a clone tests with nothing beside it. The full sets (466 series of
// 242 days, 462 five-keyword requests) sit beside the project's own checkouts in
// ../shared/data; a test that only they can answer says so and is skipped, with
// that reason, where they are absent.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { it } from 'vitest';
import { PROJECT_ROOT } from '../../src/config.js';
import { readSeriesCsv } from '../../src/demo/demo-seed.js';
import type { SeriesPoint } from '../../src/domain/scoring/series.js';

/** The demo's series in the repository (48 named topics, their last 90 days): what `npm start` loads. */
export const DEMO_SERIES_DIR = path.join(PROJECT_ROOT, 'data/trends-series');
/** The recorded answers in the repository that the replay provider serves. */
export const REPLAY_DIR = path.join(PROJECT_ROOT, 'data/google-trends-recorded');

export const SHARED_DATA = path.resolve(PROJECT_ROOT, '../shared/data');
export const SHARED_SERIES_DIR = path.join(SHARED_DATA, 'trends-series');
/** Whether the full sets sit beside this checkout. */
export const SHARED_DATA_PRESENT =
  existsSync(path.join(SHARED_SERIES_DIR, 'gtab-us-daily.csv')) && existsSync(path.join(SHARED_DATA, 'google-trends-recorded', 'pytrends'));
/**
 * Every recorded Google exchange (about 75 cassettes) where the full sets are,
 * else the repository's replay answers (what a research of "pizza" reads). A
 * test that needs more than "pizza" uses itWithSharedData.
 */
export const RECORDED_DIR = existsSync(path.join(SHARED_DATA, 'google-trends-recorded', 'pytrends'))
  ? path.join(SHARED_DATA, 'google-trends-recorded')
  : REPLAY_DIR;
export const WITHOUT_SHARED_DATA = `skipped: needs the full real data sets (466 series, every recorded Google exchange) in ${SHARED_DATA}, which are not in the repository (see data/README.md)`;

let full: Promise<Map<string, SeriesPoint[]>> | undefined;
/** The 466 real series (242 days each). Only tests that are skipped without them may call this. */
export function realSeries(): Promise<Map<string, SeriesPoint[]>> {
  if (!SHARED_DATA_PRESENT) throw new Error(WITHOUT_SHARED_DATA);
  full ??= readSeriesCsv(SHARED_SERIES_DIR);
  return full;
}

let demo: Promise<Map<string, SeriesPoint[]>> | undefined;
/** The 48 real series the repository carries (90 days each). */
export function demoSeries(): Promise<Map<string, SeriesPoint[]>> {
  demo ??= readSeriesCsv(DEMO_SERIES_DIR);
  return demo;
}

/** The full set where it is present, else the repository's: for checks any real series can answer. */
export function anyRealSeries(): Promise<Map<string, SeriesPoint[]>> {
  return SHARED_DATA_PRESENT ? realSeries() : demoSeries();
}

/** `it` for a test only the full sets can answer: skipped, with the reason in its name, where they are absent. */
export function itWithSharedData(name: string, fn: () => Promise<void> | void, timeout?: number): void {
  if (SHARED_DATA_PRESENT) it(name, fn, timeout);
  else it.skip(`${name} (${WITHOUT_SHARED_DATA})`, fn);
}
