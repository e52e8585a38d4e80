// 3-, 6- and 12-month outlooks from the 5-year weekly Google Trends series (0–100).
//
// What is forecast: the MEAN weekly interest over the next 13, 26 or 52 weeks
// (not the single week at the horizon: one week of a Trends series is mostly
// noise that far out, while "the next three months will average 40" is a claim
// a backtest can check and a reader can use).
//
// Point: a few simple seasonal models (below) are scored by a rolling-origin
// backtest on the series' own history. The default, an equal mix of three of them,
// stays unless another's MAE relative to seasonal naive, averaged over the
// horizons, is clearly lower. A horizon is published only where the model beat
// seasonal naive (the same weeks a year earlier) by at least 5 % on this series'
// backtest at that horizon; otherwise it is withheld with the figures. Seasonal
// naive itself is the yardstick, never a candidate: serving it would add nothing
// a reader cannot see on the chart.
//
// Intervals: asymmetric quantiles of error ÷ an interval scale, per horizon,
// measured on the tuning half of the real long series (outlook-calibration.ts,
// written by scripts/backtest-outlook.ts): calibrated, not assumed normal.
// Nested (95 % ⊇ 80 %) and clipped to 0–100.
import { median } from '../stats.js';
import { OUTLOOK_CALIBRATION as MEASURED_CALIBRATION } from './outlook-calibration.js';
import { addUtcDays } from '../utc-day.js';
import { round3 } from '../numbers.js';

export const OUTLOOK_HORIZONS = [
  { months: 3, weeks: 13 },
  { months: 6, weeks: 26 },
  { months: 12, weeks: 52 },
] as const;
export type OutlookMonths = (typeof OUTLOOK_HORIZONS)[number]['months'];
export type OutlookWeeks = (typeof OUTLOOK_HORIZONS)[number]['weeks'];

const YEAR = 52;
/** Weeks of history every backtest origin has: two full years, so each model has a year-on-year to work with. */
export const MIN_HISTORY = 2 * YEAR;
/** Backtest origins are this many weeks apart (neighbouring weekly origins share almost all their weeks). */
export const ORIGIN_STEP = 4;
/** A horizon's backtest needs at least this many origins to be worth publishing. */
export const MIN_ORIGINS = 6;
/** Weeks needed before a horizon of `weeks` can be backtested and so published. */
/** Below this share of its own backtest inside the 95 % band, a horizon is withheld (its bands would mislead). */
export const MIN_COVERAGE_95 = 0.8;
export const minWeeksFor = (weeks: number): number => MIN_HISTORY + weeks + (MIN_ORIGINS - 1) * ORIGIN_STEP;

// ---------------------------------------------------------------------------
// The models: each maps a weekly history (≥ MIN_HISTORY weeks) to the next 52 weeks.

const sum = (v: readonly number[]) => v.reduce((a, b) => a + b, 0);
const mean = (v: readonly number[]) => (v.length ? sum(v) / v.length : 0);
const clip = (x: number) => Math.min(100, Math.max(0, x));
const r1 = (x: number) => Math.round(x * 10) / 10;

/** Means of the last full years, most recent first (at most 4: older years say little about next year). */
function yearMeans(h: readonly number[]): number[] {
  const years = Math.min(4, Math.floor(h.length / YEAR));
  return Array.from({ length: years }, (_, j) => mean(h.slice(h.length - YEAR * (j + 1), h.length - YEAR * j)));
}

/**
 * The yearly shape, week by week from the week after the history ends: the
 * median over past years of that week ÷ its year's mean, normalised to mean 1.
 * A median, so one freak year (a spike, March 2020) does not repeat.
 */
function seasonalIndex(h: readonly number[]): number[] {
  const ys = yearMeans(h);
  const n = h.length;
  const index = Array.from({ length: YEAR }, (_, k) => {
    const ratios: number[] = [];
    ys.forEach((y, j) => {
      if (y > 0) ratios.push(h[n - YEAR * (j + 1) + k]! / y);
    });
    return ratios.length ? median(ratios) : 1;
  });
  const m = mean(index);
  return m > 0 ? index.map((x) => x / m) : index.map(() => 1);
}

