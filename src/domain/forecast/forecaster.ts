// 7-day forecasts for daily Google Trends series (0–100). Candidates are
// scored by rolling-origin backtest on the series itself; interval widths are
// the empirical quantiles of the backtest errors (not a normal assumption).
// Issue 4 extends the candidate set; the contract stays.

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

type Model = (history: readonly number[], horizon: number) => number[];

export const MODELS: Record<string, Model> = {
  naive: (h, n) => Array(n).fill(h.at(-1) ?? 0),
  seasonal_naive_7: (h, n) => Array.from({ length: n }, (_, i) => h[h.length - 7 + (i % 7)] ?? h.at(-1) ?? 0),
  mean_7: (h, n) => Array(n).fill(h.slice(-7).reduce((a, b) => a + b, 0) / Math.min(7, h.length)),
  seasonal_mean_3w: (h, n) =>
    Array.from({ length: n }, (_, i) => {
      const same = [1, 2, 3].map((w) => h[h.length - 7 * w + (i % 7)]).filter((v): v is number => v !== undefined);
      return same.reduce((a, b) => a + b, 0) / Math.max(1, same.length);
    }),
};

const MIN_POINTS = 28;
const clip = (x: number) => Math.min(100, Math.max(0, x));
const r1 = (x: number) => Math.round(x * 10) / 10;
const r3 = (x: number) => Math.round(x * 1000) / 1000;

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return 0;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

export function forecast(dates: readonly string[], values: readonly number[], horizon = 7): Forecast {
  if (values.length < MIN_POINTS) return { withheld: true, reason: `needs at least ${MIN_POINTS} daily points, got ${values.length}` };
  const zeroShare = values.filter((v) => v === 0).length / values.length;
  if (zeroShare > 0.5) return { withheld: true, reason: `${Math.round(zeroShare * 100)}% of days are zero: too sparse to forecast` };

  // Rolling origins over the last two weeks of history that still leave `horizon` days to score.
  const origins: number[] = [];
  for (let o = values.length - horizon; o >= Math.max(21, values.length - horizon - 14); o -= 1) origins.push(o);
  const errors: Record<string, number[][]> = Object.fromEntries(Object.keys(MODELS).map((m) => [m, []]));
  for (const origin of origins) {
    const history = values.slice(0, origin);
    const actual = values.slice(origin, origin + horizon);
    for (const [name, model] of Object.entries(MODELS)) {
      const predicted = model(history, actual.length).map(clip);
      errors[name]!.push(actual.map((a, i) => a - predicted[i]!));
    }
  }
  const mae = (name: string) => {
    const all = errors[name]!.flat();
    return all.reduce((s, e) => s + Math.abs(e), 0) / Math.max(1, all.length);
  };
  const best = Object.keys(MODELS).sort((a, b) => mae(a) - mae(b))[0]!;

  // In-sample seasonal-naive MAE scales MASE, as in the benchmark.
  let scaleSum = 0;
  for (let i = 7; i < values.length; i += 1) scaleSum += Math.abs(values[i]! - values[i - 7]!);
  const scale = scaleSum / (values.length - 7);

  const residuals = errors[best]!.flat();
  const absSorted = residuals.map(Math.abs).sort((a, b) => a - b);
  const w80 = quantile(absSorted, 0.8);
  const w95 = quantile(absSorted, 0.95);
  const covered = (w: number) => residuals.filter((e) => Math.abs(e) <= w).length / Math.max(1, residuals.length);

  const point = MODELS[best]!(values, horizon).map(clip);
  const lastDate = dates.at(-1)!;
  return {
    withheld: false,
    model: best,
    horizon,
    points: point.map((v, i) => ({
      date: addDays(lastDate, i + 1),
      value: r1(v),
      lower_80: r1(clip(v - w80)),
      upper_80: r1(clip(v + w80)),
      lower_95: r1(clip(v - w95)),
      upper_95: r1(clip(v + w95)),
    })),
    backtest: {
      origins: origins.length,
      mase: scale > 0 ? r3(mae(best) / scale) : null,
      mase_seasonal_naive: scale > 0 ? r3(mae('seasonal_naive_7') / scale) : null,
      // Measured on the same backtest the widths came from: honest about being in-sample for the widths.
      coverage_80: r3(covered(w80)),
      coverage_95: r3(covered(w95)),
    },
  };
}
