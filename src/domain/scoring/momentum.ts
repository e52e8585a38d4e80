// Momentum ("why now"): how likely next month's interest is above this
// month's, from the series a run already has. Chosen by a backtest on real
// daily Google Trends series (npm run bench:momentum; the published figures
// live in methodology.ts and GET /api/methodology).
//
// What the backtest taught: Google Trends series revert after spikes, and a
// month that jumped above the month before tends to give some of it back. So
// the signal is the last week against the month (it carries forward), minus a
// little of the month against the month two months before (it reverts), minus
// the last week's lift when the month held a spike (a spike's tail is not a
// trend). The 7-day forecast's direction and the weekday profile were tried
// too and added nothing on the tuning half.
import { median } from 'simple-statistics';
import { round3, unsupported, type DimensionScore } from './dimensions.js';
import { completePoints, type SeriesPoint } from './series.js';
import { classifyTrend, type TrendAssessment } from './trend-class.js';

/** Published with the backtest: where the figures on GET /api/methodology come from. */
export const MOMENTUM_METHODOLOGY_LINK = '/api/methodology#momentum';

/** Fewer complete days than this in the 90-day series and momentum falls back to the 30-day model. */
export const MIN_POINTS_90D = 80;
/** Fewer complete days than this in the 30-day series and there is no momentum at all. */
export const MIN_POINTS_30D = 14;

/**
 * The two models. Coefficients: ridge regression of the outcome's rank on the
 * tuning half of the series (splitOf), bench:momentum refits them. `center`
 * and `scale` put the tuning half's 18th and 82nd percentiles of the signal at
 * scores 0.27 and 0.73, the "falling" and "rising" thresholds.
 */
export const MOMENTUM_MODELS = {
  '90d': { week: 0.478, month: -0.124, spikeWeek: -0.095, center: -0.0009, scale: 0.0656 },
  '30d': { week: 0.478, month: 0, spikeWeek: -0.092, center: 0.0001, scale: 0.0409 },
} as const;
export type MomentumModel = keyof typeof MOMENTUM_MODELS;

export const RISING_AT = 0.73;
export const FALLING_AT = 0.27;

/** Ratios are taken on +0.5 smoothed levels so a week of zeros is a large, finite change. */
const SMOOTH = 0.5;
const logRatio = (a: number, b: number) => Math.log((a + SMOOTH) / (b + SMOOTH));
const meanOf = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

/** The features of one window, on the window rescaled so its maximum is 100 (as Google scales a request). */
export interface MomentumFeatures {
  model: MomentumModel;
  points: number;
  lastWeekMean: number;
  monthMean: number;
  /** The 30 days that end 60 days before the window does; null for the 30-day model. */
  monthTwoBeforeMean: number | null;
  /** ln(last week / month). */
  weekVsMonth: number;
  /** ln(month / the month two months before); 0 for the 30-day model. */
  monthVsTwoBefore: number;
  /** ln(the month's highest day / its median day): how much of the month was one spike. */
  spike: number;
  /** Where the window's highest day is, in days before its end (0 = the last day). */
  peakDaysAgo: number;
  /** The window's highest day over its median day. */
  peakOverMedian: number;
  /** The last week's mean over the window's highest day. */
  lastWeekVsPeak: number;
  signal: number;
  score: number;
}

/** Rescales a window so its maximum is 100; null when it is all zeros. */
function rescaled(values: readonly number[]): number[] | null {
  const max = Math.max(...values);
  return max > 0 ? values.map((v) => (v * 100) / max) : null;
}

/**
 * The features and score of a window: the 90-day model when `days90` has at
 * least MIN_POINTS_90D values, else the 30-day model on `days30`. Values are
 * complete daily points, oldest first. Null when there is too little data.
 */
