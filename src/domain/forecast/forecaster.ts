// 7-day forecasts for daily Google Trends series (0–100).
//
// Point forecast: candidates are scored by a rolling-origin backtest on the
// series itself; the robust weekly-median blend is the default and another
// candidate replaces it only when the backtest says so clearly (a backtest of
// a few origins is noisy, and on the tuning half of the data the blend beat
// seasonal naive by ~15 % MASE).
//
// Intervals: asymmetric, from quantiles of scale-free errors (error ÷ an
// interval scale computed from the context) per horizon step and per bucket
// (context length × sparsity), measured on the tuning half of the real series
// only (see calibration.ts and scripts/calibrate-forecast.mjs): calibrated, not
// assumed normal. Nested (95% ⊇ 80%) and clipped to 0–100.
import { median } from '../stats.js';
import { addUtcDays } from '../utc-day.js';
import { CALIBRATION } from './calibration.js';
import { seasonalNaiveScale } from './evaluation.js';
import { round3 } from '../numbers.js';

/**
 * Interval scales: how wide a series' errors tend to be, from its context.
 * Each calibration bucket uses the one that measured best on the tuning half.
 */
export const INTERVAL_SCALES: Record<string, (values: readonly number[]) => number> = {
  sn_blend: (v) => 0.5 * seasonalNaiveScale(v) + 0.5 * seasonalNaiveScale(v.slice(-28)),
  sn_full: (v) => seasonalNaiveScale(v),
  mean_abs_dev_28: (v) => {
    const r = v.slice(-28);
    const m = r.reduce((a, b) => a + b, 0) / r.length;
    return r.reduce((a, b) => a + Math.abs(b - m), 0) / r.length + 0.1;
  },
  mad_14: (v) => {
    const r = v.slice(-14);
    const m = median(r);
    return median(r.map((x) => Math.abs(x - m))) + 0.5;
  },
  level_7: (v) => median(v.slice(-7)) + 1,
  sqrt_level_sn: (v) => Math.sqrt((median(v.slice(-7)) + 1) * (seasonalNaiveScale(v) || 1e-9)),
};

/** Scale of the 80% band everywhere (it held 80% coverage best on the tuning half). */
export const SCALE_80 = 'sn_blend';

/**
 * Errors differ by how much history there is and how sparse the series is, so
 * calibration is per bucket (bench:forecast measures the effect).
 */
export function calibrationBucket(values: readonly number[]): string {
  const zeroShare = values.filter((v) => v === 0).length / values.length;
  const sparsity = zeroShare === 0 ? 'z0' : zeroShare <= 0.2 ? 'z20' : zeroShare <= 0.5 ? 'z50' : 'zhi';
  return `${values.length > 45 ? 'long' : 'short'}|${sparsity}`;
}

interface BucketCalibration {
  scale95: string;
  /** Per horizon step: [q0.1, q0.9] of error ÷ SCALE_80 and [q0.025, q0.975] of error ÷ scale95. */
  q80: ReadonlyArray<readonly [number, number]>;
  q95: ReadonlyArray<readonly [number, number]>;
}

function calibrationFor(values: readonly number[]): BucketCalibration {
  const table = CALIBRATION as unknown as Record<string, BucketCalibration>;
  return table[calibrationBucket(values)] ?? table['long|z0']!;
}

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
  { withheld: false; model: string; horizon: number; points: ForecastPoint[]; backtest: Backtest } | { withheld: true; reason: string };

export const MIN_POINTS = 21;

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

export interface RawForecast {
  model: string;
  point: number[];
  lower80: number[];
  upper80: number[];
  lower95: number[];
  upper95: number[];
  backtest: Backtest;
}

/**
 * The numeric core (no dates): used by the API, the batch CLI and the benchmark.
 * `skip` days after the series are passed over before the `horizon` days
 * forecast (a partial last day the series left out: see forecast()); the model
 * is chosen and backtested on `horizon` days as before, and each day's interval
 * is the one for its distance from the series.
 */
export function forecastValues(values: readonly number[], horizon = 7, skip = 0): RawForecast | { withheld: true; reason: string } {
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

  const point = MODELS[model]!(values, horizon + skip)
    .map(clip)
    .slice(skip);
  const cal = calibrationFor(values);
  const s80 = INTERVAL_SCALES[SCALE_80]!(values) || scale;
  const s95 = INTERVAL_SCALES[cal.scale95]!(values) || scale;
  const q80 = (h: number) => cal.q80[Math.min(h, cal.q80.length - 1)]!;
  const q95 = (h: number) => cal.q95[Math.min(h, cal.q95.length - 1)]!;
  const lower80 = point.map((p, h) => clip(p + q80(h + skip)[0] * s80));
  const upper80 = point.map((p, h) => clip(p + q80(h + skip)[1] * s80));
  const result = {
    point,
    lower80,
    upper80,
    // The two bands are calibrated separately; keep them nested.
    lower95: point.map((p, h) => Math.min(lower80[h]!, clip(p + q95(h + skip)[0] * s95))),
    upper95: point.map((p, h) => Math.max(upper80[h]!, clip(p + q95(h + skip)[1] * s95))),
  };
  // The published backtest: how this model did on this series, and how often its bands held.
  // How often the bands would have held on this series' own backtest (errors were scaled by `scale`).
  const inBand = (q: (h: number) => readonly [number, number], width: number) => {
    const e = scaled[model]!;
    if (e.length === 0) return null;
    const ratio = width / scale;
    return e.filter((x, i) => x >= q(i % horizon)[0] * ratio && x <= q(i % horizon)[1] * ratio).length / e.length;
  };
  const c80 = inBand(q80, s80);
  const c95 = inBand(q95, s95);
  return {
    model,
    ...result,
    backtest: {
      origins,
      mase: origins > 0 ? round3(mae(model) / scale) : null,
      mase_seasonal_naive: origins > 0 ? round3(mae('seasonal_naive_7') / scale) : null,
      coverage_80: c80 === null ? null : round3(c80),
      coverage_95: c95 === null ? null : round3(c95),
    },
  };
}

/**
 * The next `horizon` days after the series. `lastDataDay`, when later than the
 * series' last date, is the last day of data the series left out (Google's
 * partial today, which research drops before fitting): the forecast starts the
 * day after it, so its first row is never a day a chart already shows (founder
 * review, issue 47).
 */
export function forecast(dates: readonly string[], values: readonly number[], horizon = 7, lastDataDay?: string): Forecast {
  // The models and their calibration are daily: a weekly series (a replayed recording) would be dated as days.
  const spacing = dates.length > 1 ? (Date.parse(dates[1]!) - Date.parse(dates[0]!)) / 86_400_000 : 1;
  if (spacing >= 7)
    return { withheld: true, reason: `the series is weekly (a point every ${spacing} days): the forecast reads daily points` };
  const last = dates.at(-1) ?? '';
  const gap = lastDataDay && last ? Math.round((Date.parse(lastDataDay) - Date.parse(last)) / 86_400_000) : 0;
  const skip = Math.max(0, Math.min(7, gap));
  const raw = forecastValues(values, horizon, skip);
  if ('withheld' in raw) return raw;
  return {
    withheld: false,
    model: raw.model,
    horizon,
    points: raw.point.map((v, h) => ({
      date: addUtcDays(last, h + 1 + skip),
      value: r1(v),
      lower_80: r1(raw.lower80[h]!),
      upper_80: r1(raw.upper80[h]!),
      lower_95: r1(raw.lower95[h]!),
      upper_95: r1(raw.upper95[h]!),
    })),
    backtest: raw.backtest,
  };
}