/** Damped trend: φ = 0.8 per year, so a trend measured over one year is trusted for little more than one. */
const PHI = 0.8;
const damped = (years: number) => (PHI * (1 - PHI ** years)) / (1 - PHI);

type WeeklyModel = (h: readonly number[]) => number[];

/** Last year's weeks × how the last 13 weeks compare with the same 13 weeks a year before (ratio kept within ½–2). */
const seasonalNaiveLevel: WeeklyModel = (h) => {
  const ratio = Math.min(2, Math.max(0.5, (mean(h.slice(-13)) + 1) / (mean(h.slice(-YEAR - 13, -YEAR)) + 1)));
  return h.slice(-YEAR).map((v) => v * ratio);
};
/** Last year's mean × the yearly shape. */
const seasonalIndexLevel: WeeklyModel = (h) => {
  const level = yearMeans(h)[0]!;
  return seasonalIndex(h).map((i) => level * i);
};
/** The last 13 weeks' level, with the season taken out, × the yearly shape. */
const seasonalIndexRecent: WeeklyModel = (h) => {
  const index = seasonalIndex(h);
  // The last 13 weeks sit at positions 39–51 of the yearly shape.
  const shape = mean(index.slice(YEAR - 13));
  const level = shape > 0 ? mean(h.slice(-13)) / shape : yearMeans(h)[0]!;
  return index.map((i) => level * i);
};
/** Last year's mean moved on by the year-on-year change, damped, × the yearly shape. */
const seasonalIndexTrend: WeeklyModel = (h) => {
  const [y1, y2] = yearMeans(h) as [number, number];
  // Week k ahead is (k + 26.5) / 52 years past the middle of the last year.
  return seasonalIndex(h).map((i, k) => Math.max(0, y1 + (y1 - y2) * damped((k + 26.5) / YEAR)) * i);
};
/** No season at all: the last 13 weeks' mean, flat (for series whose "season" is noise). */
const level13: WeeklyModel = (h) => Array<number>(YEAR).fill(mean(h.slice(-13)));

export const OUTLOOK_MODELS = {
  /** The yardstick, never served: each week as it was a year earlier. */
  seasonal_naive: (h) => h.slice(-YEAR),
  /**
   * The default: the mean of the recent level × shape, the damped trend × shape and the
   * flat recent level. On the tuning half it beat each of them alone at every horizon
   * (combining forecasts is the most reliable finding of the M competitions).
   */
  combined: (h) => {
    const a = seasonalIndexRecent(h);
    const b = seasonalIndexTrend(h);
    const c = level13(h);
    return a.map((x, k) => (x + b[k]! + c[k]!) / 3);
  },
  seasonal_naive_level: seasonalNaiveLevel,
  seasonal_index: seasonalIndexLevel,
  seasonal_index_recent: seasonalIndexRecent,
  seasonal_index_trend: seasonalIndexTrend,
  level_13: level13,
} as const satisfies Record<string, WeeklyModel>;
export type OutlookModel = keyof typeof OUTLOOK_MODELS;
export const BASELINE: OutlookModel = 'seasonal_naive';
export const CANDIDATES = (Object.keys(OUTLOOK_MODELS) as OutlookModel[]).filter((m) => m !== BASELINE);
export const DEFAULT_MODEL: OutlookModel = 'combined';
/** Another model must beat the default's relative backtest MAE by this factor to replace it (as the 7-day forecast). */
const SWITCH_MARGIN = 0.8;
/**
 * A horizon is served only when its backtest MAE is below this share of seasonal naive's:
 * a few dozen overlapping origins cannot tell a 2 % difference from luck (and over 52 weeks
 * `seasonal_index` averages to last year's mean, as seasonal naive does).
 */
export const BEAT_MARGIN = 0.95;

/** The forecast mean of the next `weeks` weeks (each week clipped to 0–100 first). */
export function horizonMean(model: OutlookModel, history: readonly number[], weeks: number): number {
  return mean(OUTLOOK_MODELS[model](history).slice(0, weeks).map(clip));
}

// ---------------------------------------------------------------------------
// Interval scales: how far a series' horizon means tend to wander, from its history alone.

