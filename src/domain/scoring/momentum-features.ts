// The features momentum and the trend class are read from (momentum.ts scores
// them, trend-class.ts classifies them): one window of a series, rescaled as
// Google scales a request, and the two models' coefficients.
import { mean, median } from 'simple-statistics';

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

/** Ratios are taken on +0.5 smoothed levels so a week of zeros is a large, finite change. */
const SMOOTH = 0.5;
const logRatio = (a: number, b: number) => Math.log((a + SMOOTH) / (b + SMOOTH));

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
  const monthMean = mean(month);
  const lastWeekMean = mean(week);
  const monthTwoBeforeMean = use90 ? mean(v.slice(0, v.length - 60)) : null;
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
