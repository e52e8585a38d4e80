// Summary statistics of a daily Google Trends series (0–100, rescaled per request).
import { linearRegression, mean } from 'simple-statistics';

export interface SeriesPoint {
  date: string; // YYYY-MM-DD
  value: number; // 0..100
  isPartial?: boolean;
}

export interface SeriesQuality {
  points: number;
  zeroShare: number;
  /** In [0,1]: 1 for a full series without zeros, lower as points go missing or read zero. */
  quality: number;
}

/** Drops a trailing partial day: Google fills it in later, and it always reads low. */
export function completePoints(series: readonly SeriesPoint[]): SeriesPoint[] {
  const last = series.at(-1);
  return last?.isPartial ? series.slice(0, -1) : [...series];
}

export function seriesQuality(series: readonly SeriesPoint[], expectedPoints: number): SeriesQuality {
  const points = series.length;
  const zeros = series.filter((p) => p.value === 0).length;
  const zeroShare = points === 0 ? 1 : zeros / points;
  const coverage = Math.min(1, points / expectedPoints);
  return { points, zeroShare, quality: coverage * (1 - zeroShare) };
}

/** Least-squares slope per day, relative to the series mean (0.01 = +1 % of the mean per day). */
export function relativeSlopePerDay(values: readonly number[]): number {
  const level = mean(values as number[]);
  if (values.length < 2 || level === 0) return 0;
  const { m } = linearRegression(values.map((v, i) => [i, v]));
  return m / level;
}