/** In-sample error of seasonal naive on the `weeks`-week mean: |mean of a window − mean of the same window a year earlier|. */
function seasonalNaiveHorizonError(v: readonly number[], weeks: number): number {
  const prefix = [0];
  for (const x of v) prefix.push(prefix.at(-1)! + x);
  const windowMean = (end: number) => (prefix[end]! - prefix[end - weeks]!) / weeks;
  let total = 0;
  let count = 0;
  for (let end = YEAR + weeks; end <= v.length; end += 1) {
    total += Math.abs(windowMean(end) - windowMean(end - YEAR));
    count += 1;
  }
  return count ? total / count : 0;
}

export const OUTLOOK_SCALES = {
  /** Seasonal naive's in-sample error on this horizon's mean (the MASE scale for this target). */
  sn_horizon: (v: readonly number[], weeks: number) => seasonalNaiveHorizonError(v, weeks) + 0.1,
  /** Seasonal naive's in-sample error week by week. */
  sn_weekly: (v: readonly number[]) => seasonalNaiveHorizonError(v, 1) + 0.1,
  /** The last year's mean: errors of Trends series grow with their level. */
  level: (v: readonly number[]) => mean(v.slice(-YEAR)) + 1,
} as const satisfies Record<string, (v: readonly number[], weeks: number) => number>;
export type OutlookScale = keyof typeof OUTLOOK_SCALES;

export interface OutlookCalibrationEntry {
  scale: OutlookScale;
  /** Quantiles of (actual − point) ÷ scale: [q0.10, q0.90] and [q0.025, q0.975]. */
  q80: readonly [number, number];
  q95: readonly [number, number];
}
export type OutlookCalibration = Readonly<Record<OutlookWeeks, OutlookCalibrationEntry>>;
/** The calibration measured on the tuning half (generated data, typed here). */
export const OUTLOOK_CALIBRATION: OutlookCalibration = MEASURED_CALIBRATION;

/** The 80 % and 95 % bands around a horizon mean, from the history it was made from: nested and clipped. */
export function outlookBands(
  point: number,
  history: readonly number[],
  weeks: OutlookWeeks,
  calibration: OutlookCalibration = OUTLOOK_CALIBRATION,
): { lower80: number; upper80: number; lower95: number; upper95: number } {
  const c = calibration[weeks];
  const s = OUTLOOK_SCALES[c.scale](history, weeks);
  const lower80 = clip(point + c.q80[0] * s);
  const upper80 = clip(point + c.q80[1] * s);
  return {
    lower80,
    upper80,
    lower95: Math.min(lower80, clip(point + c.q95[0] * s)),
    upper95: Math.max(upper80, clip(point + c.q95[1] * s)),
  };
}

// ---------------------------------------------------------------------------
// The published shape.

/** How the chosen model did on this series' own history at one horizon (every ORIGIN_STEP weeks, each origin with ≥ 2 years behind it). */
export interface OutlookBacktest {
  origins: number;
  /** Mean absolute error of the horizon mean, in the series' own 0–100 units. */
  mae: number;
  mae_seasonal_naive: number;
  /** mae ÷ mae_seasonal_naive: below 1 beats seasonal naive; null when seasonal naive was exact (its MAE is 0). */
  mae_ratio: number | null;
  /** Share of origins whose actual mean fell inside the band the outlook would have published then. */
  coverage_80: number;
  coverage_95: number;
}

interface HorizonBase {
  months: OutlookMonths;
  weeks: OutlookWeeks;
  /** First and last week the horizon covers (start dates of Google's weekly buckets, yyyy-mm-dd). */
  first_week: string;
  last_week: string;
}
export interface OutlookHorizonServed extends HorizonBase {
  withheld: false;
  /** Forecast mean weekly interest over the horizon's weeks, 0–100. */
  value: number;
  /** Mean of the last `weeks` observed weeks, for comparison ("up from 35"). */
  recent: number;
  lower_80: number;
  upper_80: number;
  lower_95: number;
  upper_95: number;
  backtest: OutlookBacktest;
}
export interface OutlookHorizonWithheld extends HorizonBase {
  withheld: true;
  reason: string;
  /** Null when the history is too short for a backtest at this horizon. */
  backtest: OutlookBacktest | null;
}
export type OutlookHorizon = OutlookHorizonServed | OutlookHorizonWithheld;

