// Real data from ../shared/data, read in place (never copied into the repo).
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/config.js';
import { readSeriesCsv } from '../../src/demo/demo-seed.js';
import type { SeriesPoint } from '../../src/domain/scoring/series.js';

export const SHARED_DATA = path.resolve(PROJECT_ROOT, '../shared/data');
export const TRENDS_SERIES_DIR = path.join(SHARED_DATA, 'trends-series');
export const RECORDED_DIR = path.join(SHARED_DATA, 'google-trends-recorded');

let cache: Promise<Map<string, SeriesPoint[]>> | undefined;
export function realSeries(): Promise<Map<string, SeriesPoint[]>> {
  cache ??= readSeriesCsv(TRENDS_SERIES_DIR);
  return cache;
}
