// What GET /api/methodology publishes: each dimension's formula and weight,
// how the overall score combines them, and for momentum and the trend classes
// the backtest behind them (backtest-results.ts). The formulas are written
// next to the code they describe (dimension-scores.ts, momentum.ts,
// trend-class.ts); change them together.
import { BACKTEST } from './backtest-results.js';
import { DIMENSION_WEIGHTS, DIMENSIONS, type Dimension } from './dimensions.js';
import { FALLING_AT, MIN_POINTS_30D, MIN_POINTS_90D, MOMENTUM_MODELS, RISING_AT } from './momentum.js';
import { TREND_CLASS_DEFINITIONS, type TrendClass } from './trend-class.js';

const FORMULAS: Record<Dimension, { formula: string; evidence: string }> = {
  demand: {
    formula: 'r = (phrase mean + 0.5) / (anchor mean + 0.5) over 12 months in one request; score = 1 / (1 + exp(−1.6 · ln r / ln 4)): as searched as the anchor ⇒ 0.5, 4× ⇒ 0.83, ¼ ⇒ 0.17.',
    evidence: 'Steps 11–12: the phrase compared with a fixed anchor term.',
  },
  momentum: {
    formula: `z = ${MOMENTUM_MODELS['90d'].week}·w ${MOMENTUM_MODELS['90d'].month}·m ${MOMENTUM_MODELS['90d'].spikeWeek}·s·w, on the 90 days rescaled to a maximum of 100: w = ln((last week + 0.5) / (month + 0.5)), m = ln((month + 0.5) / (the month two months before + 0.5)), s = ln((the month's highest day + 0.5) / (its median day + 0.5)); score = 1 / (1 + exp(−(z − ${MOMENTUM_MODELS['90d'].center}) / ${MOMENTUM_MODELS['90d'].scale})). Rising ≥ ${RISING_AT}, falling ≤ ${FALLING_AT}. With fewer than ${MIN_POINTS_90D} days of the 90: z = ${MOMENTUM_MODELS['30d'].week}·w ${MOMENTUM_MODELS['30d'].spikeWeek}·s·w on the 30 days, score = 1 / (1 + exp(−(z − ${MOMENTUM_MODELS['30d'].center}) / ${MOMENTUM_MODELS['30d'].scale})); none below ${MIN_POINTS_30D} days.`,
    evidence: 'Steps 7–8: the 30- and 90-day daily series (a trailing partial day is dropped).',
  },
  durability: {
    formula: 'By the 5-year trajectory: rising 0.85, stable 0.65, declining 0.30, peaked 0.20; + 0.1·tanh(trend change); − 0.25 for a fad (one burst over 4× the median with a coefficient of variation above 0.8).',
    evidence: 'Steps 10, 22, 24: the 5-year weekly series.',
  },
  reach: {
    formula: 'n = countries with at least a tenth of the strongest country\'s interest; score = min(1, ln(1 + n) / ln 41) · (1 − 0.3 · the strongest country\'s share).',
    evidence: 'Steps 17–18, 30: interest by country and city.',
  },
  breadth: {
    formula: '0.5 · min(1, (related queries + related topics) / 40) + 0.5 · min(1, distinct words / 40).',
    evidence: 'Steps 13–16, 26: related queries and topics.',
  },
  pain: {
    formula: 'min(1, share of related queries that seek a fix or an alternative / 0.25).',
    evidence: 'Step 27: related queries matched against problem words.',
  },
  intent: {
    formula: 'min(1, share of related queries that show buying intent / 0.33).',
    evidence: 'Step 28: related queries matched against buying words.',
  },
  whitespace: {
    formula: '1 − (0.5 · min(1, comparison share / 0.25) + 0.5 · min(1, brand share / 0.4)).',
    evidence: 'Step 29: related queries naming brands or comparing options.',
  },
};

export function methodology() {
  return {
    measured_on: BACKTEST.measured_on,
    overall: {
      formula:
        'overall = Σ wᵢ·sᵢ / Σ wᵢ over the dimensions that have a score; confidence = (Σ wᵢ over scored dimensions) × data quality (coverage of the 30 days × share of non-zero days). A dimension without evidence lowers the confidence, not the score.',
      weights: { ...DIMENSION_WEIGHTS },
    },
    dimensions: Object.fromEntries(DIMENSIONS.map((d) => [d, { weight: DIMENSION_WEIGHTS[d], ...FORMULAS[d] }])) as Record<Dimension, { weight: number; formula: string; evidence: string }>,
    momentum: {
      rising_at: RISING_AT,
      falling_at: FALLING_AT,
      backtest: {
        data: BACKTEST.data,
        method: BACKTEST.method,
        windows: BACKTEST.windows,
        held_out: BACKTEST.momentum.held_out,
        tuning: BACKTEST.momentum.tuning,
        held_out_30_day_model: BACKTEST.momentum.held_out_30_day_model,
        previous_formula_held_out: BACKTEST.momentum.previous_formula_held_out,
        reproduce: 'npm run bench:momentum',
      },
    },
    // In the order the rules are tried.
    trend_classes: (Object.keys(TREND_CLASS_DEFINITIONS) as TrendClass[]).map((trendClass) => ({
      class: trendClass,
      rule: TREND_CLASS_DEFINITIONS[trendClass].rule,
      claim: TREND_CLASS_DEFINITIONS[trendClass].claim,
      ...BACKTEST.trendClasses[trendClass],
    })),
  };
}
