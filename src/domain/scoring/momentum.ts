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
import { unsupported, type DimensionScore } from './dimensions.js';
import { completePoints, type SeriesPoint } from './series.js';
import { classifyTrend, type TrendAssessment } from './trend-class.js';
import { MIN_POINTS_30D, MIN_POINTS_90D, momentumFeatures } from './momentum-features.js';
import { BACKTEST } from './backtest-results.js';
import type { TrendClass } from './trend-class.js';
import { round3 } from '../numbers.js';

/** A rising prediction beside a falling shape (or the reverse): the text says why both hold. */
function disagrees(label: string, trendClass: TrendClass): boolean {
  if (label === 'rising') return trendClass === 'declining' || trendClass === 'peaked';
  if (label === 'falling') return trendClass === 'rising' || trendClass === 'exploding';
  return false;
}

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
  /**
   * The 7-day forecast fitted on `days90` (same scale), when the caller has one:
   * its mean against the last week is recorded beside the prediction, so one
   * statement of direction can read both (direction.ts).
   */
  forecast7?: ReadonlyArray<{ value: number }> | null;
}

/** The 7-day forecast's mean against the last 7 days of the series it was fitted on; null without both. */
function forecastChange(days90: readonly number[] | undefined, forecast7: ReadonlyArray<{ value: number }> | null | undefined) {
  if (!days90 || days90.length < 7 || !forecast7 || forecast7.length === 0) return null;
  const lastWeek = days90.slice(-7).reduce((a, b) => a + b, 0) / 7;
  const ahead = forecast7.reduce((a, p) => a + p.value, 0) / forecast7.length;
  return { mean: round3(ahead), lastWeek: round3(lastWeek), change: round3(ahead / Math.max(1, lastWeek) - 1) };
}

export interface MomentumAssessment {
  momentum: DimensionScore;
  trend: TrendAssessment | null;
}

/** A log ratio as the change it is (ln 0.54 → −46 %): a change is never below −100 %. */
const change = (logChange: number) => Math.round((Math.exp(logChange) - 1) * 1000) / 1000;
/** A change as the explanation says it: rounded to a whole percent first, then signed ("±0%" when it rounds to nothing). */
export const signedChange = (x: number) => {
  const r = Math.round(x * 100);
  return `${r > 0 ? '+' : r < 0 ? '−' : '±'}${Math.abs(r)}%`;
};
const signedChangeOfLog = (logChange: number) => signedChange(change(logChange));
const asPercent = (share: number) => `${Math.round(share * 100)}%`;

/** Days between consecutive points, as most of them are (a replayed 30-day recording may be weekly). */
export function pointSpacingDays(points: ReadonlyArray<{ date: string }>): number {
  const gaps: number[] = [];
  for (let i = 1; i < points.length; i += 1) gaps.push((Date.parse(points[i]!.date) - Date.parse(points[i - 1]!.date)) / 86_400_000);
  gaps.sort((a, b) => a - b);
  return gaps.length === 0 ? 1 : gaps[Math.floor(gaps.length / 2)]!;
}

/** What the prediction says, by its label. */
const PREDICTION: Record<'rising' | 'falling' | 'neither rising nor falling', string> = {
  rising: "predicts next month's interest above this month's",
  falling: "predicts next month's interest below this month's",
  'neither rising nor falling': 'predicts neither a rise nor a fall next month',
};

/** How often the prediction held on held-out series (the backtest of GET /api/methodology). */
function hitRateSentence(label: keyof typeof PREDICTION, thirtyDayModel: boolean): string {
  const figures = thirtyDayModel ? BACKTEST.momentum.held_out_30_day_model : BACKTEST.momentum.held_out;
  if (label === 'rising')
    return `on held-out series, when it says so, the next month was higher ${asPercent(figures.higher_when_rising)} of the time`;
  if (label === 'falling')
    return `on held-out series, when it says so, the next month was higher only ${asPercent(figures.higher_when_falling)} of the time`;
  return `it makes no call here (on held-out series it called a rise or a fall for ${asPercent(figures.labelled_share)} of them, and after a rise it called, the next month was higher ${asPercent(figures.higher_when_rising)} of the time)`;
}

/** Momentum and the trend class of one insight, from the series it has. */
export function assessMomentum(input: MomentumInput): MomentumAssessment {
  // The model reads daily points: a weekly series (a replayed recording) would be read as days.
  const spacing = Math.max(pointSpacingDays(input.days30), input.days90 ? pointSpacingDays(input.days90) : 1);
  if (spacing >= 7)
    return {
      momentum: unsupported(`the series is weekly (a point every ${spacing} days): the momentum model reads daily points`, {
        points: input.days30.length,
        interval: 'week',
      }),
      trend: null,
    };
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
  const ahead = forecastChange(days90, input.forecast7);
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
        // Log ratios (what the model reads), and the same as changes (−0.46: 46 % lower), which the text quotes.
        week_vs_month: round3(f.weekVsMonth),
        month_vs_two_before: f.monthTwoBeforeMean === null ? null : round3(f.monthVsTwoBefore),
        week_vs_month_change: change(f.weekVsMonth),
        month_vs_two_before_change: f.monthTwoBeforeMean === null ? null : change(f.monthVsTwoBefore),
        spike: round3(f.spike),
        peak_days_ago: f.peakDaysAgo,
        peak_over_median: round3(f.peakOverMedian),
        last_week_vs_peak: round3(f.lastWeekVsPeak),
        yearly_seasonality: seasonality,
        signal: round3(f.signal),
        label,
        trend_class: trend.trendClass,
        trend_class_reason: trend.reason,
        ...(ahead ? { forecast_7d_mean: ahead.mean, forecast_7d_last_week: ahead.lastWeek, forecast_7d_change: ahead.change } : {}),
        methodology: MOMENTUM_METHODOLOGY_LINK,
      },
      explanation:
        `A prediction: the model ${PREDICTION[label]} (score ${score.toFixed(2)}; rising ≥ ${RISING_AT}, falling ≤ ${FALLING_AT}; ` +
        `${hitRateSentence(label, f.monthTwoBeforeMean === null)}, ${MOMENTUM_METHODOLOGY_LINK}). ` +
        `It reads the last week, ${signedChangeOfLog(f.weekVsMonth)} against the month's mean (a change that tends to carry on)` +
        (f.monthTwoBeforeMean === null
          ? `, from ${f.points} days of data (the 30-day model)`
          : `, and the month, ${signedChangeOfLog(f.monthVsTwoBefore)} against the month two months before (a change that tends to reverse)`) +
        '.' +
        (disagrees(label, trend.trendClass)
          ? ` The trend class, ${trend.trendClass}, comes from its own rule over the 90 days (trend_class_evidence); this score predicts the month ahead from the last week and month.`
          : ''),
    },
    trend,
  };
}
