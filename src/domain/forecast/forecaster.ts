// 7-day forecasts for daily Google Trends series (0–100).
//
// Point forecast: candidates are scored by a rolling-origin backtest on the
// series itself; the robust weekly-median blend is the default and another
// candidate replaces it only when the backtest says so clearly (a backtest of
// a few origins is noisy, and on the tuning half of the data the blend beat
// seasonal naive by ~15 % MASE).
//
// Intervals: asymmetric, from quantiles of scale-free errors (error ÷ the
// series' in-sample seasonal-naive MAE) per horizon step, measured on the
// tuning half of the real series (see calibration.ts and
// scripts/calibrate-forecast.mjs) — calibrated, not assumed normal. Clipped to 0–100.
import { CALIBRATION } from './calibration.js';

type Quantiles = { q025: number; q10: number; q90: number; q975: number };

/**
 * Errors differ by how much history there is and how sparse the series is
 * (bench:forecast: one bucketed table cut MSIS ~3.5 % against one table for all).
 */
export function calibrationBucket(values: readonly number[]): string {
  const zeroShare = values.filter((v) => v === 0).length / values.length;
  const sparsity = zeroShare === 0 ? 'z0' : zeroShare <= 0.2 ? 'z20' : zeroShare <= 0.5 ? 'z50' : 'zhi';
  return `${values.length > 45 ? 'long' : 'short'}|${sparsity}`;
}

/** The scale intervals are drawn in: seasonal-naive MAE, half over the context, half over its last 4 weeks. */
export function intervalScale(values: readonly number[]): number {
  return 0.5 * seasonalNaiveScale(values) + 0.5 * seasonalNaiveScale(values.slice(-28));
}

function calibrationTable(values: readonly number[]): readonly Quantiles[] {
  return (CALIBRATION as Record<string, readonly Quantiles[]>)[calibrationBucket(values)] ?? CALIBRATION['long|z0'];
}
import { seasonalNaiveScale } from './evaluation.js';

export interface ForecastPoint {
  date: string;
  value: number;
  lower_80: number;
  upper_80: number;
  lower_95: number;
  upper_95: number;
}
export interface Backtest {
  origins: number;
  mase: number | null;
  mase_seasonal_naive: number | null;
  coverage_80: number | null;
  coverage_95: number | null;
}
export type Forecast =
  | { withheld: false; model: string; horizon: number; points: ForecastPoint[]; backtest: Backtest }
  | { withheld: true; reason: string };

export const MIN_POINTS = 21;

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Same weekday's values over the last `weeks` weeks, per step ahead. */
function seasonalMedian(history: readonly number[], horizon: number, weeks: number): number[] {
  return Array.from({ length: horizon }, (_, h) => {
    const same: number[] = [];
    for (let w = 1; w <= weeks; w += 1) {
      const v = history[history.length - 7 * w + (h % 7)];
      if (v !== undefined) same.push(v);
    }
    return median(same);
  });
}

export const MODELS: Record<string, (history: readonly number[], horizon: number) => number[]> = {
  weekly_median_blend: (h, n) => {
    const level = median(h.slice(-7));
    return seasonalMedian(h, n, 3).map((v) => 0.5 * v + 0.5 * level);
  },
  seasonal_median_3w: (h, n) => seasonalMedian(h, n, 3),
  median_7: (h, n) => Array(n).fill(median(h.slice(-7))),
  seasonal_naive_7: (h, n) => Array.from({ length: n }, (_, i) => h[h.length - 7 + (i % 7)] ?? h.at(-1) ?? 0),
};
export const DEFAULT_MODEL = 'weekly_median_blend';
/** Another model must beat the default's backtest MAE by this factor to replace it. */
const SWITCH_MARGIN = 0.8;

const clip = (x: number) => Math.min(100, Math.max(0, x));
const r1 = (x: number) => Math.round(x * 10) / 10;
const r3 = (x: number) => Math.round(x * 1000) / 1000;

export interface RawForecast {
  model: string;
  point: number[];
  lower80: number[];
  upper80: number[];
  lower95: number[];
  upper95: number[];
  backtest: Backtest;
}