/**
 * The outlook of a weekly series: JSON-serialisable, numbers rounded (values to
 * 0.1, ratios and coverages to 0.001).
 *
 * - `{ withheld: false, model, interval: 'week', horizons }`: at least one horizon
 *   is served; `horizons` always lists 3, 6 and 12 months in that order, each
 *   either served (value, bands, backtest) or withheld with its reason.
 * - `{ withheld: true, reason, model, horizons }`: nothing is served. `model` is
 *   null and `horizons` empty when the series itself rules an outlook out (too
 *   short, not weekly, all zeros, never changes); otherwise they carry the model
 *   tried and each horizon's reason and backtest (it lost to seasonal naive).
 */
export type Outlook =
  | { withheld: false; model: OutlookModel; interval: 'week'; horizons: OutlookHorizon[] }
  | { withheld: true; reason: string; model: OutlookModel | null; horizons: OutlookHorizonWithheld[] };

/**
 * The horizon a reader of a stored outlook speaks of (the direction statement, the decision summary's "why now"):
 * the first served one whose recent level is at least 1, with its place in `horizons` for an evidence pointer.
 * Below Google's resolution (a mean under 1) the months before are no base to read the outlook against: "0 against
 * 0.4, -100 %" is noise, not a fall (founder review, b560c05; explanations.property.test.ts). Both readers cite this
 * one horizon, so the summary never says one horizon while the direction says another. The outlook is read from
 * stored JSON, which older code may have written: it is checked, not trusted.
 */
export function servedHorizon(
  outlook: unknown,
): { horizon: Pick<OutlookHorizonServed, 'months' | 'value' | 'recent'>; index: number } | null {
  const o = outlook as { withheld?: unknown; horizons?: unknown } | null | undefined;
  if (!o || o.withheld !== false || !Array.isArray(o.horizons)) return null;
  const horizons = o.horizons as Array<{ withheld?: unknown; months?: unknown; value?: unknown; recent?: unknown } | null>;
  const index = horizons.findIndex(
    (h) =>
      h?.withheld === false && typeof h.months === 'number' && typeof h.value === 'number' && typeof h.recent === 'number' && h.recent >= 1,
  );
  if (index < 0) return null;
  const h = horizons[index]!;
  return { horizon: { months: h.months as OutlookMonths, value: h.value as number, recent: h.recent as number }, index };
}

// ---------------------------------------------------------------------------

interface HorizonScore {
  origins: number[];
  actual: number[];
  predicted: Record<OutlookModel, number[]>;
}

/** Rolling origins for a horizon: the latest that leaves a full horizon, then every ORIGIN_STEP weeks back to MIN_HISTORY. */
function originsFor(n: number, weeks: number): number[] {
  const out: number[] = [];
  for (let t = n - weeks; t >= MIN_HISTORY; t -= ORIGIN_STEP) out.push(t);
  return out;
}

function score(values: readonly number[], weeks: number, paths: (t: number) => Record<OutlookModel, number[]>): HorizonScore {
  const origins = originsFor(values.length, weeks);
  const predicted = Object.fromEntries(Object.keys(OUTLOOK_MODELS).map((m) => [m, [] as number[]])) as Record<OutlookModel, number[]>;
  const actual: number[] = [];
  for (const t of origins) {
    actual.push(mean(values.slice(t, t + weeks)));
    const byModel = paths(t);
    for (const m of Object.keys(OUTLOOK_MODELS) as OutlookModel[]) predicted[m].push(mean(byModel[m].slice(0, weeks).map(clip)));
  }
  return { origins, actual, predicted };
}

const maeOf = (s: HorizonScore, m: OutlookModel) => mean(s.predicted[m].map((p, i) => Math.abs(s.actual[i]! - p)));

/** The numeric core, before dates and rounding (the backtest script calls it with its own calibration). */
export interface RawOutlookHorizon {
  months: OutlookMonths;
  weeks: OutlookWeeks;
  /** Null when the history is too short to backtest this horizon. */
  backtest: OutlookBacktest | null;
  served: null | { point: number; recent: number; lower80: number; upper80: number; lower95: number; upper95: number };
  reason: string | null;
}
export type RawOutlook =
  | { withheld: true; reason: string; model: OutlookModel | null; horizons: RawOutlookHorizon[] }
  | {
      withheld: false;
      model: OutlookModel;
      horizons: RawOutlookHorizon[];
    };

