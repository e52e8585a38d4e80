// How forecasts are scored (the benchmark and the calibration script share it).
import { createHash } from 'node:crypto';

export const HORIZON = 7;

/** In-sample seasonal-naive (lag 7) mean absolute error: the MASE scale. */
export function seasonalNaiveScale(context: readonly number[]): number {
  let sum = 0;
  for (let i = 7; i < context.length; i += 1) sum += Math.abs(context[i]! - context[i - 7]!);
  return context.length > 7 ? sum / (context.length - 7) : 0;
}

export interface Window {
  seriesId: string;
  context: number[];
  actual: number[];
}

/** Windows of `contextDays` every `everyDays`, each rescaled by its context's max (as Google does per request). */
export function* windows(
  seriesId: string,
  values: readonly number[],
  contextDays: number,
  everyDays = 7,
  horizon = HORIZON,
): Generator<Window> {
  for (let start = 0; start + contextDays + horizon <= values.length; start += everyDays) {
    const raw = values.slice(start, start + contextDays + horizon);
    const max = Math.max(...raw.slice(0, contextDays));
    const scaled = max > 0 ? raw.map((v) => (v / max) * 100) : raw.map(() => 0);
    yield { seriesId, context: scaled.slice(0, contextDays), actual: scaled.slice(contextDays) };
  }
}

/** A stable half split by series id: calibration uses only the "tune" half. */
export function splitOf(seriesId: string): 'tune' | 'holdout' {
  return createHash('sha1').update(seriesId).digest()[0]! % 2 === 0 ? 'tune' : 'holdout';
}

export interface IntervalForecast {
  point: number[];
  lower80: number[];
  upper80: number[];
  lower95: number[];
  upper95: number[];
}

export interface Scores {
  mase: number;
  smape: number;
  covered80: number;
  covered95: number;
  msis: number;
}

export function score(f: IntervalForecast, actual: readonly number[], scale: number): Scores {
  let ae = 0;
  let smape = 0;
  let c80 = 0;
  let c95 = 0;
  let is = 0;
  const alpha = 0.05;
  actual.forEach((y, h) => {
    const p = f.point[h]!;
    ae += Math.abs(y - p);
    smape += y === 0 && p === 0 ? 0 : (200 * Math.abs(y - p)) / (Math.abs(y) + Math.abs(p));
    if (y >= f.lower80[h]! && y <= f.upper80[h]!) c80 += 1;
    const l = f.lower95[h]!;
    const u = f.upper95[h]!;
    if (y >= l && y <= u) c95 += 1;
    is += u - l + (y < l ? (2 / alpha) * (l - y) : 0) + (y > u ? (2 / alpha) * (y - u) : 0);
  });
  const n = actual.length;
  return { mase: ae / n / scale, smape: smape / n, covered80: c80 / n, covered95: c95 / n, msis: is / n / scale };
}

/** Normal intervals around a point forecast with the given per-step sigma (for the baselines). */
export function normalIntervals(point: number[], sigma: (h: number) => number): IntervalForecast {
  const clip = (x: number) => Math.min(100, Math.max(0, x));
  return {
    point,
    lower80: point.map((p, h) => clip(p - 1.2816 * sigma(h))),
    upper80: point.map((p, h) => clip(p + 1.2816 * sigma(h))),
    lower95: point.map((p, h) => clip(p - 1.96 * sigma(h))),
    upper95: point.map((p, h) => clip(p + 1.96 * sigma(h))),
  };
}
