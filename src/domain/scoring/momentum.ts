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
import { round3, unsupported, type DimensionScore } from './dimensions.js';
import { completePoints, type SeriesPoint } from './series.js';
import { classifyTrend, type TrendAssessment } from './trend-class.js';
import { MIN_POINTS_30D, MIN_POINTS_90D, momentumFeatures } from './momentum-features.js';

/** Published with the backtest: where the figures on GET /api/methodology come from. */
export const MOMENTUM_METHODOLOGY_LINK = '/api/methodology#momentum';

export const RISING_AT = 0.73;
export const FALLING_AT = 0.27;

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
        (f.monthTwoBeforeMean === null
          ? ' (30 days of data: the 30-day model)'
          : `, and the month ${pct(f.monthVsTwoBefore)} against the month two months before`) +
        `: ${label} (rising ≥ ${RISING_AT}, falling ≤ ${FALLING_AT}; hit rates at ${MOMENTUM_METHODOLOGY_LINK}).`,
    },
    trend,
  };
}