export function outlookValues(values: readonly number[], calibration: OutlookCalibration = OUTLOOK_CALIBRATION): RawOutlook {
  const n = values.length;
  const shortest = minWeeksFor(OUTLOOK_HORIZONS[0].weeks);
  if (n < shortest)
    return {
      withheld: true,
      reason: `needs at least ${shortest} weekly points (2 years of history, a 3-month horizon and ${MIN_ORIGINS} backtest origins ${ORIGIN_STEP} weeks apart), got ${n}`,
      model: null,
      horizons: [],
    };
  if (values.every((v) => v === 0))
    return { withheld: true, reason: 'every week is zero: Google has too little data for this phrase', model: null, horizons: [] };
  if (values.every((v) => v === values[0]))
    return { withheld: true, reason: `every week is ${values[0]}: there is no movement to forecast`, model: null, horizons: [] };

  const cache = new Map<number, Record<OutlookModel, number[]>>();
  const paths = (t: number) => {
    let p = cache.get(t);
    if (!p) {
      const history = values.slice(0, t);
      p = Object.fromEntries(Object.entries(OUTLOOK_MODELS).map(([m, f]) => [m, f(history)])) as Record<OutlookModel, number[]>;
      cache.set(t, p);
    }
    return p;
  };
  const scores = new Map(OUTLOOK_HORIZONS.filter((h) => n >= minWeeksFor(h.weeks)).map((h) => [h.weeks, score(values, h.weeks, paths)]));

  // One model for every horizon: the default unless another's MAE relative to seasonal naive,
  // averaged over the horizons that can be backtested, is clearly lower (+0.1 keeps an exact
  // seasonal naive from dividing by 0). A backtest of a few dozen overlapping origins is noisy:
  // picking the plain best on it did worse on the tuning half than keeping the default.
  const relative = (m: OutlookModel) => mean([...scores.values()].map((s) => (maeOf(s, m) + 0.1) / (maeOf(s, BASELINE) + 0.1)));
  let model: OutlookModel = DEFAULT_MODEL;
  for (const m of CANDIDATES) if (relative(m) < SWITCH_MARGIN * relative(model)) model = m;

  const horizons: RawOutlookHorizon[] = OUTLOOK_HORIZONS.map(({ months, weeks }) => {
    const s = scores.get(weeks);
    if (!s)
      return {
        months,
        weeks,
        backtest: null,
        served: null,
        reason: `a ${months}-month outlook needs ${minWeeksFor(weeks)} weekly points to be backtested (${MIN_ORIGINS} origins), got ${n}`,
      };
    let in80 = 0;
    let in95 = 0;
    s.origins.forEach((t, i) => {
      const b = outlookBands(s.predicted[model][i]!, values.slice(0, t), weeks, calibration);
      const y = s.actual[i]!;
      if (y >= b.lower80 && y <= b.upper80) in80 += 1;
      if (y >= b.lower95 && y <= b.upper95) in95 += 1;
    });
    const mae = maeOf(s, model);
    const maeSn = maeOf(s, BASELINE);
    const backtest: OutlookBacktest = {
      origins: s.origins.length,
      mae: round3(mae),
      mae_seasonal_naive: round3(maeSn),
      mae_ratio: maeSn > 0 ? round3(mae / maeSn) : null,
      coverage_80: round3(in80 / s.origins.length),
      coverage_95: round3(in95 / s.origins.length),
    };
    if (!(mae < BEAT_MARGIN * maeSn)) {
      const pct = maeSn > 0 ? Math.round(Math.abs(mae / maeSn - 1) * 100) : 0;
      const by =
        maeSn === 0
          ? 'while'
          : mae >= maeSn
            ? `${pct} % worse than`
            : `only ${pct} % better than (it must be ${Math.round((1 - BEAT_MARGIN) * 100)} % better)`;
      return {
        months,
        weeks,
        backtest,
        served: null,
        reason:
          `did not beat seasonal naive (the same weeks a year earlier) on this series' history: over ${s.origins.length} origins ` +
          `its ${months}-month mean was off by ${r1(mae)} on average, ${by} seasonal naive's ${r1(maeSn)}`,
      };
    }
    // Bands that missed the outcome far more often than they claim on this very series say nothing
    // (an outside review found 95 % bands holding 38 % of their backtest): the horizon is withheld.
    if (backtest.coverage_95 < MIN_COVERAGE_95)
      return {
        months,
        weeks,
        backtest,
        served: null,
        reason:
          `its bands did not hold on this series' history: the 95 % band held the outcome at ${Math.round(backtest.coverage_95 * 100)} % ` +
          `of ${s.origins.length} origins (at least ${Math.round(MIN_COVERAGE_95 * 100)} % needed), the 80 % band at ${Math.round(backtest.coverage_80 * 100)} %`,
      };
    const point = horizonMean(model, values, weeks);
    const b = outlookBands(point, values, weeks, calibration);
    return { months, weeks, backtest, served: { point, recent: mean(values.slice(-weeks)), ...b }, reason: null };
  });

  if (horizons.some((h) => h.served)) return { withheld: false, model, horizons };
  if (scores.size === 0) return { withheld: true, reason: horizons[0]!.reason!, model: null, horizons };
  const lost = horizons
    .filter((h) => h.backtest)
    .map((h) => {
      const r = h.backtest!.mae_ratio;
      return `${h.months} months ${r === null ? 'seasonal naive exact' : `${r >= 1 ? '+' : ''}${Math.round((r - 1) * 100)} % MAE`}`;
    });
  return {
    withheld: true,
    reason: `no horizon beat seasonal naive (the same weeks a year earlier) on this series' own history: ${lost.join(', ')} (${model})`,
    model,
    horizons,
  };
}