/** The numeric core (no dates): used by the API, the batch CLI and the benchmark. */
export function forecastValues(values: readonly number[], horizon = 7): RawForecast | { withheld: true; reason: string } {
  if (values.length < MIN_POINTS) return { withheld: true, reason: `needs at least ${MIN_POINTS} daily points, got ${values.length}` };
  if (values.every((v) => v === 0)) return { withheld: true, reason: 'every day is zero: Google has too little data for this phrase' };
  // Sparse series are forecast (medians cope with zeros); one that never moves week on
  // week has no error scale, so neither its accuracy nor its intervals can be measured.
  const scale = seasonalNaiveScale(values);
  if (!(scale > 0)) return { withheld: true, reason: 'the series does not change week on week: no error scale to size intervals from' };

  // Rolling origins: every day of the last two weeks that leaves a full horizon and 3 weeks of history.
  const errors: Record<string, number[]> = Object.fromEntries(Object.keys(MODELS).map((m) => [m, []]));
  const scaled: Record<string, number[]> = Object.fromEntries(Object.keys(MODELS).map((m) => [m, []]));
  let origins = 0;
  for (let origin = values.length - horizon; origin >= Math.max(21, values.length - horizon - 13); origin -= 1) {
    origins += 1;
    const history = values.slice(0, origin);
    const actual = values.slice(origin, origin + horizon);
    for (const [name, model] of Object.entries(MODELS)) {
      const p = model(history, actual.length);
      actual.forEach((y, h) => {
        errors[name]!.push(Math.abs(y - clip(p[h]!)));
        scaled[name]!.push((y - clip(p[h]!)) / scale);
      });
    }
  }
  const mae = (name: string) => (errors[name]!.length ? errors[name]!.reduce((a, b) => a + b, 0) / errors[name]!.length : Infinity);
  let model = DEFAULT_MODEL;
  for (const name of Object.keys(MODELS)) if (mae(name) < SWITCH_MARGIN * mae(model)) model = name;

  const point = MODELS[model]!(values, horizon).map(clip);
  const widthScale = intervalScale(values) || scale;
  const table = calibrationTable(values);
  const quantiles = (h: number) => table[Math.min(h, table.length - 1)]!;
  const band = (h: number, q: keyof Quantiles) => quantiles(h)[q] * widthScale;
  const result = {
    point,
    lower80: point.map((p, h) => clip(p + band(h, 'q10'))),
    upper80: point.map((p, h) => clip(p + band(h, 'q90'))),
    lower95: point.map((p, h) => clip(p + band(h, 'q025'))),
    upper95: point.map((p, h) => clip(p + band(h, 'q975'))),
  };
  // The published backtest: how this model did on this series, and how often its bands held.
  // Backtest errors were scaled by `scale`; the bands are drawn in `widthScale`.
  const inBand = (lo: keyof Quantiles, hi: keyof Quantiles) => {
    const e = scaled[model]!;
    if (e.length === 0) return null;
    const ratio = widthScale / scale;
    return e.filter((x, i) => x >= quantiles(i % horizon)[lo] * ratio && x <= quantiles(i % horizon)[hi] * ratio).length / e.length;
  };
  const c80 = inBand('q10', 'q90');
  const c95 = inBand('q025', 'q975');
  return {
    model,
    ...result,
    backtest: {
      origins,
      mase: origins > 0 ? r3(mae(model) / scale) : null,
      mase_seasonal_naive: origins > 0 ? r3(mae('seasonal_naive_7') / scale) : null,
      coverage_80: c80 === null ? null : r3(c80),
      coverage_95: c95 === null ? null : r3(c95),
    },
  };
}

function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

export function forecast(dates: readonly string[], values: readonly number[], horizon = 7): Forecast {
  const raw = forecastValues(values, horizon);
  if ('withheld' in raw) return raw;
  const last = dates.at(-1)!;
  return {
    withheld: false,
    model: raw.model,
    horizon,
    points: raw.point.map((v, h) => ({
      date: addDays(last, h + 1),
      value: r1(v),
      lower_80: r1(raw.lower80[h]!),
      upper_80: r1(raw.upper80[h]!),
      lower_95: r1(raw.lower95[h]!),
      upper_95: r1(raw.upper95[h]!),
    })),
    backtest: raw.backtest,
  };
}
