// The backtest that chose momentum and measures the trend classes: rolling
// windows over real daily series, each scored on what a run would have had,
// each judged by the next 30 days. bench:momentum prints it; a test checks
// that the published figures (backtest-results.ts) are what it measures.
import { mean, sampleRankCorrelation } from 'simple-statistics';
import { splitOf } from '../forecast/evaluation.js';
import { FALLING_AT, RISING_AT } from './momentum.js';
import { momentumFeatures, type MomentumFeatures } from './momentum-features.js';
import { classifyTrend, TREND_CLASSES, type TrendClass } from './trend-class.js';
import { round3 } from '../numbers.js';

/** Windows start every WINDOW_STEP days; each has 90 days of context and 30 days of outcome. */
export const WINDOW_STEP = 7;
export const CONTEXT_DAYS = 90;
export const OUTCOME_DAYS = 30;

export interface MomentumWindow {
  seriesId: string;
  split: 'tune' | 'holdout';
  /** The last 30 days, rescaled to a maximum of 100 and rounded, as a 30-day request answers. */
  days30: number[];
  /** The 90 days, rescaled and rounded as a 90-day request answers. */
  days90: number[];
  /** Mean of the last 30 days and of the next 30, on the raw series. */
  monthMean: number;
  nextMean: number;
  /** The next 30 days on the 90-day window's scale (its peak is 100). */
  nextOn90: number[];
}

const asRequest = (xs: readonly number[]) => {
  const max = Math.max(...xs);
  return xs.map((x) => Math.round((x * 100) / max));
};

/** Windows of one series; a window whose month is all zeros (no outcome ratio) is skipped. */
export function* momentumWindows(seriesId: string, values: readonly number[]): Generator<MomentumWindow> {
  for (let t = CONTEXT_DAYS; t + OUTCOME_DAYS <= values.length; t += WINDOW_STEP) {
    const context = values.slice(t - CONTEXT_DAYS, t);
    const month = values.slice(t - 30, t);
    const max90 = Math.max(...context);
    const monthMean = mean(month);
    if (max90 === 0 || monthMean === 0) continue;
    const next = values.slice(t, t + OUTCOME_DAYS);
    yield {
      seriesId,
      split: splitOf(seriesId),
      days30: asRequest(month),
      days90: asRequest(context),
      monthMean,
      nextMean: mean(next),
      nextOn90: next.map((x) => (x * 100) / max90),
    };
  }
}

/** Spearman rank correlation (ties get their average rank); 0 when either side has a single rank. */
export function spearman(a: readonly number[], b: readonly number[]): number {
  const rho = sampleRankCorrelation(a as number[], b as number[]);
  return Number.isNaN(rho) ? 0 : rho;
}

export interface ScoreValidity {
  windows: number;
  /** Rank correlation between the score and next month's mean ÷ this month's. */
  rankCorrelation: number;
  /** Share of windows next month higher, among all / "rising" (≥ 0.73) / "falling" (≤ 0.27). */
  higherAll: number;
  higherWhenRising: number;
  higherWhenFalling: number;
  /** Share of windows labelled rising or falling. */
  labelledShare: number;
  risingShare: number;
  fallingShare: number;
}

/** How well a score in [0,1] (null = none) orders and labels the windows. Windows without a score are left out. */
export function scoreValidity(windows: readonly MomentumWindow[], scoreOf: (w: MomentumWindow) => number | null): ScoreValidity {
  const scored = windows.flatMap((w) => {
    const s = scoreOf(w);
    return s === null ? [] : [{ s, ratio: w.nextMean / w.monthMean, higher: w.nextMean > w.monthMean }];
  });
  const share = (xs: typeof scored) => (xs.length === 0 ? 0 : xs.filter((x) => x.higher).length / xs.length);
  const rising = scored.filter((x) => x.s >= RISING_AT);
  const falling = scored.filter((x) => x.s <= FALLING_AT);
  return {
    windows: scored.length,
    rankCorrelation: spearman(
      scored.map((x) => x.s),
      scored.map((x) => x.ratio),
    ),
    higherAll: share(scored),
    higherWhenRising: share(rising),
    higherWhenFalling: share(falling),
    labelledShare: (rising.length + falling.length) / Math.max(1, scored.length),
    risingShare: rising.length / Math.max(1, scored.length),
    fallingShare: falling.length / Math.max(1, scored.length),
  };
}