const DAY = 86_400_000;

/**
 * Weeks Google left out (hasData false, dropped by cleanSeries) come back as 0,
 * which is what Google shows for them, so yearly lags stay 52 points apart.
 */
function regularWeeks(dates: readonly string[], values: readonly number[]): { values: number[] } | { reason: string } {
  if (dates.length !== values.length) throw new Error(`outlook: ${dates.length} dates for ${values.length} values`);
  const out: number[] = values.length ? [values[0]!] : [];
  for (let i = 1; i < dates.length; i += 1) {
    const days = (Date.parse(`${dates[i]}T00:00:00Z`) - Date.parse(`${dates[i - 1]}T00:00:00Z`)) / DAY;
    if (!(days > 0) || days % 7 !== 0)
      return {
        reason: `not a weekly series: ${dates[i - 1]} to ${dates[i]} is ${Number.isNaN(days) ? 'not a date step' : `${days} days`}`,
      };
    for (let gap = 7; gap < days; gap += 7) out.push(0);
    out.push(values[i]!);
  }
  return { values: out };
}

/** The outlook of a weekly series (dates yyyy-mm-dd, oldest first, the partial last week already dropped). */
export function outlook(dates: readonly string[], values: readonly number[]): Outlook {
  const weekly = regularWeeks(dates, values);
  if ('reason' in weekly) return { withheld: true, reason: weekly.reason, model: null, horizons: [] };
  const raw = outlookValues(weekly.values);
  const last = dates.at(-1) ?? '';
  const horizons: OutlookHorizon[] = raw.horizons.map((h) => {
    const base = { months: h.months, weeks: h.weeks, first_week: addUtcDays(last, 7), last_week: addUtcDays(last, 7 * h.weeks) };
    if (!h.served) return { ...base, withheld: true, reason: h.reason!, backtest: h.backtest };
    return {
      ...base,
      withheld: false,
      value: r1(h.served.point),
      recent: r1(h.served.recent),
      lower_80: r1(h.served.lower80),
      upper_80: r1(h.served.upper80),
      lower_95: r1(h.served.lower95),
      upper_95: r1(h.served.upper95),
      backtest: h.backtest!,
    };
  });
  if (raw.withheld) return { withheld: true, reason: raw.reason, model: raw.model, horizons: horizons as OutlookHorizonWithheld[] };
  return { withheld: false, model: raw.model, interval: 'week', horizons };
}
