// The trend class of an insight: one word for the shape of its interest, each
// with a rule over the series a run already has and, where the class says
// something about next month, a claim whose hit rate the backtest measures
// (npm run bench:momentum; published in backtest-results.ts).
import { sampleCorrelation } from 'simple-statistics';
import { BACKTEST } from './backtest-results.js';
import type { MomentumFeatures } from './momentum-features.js';

export const TREND_CLASSES = ['exploding', 'rising', 'stable', 'declining', 'peaked', 'seasonal'] as const;
export type TrendClass = (typeof TREND_CLASSES)[number];

/** The yearly seasonality (see yearlySeasonality) at and above which an insight is "seasonal". */
export const SEASONAL_AT = 0.5;
/** Peaked: the 90 days' highest day is at least this many times their median day… */
export const PEAK_OVER_MEDIAN = 4;
/** …at least this many days ago… */
export const PEAK_MIN_DAYS_AGO = 7;
/** …and the last week's mean is at most this share of it. */
export const PEAK_LAST_WEEK_AT_MOST = 0.4;
/** Exploding: this month's mean at least twice the month two months before, and the last week holding it. */
export const EXPLODING_MONTH_RATIO = 2;

export interface TrendClassDefinition {
  rule: string;
  /** What the class says about the next month; null when it says nothing the backtest can check. */
  claim: string;
}

/** In the order the rules are tried: the first that holds names the class. */
export const TREND_CLASS_DEFINITIONS: Record<TrendClass, TrendClassDefinition> = {
  seasonal: {
    rule: `The 5-year weekly series repeats yearly: after removing its 53-week moving average, each week correlates with the week a year before at ${SEASONAL_AT} or more (needs 3 years of weeks).`,
    claim: 'Next month moves the way the same month moved in the years before.',
  },
  peaked: {
    rule: `Needs the 90-day series: its highest day is at least ${PEAK_OVER_MEDIAN}× its median day, at least ${PEAK_MIN_DAYS_AGO} days ago, and the last week's mean is at most ${PEAK_LAST_WEEK_AT_MOST * 100}% of that peak.`,
    claim: "Next month's highest day stays below the 90-day peak.",
  },
  exploding: {
    rule: `Needs the 90-day series: this month's mean is at least ${EXPLODING_MONTH_RATIO}× the mean of the month two months before, and the last week's mean is at or above this month's.`,
    claim: 'Next month keeps at least 1.5× the level of the month two months before (the new level holds).',
  },
  rising: {
    rule: 'Momentum at or above 0.73 (and none of the above).',
    claim: "Next month's mean is above this month's.",
  },
  declining: {
    rule: 'Momentum at or below 0.27 (and none of the above).',
    claim: "Next month's mean is below this month's.",
  },
  stable: {
    rule: 'Momentum between 0.27 and 0.73 (and none of the above).',
    claim: "Next month's mean stays within ±25% of this month's.",
  },
};

export interface TrendAssessment {
  trendClass: TrendClass;
  /** The rule as it held for this insight, with its numbers. */
  reason: string;
}

const r2 = (x: number) => Math.round(x * 100) / 100;

/** The class of one window (first rule that holds, in TREND_CLASS_DEFINITIONS order). */
export function classifyTrend(f: MomentumFeatures, seasonality: number | null): TrendAssessment {
  if (seasonality !== null && seasonality >= SEASONAL_AT) {
    return { trendClass: 'seasonal', reason: `yearly seasonality ${r2(seasonality)} ≥ ${SEASONAL_AT}` };
  }
  if (f.model === '90d') {
    if (f.peakOverMedian >= PEAK_OVER_MEDIAN && f.peakDaysAgo >= PEAK_MIN_DAYS_AGO && f.lastWeekVsPeak <= PEAK_LAST_WEEK_AT_MOST) {
      return {
        trendClass: 'peaked',
        reason: `the 90-day peak is ${r2(f.peakOverMedian)}× the median day, ${f.peakDaysAgo} days ago; the last week is at ${Math.round(f.lastWeekVsPeak * 100)}% of it`,
      };
    }
    if (f.monthVsTwoBefore >= Math.log(EXPLODING_MONTH_RATIO) && f.weekVsMonth >= 0) {
      return {
        trendClass: 'exploding',
        reason: `this month is ${r2(Math.exp(f.monthVsTwoBefore))}× the month two months before, and the last week holds it`,
      };
    }
  }
  const score = Math.round(f.score * 1000) / 1000;
  if (score >= 0.73) return { trendClass: 'rising', reason: `momentum ${score} ≥ 0.73` };
  if (score <= 0.27) return { trendClass: 'declining', reason: `momentum ${score} ≤ 0.27` };
  return { trendClass: 'stable', reason: `momentum ${score} between 0.27 and 0.73` };
}

/**
 * How strongly a weekly series repeats from year to year: the correlation of
 * each week with the week 52 before, on what is left after removing a centered 53-week moving
 * average (so a steady rise or fall does not count as a season). Null with
 * fewer than 156 weeks or a flat remainder.
 */
export function yearlySeasonality(weekly: readonly number[]): number | null {
  if (weekly.length < 156) return null;
  const half = 26;
  const rest: number[] = [];
  for (let i = half; i < weekly.length - half; i += 1) {
    let sum = 0;
    for (let j = i - half; j <= i + half; j += 1) sum += weekly[j]!;
    rest.push(weekly[i]! - sum / (2 * half + 1));
  }
  // Correlation of each week's remainder with the same week a year before.
  const now = rest.slice(52);
  const before = rest.slice(0, -52);
  const r = sampleCorrelation(now, before);
  // A flat remainder has no variance: the correlation is 0/0.
  return !Number.isFinite(r) ? null : Math.round(r * 1000) / 1000;
}

/** A class's published backtest figures (null where the class makes no checkable claim). */
export function trendClassFacts(trendClass: TrendClass) {
  const measured = BACKTEST.trendClasses[trendClass];
  return { ...TREND_CLASS_DEFINITIONS[trendClass], ...measured };
}

/** The class momentum's evidence recorded (assessMomentum), or null. */
export function trendClassOf(momentumEvidence: Record<string, unknown> | undefined): TrendClass | null {
  const value = momentumEvidence?.trend_class;
  return typeof value === 'string' && (TREND_CLASSES as readonly string[]).includes(value) ? (value as TrendClass) : null;
}