/** Whether a window's next month bore out what its class claims (null: the class claims nothing checkable here). */
export function claimHeld(trendClass: TrendClass, w: MomentumWindow, f: MomentumFeatures): boolean | null {
  const nextMean = w.nextMean;
  switch (trendClass) {
    case 'seasonal':
      return null; // needs years of daily data to check; the backtest data cover 242 days
    case 'peaked':
      return Math.max(...w.nextOn90) < 100; // the 90-day window's peak is 100 on its own scale
    case 'exploding':
      return mean(w.nextOn90) >= 1.5 * (f.monthTwoBeforeMean ?? 0);
    case 'rising':
      return nextMean > w.monthMean;
    case 'declining':
      return nextMean < w.monthMean;
    case 'stable':
      return Math.abs(Math.log(nextMean / w.monthMean)) <= Math.log(1.25);
  }
}

export interface ClassValidity {
  windows: number;
  share: number;
  /** Share of the class's windows where its claim held; null when it claims nothing checkable. */
  hitRate: number | null;
  /** Share of ALL windows where the same claim held: what the class adds over knowing nothing. */
  baseRate: number | null;
}

/** Each class's share and hit rate over the windows, with the 90-day model (what a run has). */
export function classValidity(windows: readonly MomentumWindow[]): Record<TrendClass, ClassValidity> {
  const assessed = windows.flatMap((w) => {
    const f = momentumFeatures(w.days30, w.days90);
    return f ? [{ w, f, trendClass: classifyTrend(f, null).trendClass }] : [];
  });
  const out = {} as Record<TrendClass, ClassValidity>;
  for (const c of TREND_CLASSES) {
    const members = assessed.filter((a) => a.trendClass === c);
    const held = members.map((a) => claimHeld(c, a.w, a.f));
    const base = assessed.map((a) => claimHeld(c, a.w, a.f));
    const rate = (xs: Array<boolean | null>) => (xs.length === 0 || xs[0] === null ? null : xs.filter(Boolean).length / xs.length);
    out[c] = { windows: members.length, share: members.length / Math.max(1, assessed.length), hitRate: rate(held), baseRate: rate(base) };
  }
  return out;
}

const figures = (v: ScoreValidity) => ({
  rank_correlation: round3(v.rankCorrelation),
  higher_when_rising: round3(v.higherWhenRising),
  higher_when_falling: round3(v.higherWhenFalling),
  labelled_share: round3(v.labelledShare),
});

/**
 * Every figure backtest-results.ts publishes, measured on these windows.
 * `previous` scores a window with the formula momentum replaced (bench/lib).
 */
export function publishedFigures(windows: readonly MomentumWindow[], previous: (w: MomentumWindow) => number | null) {
  const tune = windows.filter((w) => w.split === 'tune');
  const held = windows.filter((w) => w.split === 'holdout');
  const ours = (w: MomentumWindow) => momentumFeatures(w.days30, w.days90)?.score ?? null;
  const ours30 = (w: MomentumWindow) => momentumFeatures(w.days30)?.score ?? null;
  const classesAll = classValidity(windows);
  const classesTune = classValidity(tune);
  const classesHeld = classValidity(held);
  const rate = (x: number | null) => (x === null ? null : round3(x));
  return {
    windows: { tuning: tune.length, held_out: held.length },
    momentum: {
      held_out: figures(scoreValidity(held, ours)),
      tuning: figures(scoreValidity(tune, ours)),
      held_out_30_day_model: figures(scoreValidity(held, ours30)),
      previous_formula_held_out: figures(scoreValidity(held, previous)),
    },
    trendClasses: Object.fromEntries(
      TREND_CLASSES.map((c) => [
        c,
        {
          hit_rate: rate(classesHeld[c].hitRate),
          hit_rate_tuning: rate(classesTune[c].hitRate),
          base_rate: rate(classesAll[c].baseRate),
          share: round3(classesAll[c].share),
          windows: classesAll[c].windows,
        },
      ]),
    ) as Record<
      TrendClass,
      { hit_rate: number | null; hit_rate_tuning: number | null; base_rate: number | null; share: number; windows: number }
    >,
  };
}
