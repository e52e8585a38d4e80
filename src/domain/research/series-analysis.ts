// Statistics of Google Trends series used by steps clean_series to breakout. Pure functions.
import { mean, median, standardDeviation } from 'simple-statistics';
import { relativeSlopePerDay } from '../scoring/series.js';
import { round3 } from '../numbers.js';

export interface CleanSeries {
  dates: string[];
  values: number[];
  droppedPartial: boolean;
  missing: number;
}

/** Keeps points Google has data for, drops a trailing partial period. */
export function cleanSeries(points: ReadonlyArray<{ date: string; value: number; hasData?: boolean; isPartial?: boolean }>): CleanSeries {
  let list = [...points];
  const droppedPartial = list.at(-1)?.isPartial === true;
  if (droppedPartial) list = list.slice(0, -1);
  const kept = list.filter((p) => p.hasData !== false);
  return { dates: kept.map((p) => p.date), values: kept.map((p) => p.value), droppedPartial, missing: list.length - kept.length };
}

/**
 * Change across the window on the least-squares line, from where the line
 * starts to where it ends (0.2 = +20 %). Interest cannot fall below zero, so
 * neither can the line's end: a change is never below −100 %. A line that
 * starts under 1 (Google's resolution) has no ratio to speak of: it is
 * measured from 1, as growing from almost nothing. (The slope times the
 * window's length, over the mean, read −564 % for a series that peaked early.)
 */
export function trendChange(values: readonly number[]): number {
  const n = values.length;
  const level = mean(values as number[]);
  const slope = relativeSlopePerDay(values) * level;
  const start = level - (slope * (n - 1)) / 2;
  const end = Math.max(0, level + (slope * (n - 1)) / 2);
  return round3(end / Math.max(1, start) - 1);
}

/** Relative change across the window on the least-squares trend (0.2 = +20 %; never below −100 %). */
export function growth(values: readonly number[]): number | null {
  if (values.length < 7 || values.every((v) => v === 0)) return null;
  return trendChange(values);
}

/** Change of slope: second half's relative slope minus the first half's, per period. */
export function acceleration(values: readonly number[]): number | null {
  if (values.length < 14 || values.every((v) => v === 0)) return null;
  const half = Math.floor(values.length / 2);
  return round3(relativeSlopePerDay(values.slice(half)) - relativeSlopePerDay(values.slice(0, half)));
}

export type Trajectory = 'rising' | 'stable' | 'recovering' | 'declining' | 'peaked';

/**
 * The recent level at or above this multiple of the long-run mean rules out a
 * decline, a peak or a fad: whatever the years before did, interest is now
 * above its usual level. (A line fitted to 5 years that peaked early reached
 * zero before the window's end and read "−100 %, a fad" beside a recent level
 * well above the mean.)
 */
export const RECENT_ABOVE_MEAN = 1.2;

export interface TrajectoryReading {
  trajectory: Trajectory;
  /** The last fifth of the window's mean against the first fifth's (0.2 = +20 %; −1 only when the last fifth is all zero). */
  change: number;
  peakPosition: number;
  lastVsPeak: number;
  /** Means of the first and last fifth (a year of a 5-year series), on the series' scale. */
  firstMean?: number;
  lastMean?: number;
  /** The recent level (the last tenth, at least 4 points) over the whole window's mean. */
  recentVsMean?: number;
  /** Points in the recent level. */
  recentPoints?: number;
}

/**
 * Long-term shape, from levels the series had, not from a line's ends: the
 * last fifth against the first (a year each of 5 years). A peak well inside
 * the window that has since fallen away is "peaked"; a fall from the first
 * fifth with the recent level back above the long-run mean is "recovering",
 * never "declining" (see RECENT_ABOVE_MEAN).
 */
export function trajectory(values: readonly number[]): TrajectoryReading | null {
  if (values.length < 26 || values.every((v) => v === 0)) return null;
  const n = values.length;
  const fifth = Math.max(4, Math.round(n / 5));
  const firstMean = mean(values.slice(0, fifth) as number[]);
  const lastMean = mean(values.slice(-fifth) as number[]);
  // From a first fifth under 1 (Google's resolution) there is no ratio to speak of: measured from 1.
  const change = lastMean / Math.max(1, firstMean) - 1;
  const peakIndex = values.indexOf(Math.max(...values));
  const peakPosition = peakIndex / (n - 1);
  const recentPoints = Math.max(4, Math.floor(n / 10));
  const recent = mean(values.slice(-recentPoints) as number[]);
  const lastVsPeak = recent / Math.max(1, values[peakIndex]!);
  const recentVsMean = recent / Math.max(1e-9, mean(values as number[]));
  const aboveUsual = recentVsMean >= RECENT_ABOVE_MEAN;
  let kind: Trajectory;
  if (!aboveUsual && peakPosition > 0.15 && peakPosition < 0.8 && lastVsPeak < 0.5) kind = 'peaked';
  else if (change > 0.25) kind = 'rising';
  else if (change < -0.25) kind = aboveUsual ? 'recovering' : 'declining';
  else kind = 'stable';
  return {
    trajectory: kind,
    change: round3(change),
    peakPosition: round3(peakPosition),
    lastVsPeak: round3(lastVsPeak),
    firstMean: round3(firstMean),
    lastMean: round3(lastMean),
    recentVsMean: round3(recentVsMean),
    recentPoints,
  };
}

/** Autocorrelation at `lag` (−1..1); null when the series is too short or flat. */
export function autocorrelation(values: readonly number[], lag: number): number | null {
  if (values.length < lag * 2 + 2) return null;
  const m = mean(values as number[]);
  let num = 0;
  let den = 0;
  for (let i = 0; i < values.length; i += 1) {
    den += (values[i]! - m) ** 2;
    if (i >= lag) num += (values[i]! - m) * (values[i - lag]! - m);
  }
  return den === 0 ? null : round3(num / den);
}

/**
 * Spread and spikes of a series. A fad is one burst far above a low baseline
 * that has since passed: with the recent level at or above RECENT_ABOVE_MEAN
 * times the mean, the burst is still under way (or is the new level), and
 * nothing yet says it fades.
 */
export function volatility(values: readonly number[]): { cv: number; spikiness: number; fad: boolean } | null {
  if (values.length < 7 || values.every((v) => v === 0)) return null;
  const m = mean(values as number[]);
  const cv = m === 0 ? 0 : standardDeviation(values as number[]) / m;
  const med = median(values as number[]);
  const spikiness = Math.max(...values) / Math.max(1, med);
  const recent = mean(values.slice(-Math.max(4, Math.floor(values.length / 10))) as number[]);
  const passed = recent < m * RECENT_ABOVE_MEAN;
  return { cv: round3(cv), spikiness: round3(spikiness), fad: spikiness > 4 && cv > 0.8 && passed };
}

/** Latest week against the rest: a z-score above 3 is a breakout in the series itself. */
export function seriesBreakout(values: readonly number[]): { zScore: number; breakout: boolean } | null {
  if (values.length < 21) return null;
  const history = values.slice(0, -7);
  const sd = standardDeviation(history as number[]);
  const z = sd === 0 ? 0 : (mean(values.slice(-7) as number[]) - mean(history as number[])) / sd;
  return { zScore: round3(z), breakout: z > 3 };
}