export function momentumFeatures(days30: readonly number[], days90?: readonly number[]): MomentumFeatures | null {
  const use90 = days90 !== undefined && days90.length >= MIN_POINTS_90D;
  const model: MomentumModel = use90 ? '90d' : '30d';
  const source = use90 ? days90.slice(-90) : days30.slice(-30);
  if (source.length < MIN_POINTS_30D) return null;
  const v = rescaled(source);
  if (!v) return null;
  const month = v.slice(-30);
  const week = v.slice(-7);
  const monthMean = meanOf(month);
  const lastWeekMean = meanOf(week);
  const monthTwoBeforeMean = use90 ? meanOf(v.slice(0, v.length - 60)) : null;
  const weekVsMonth = logRatio(lastWeekMean, monthMean);
  const monthVsTwoBefore = monthTwoBeforeMean === null ? 0 : logRatio(monthMean, monthTwoBeforeMean);
  const spike = logRatio(Math.max(...month), median(month));
  const m = MOMENTUM_MODELS[model];
  const signal = m.week * weekVsMonth + m.month * monthVsTwoBefore + m.spikeWeek * spike * weekVsMonth;
  const score = 1 / (1 + Math.exp(-(signal - m.center) / m.scale));
  const peak = Math.max(...v);
  const peakIndex = v.lastIndexOf(peak);
  return {
    model,
    points: source.length,
    lastWeekMean,
    monthMean,
    monthTwoBeforeMean,
    weekVsMonth,
    monthVsTwoBefore,
    spike,
    peakDaysAgo: v.length - 1 - peakIndex,
    peakOverMedian: peak / Math.max(median(v), SMOOTH),
    lastWeekVsPeak: lastWeekMean / peak,
    signal,
    score,
  };
}

export interface MomentumInput {
  /** The 30-day series (a trailing partial day is dropped). */
  days30: readonly SeriesPoint[];
  /** The 90-day series, when the run or refresh has it. */
  days90?: readonly SeriesPoint[];
  /** Yearly seasonality of the 5-year series (trend-class.ts yearlySeasonality), when known. */
  yearlySeasonality?: number | null;
}

export interface MomentumAssessment {
  momentum: DimensionScore;
  trend: TrendAssessment | null;
}

const pct = (logChange: number) => `${logChange >= 0 ? '+' : '−'}${Math.abs(Math.round((Math.exp(logChange) - 1) * 100))}%`;

/** Momentum and the trend class of one insight, from the series it has. */
export function assessMomentum(input: MomentumInput): MomentumAssessment {
  const days30 = completePoints(input.days30).map((p) => p.value);
  const days90 = input.days90 ? completePoints(input.days90).map((p) => p.value) : undefined;
  const f = momentumFeatures(days30, days90);
  if (!f) {
    const points = days90 && days90.length >= MIN_POINTS_90D ? days90.length : days30.length;
    const allZero = points >= MIN_POINTS_30D;
    return {
      momentum: unsupported(
        allZero
          ? 'the series is all zeros: Google has too little data for this phrase'
          : `needs at least ${MIN_POINTS_30D} complete daily points, got ${points}`,
        { points },
      ),
      trend: null,
    };
  }
  const seasonality = input.yearlySeasonality ?? null;
  const trend = classifyTrend(f, seasonality);
  const score = round3(f.score);
  const label = score >= RISING_AT ? 'rising' : score <= FALLING_AT ? 'falling' : 'neither rising nor falling';
  return {
    momentum: {
      score,
      evidence: {
        model: f.model,
        points: f.points,
        last_week_mean: round3(f.lastWeekMean),
        month_mean: round3(f.monthMean),
        month_two_before_mean: f.monthTwoBeforeMean === null ? null : round3(f.monthTwoBeforeMean),
        week_vs_month: round3(f.weekVsMonth),
        month_vs_two_before: f.monthTwoBeforeMean === null ? null : round3(f.monthVsTwoBefore),
        spike: round3(f.spike),
        peak_days_ago: f.peakDaysAgo,
        peak_over_median: round3(f.peakOverMedian),
        last_week_vs_peak: round3(f.lastWeekVsPeak),
        yearly_seasonality: seasonality,
        signal: round3(f.signal),
        label,
        trend_class: trend.trendClass,
        trend_class_reason: trend.reason,
        methodology: MOMENTUM_METHODOLOGY_LINK,
      },
      explanation:
        `The last week ran ${pct(f.weekVsMonth)} against this month's mean` +
        (f.monthTwoBeforeMean === null ? ' (30 days of data: the 30-day model)' : `, and the month ${pct(f.monthVsTwoBefore)} against the month two months before`) +
        `: ${label} (rising ≥ ${RISING_AT}, falling ≤ ${FALLING_AT}; hit rates at ${MOMENTUM_METHODOLOGY_LINK}).`,
    },
    trend,
  };
}
