// What GET /api/methodology publishes: each dimension's formula and weight,
// how the overall score combines them, for momentum and the trend classes the
// backtest behind them (backtest-results.ts), and how the pain and intent
// evidence read today agrees with the related-list evidence on recorded
// answers (agreement-results.ts). The formulas are built from the constants
// of the code they describe (dimension-scores.ts, modifier-evidence.ts,
// momentum.ts, trend-class.ts); change the words with them.
import { MAX_ITEM_CHARS, MODIFIER_FAMILIES, RESOLVED_PHRASE_MEAN } from '../research/modifier-evidence.js';
import { BRAND_TOPIC_TYPES } from '../research/topic-signals.js';
import { EVIDENCE_AGREEMENT } from './agreement-results.js';
import { BACKTEST } from './backtest-results.js';
import { AUTOCOMPLETE_STRENGTH, BRAND_SATURATION, BREADTH_SCALES, SIGNAL_SATURATION } from './dimension-scores.js';
import {
  DESIGNED_WEIGHTS,
  DIMENSION_WEIGHTS,
  DIMENSIONS,
  EVIDENCE_VALIDATION,
  EXPERIMENTAL_DIMENSIONS,
  type Dimension,
} from './dimensions.js';
import { MIN_READABLE_PHRASE_MEAN, SUBSET_TOLERANCE } from '../research/modifier-evidence.js';
import { FALLING_AT, RISING_AT } from './momentum.js';
import { MIN_POINTS_30D, MIN_POINTS_90D, MOMENTUM_MODELS } from './momentum-features.js';
import { TREND_CLASS_DEFINITIONS, type TrendClass } from './trend-class.js';

const MODIFIER_REQUEST = `the phrase compared over 12 months, in one request, with the phrase plus each family's words joined by Google's OR ("pizza how to + pizza fix + …"; as many as fit in ${MAX_ITEM_CHARS} characters)`;
const TRENDS_AUTOCOMPLETE = "Trends' autocomplete topics for the phrase (their number and types)";
const MODIFIER_STRENGTH = `min(1, the phrase's mean / ${RESOLVED_PHRASE_MEAN}) (Google's integer rounding resolves shares finely only when the phrase averages ${RESOLVED_PHRASE_MEAN} or more of its peak)`;
const UNREADABLE = `A family mean above the phrase's × ${1 + SUBSET_TOLERANCE.noise} + ${SUBSET_TOLERANCE.rounding} contradicts it (an OR-group counts a part of the phrase's searches): not read, and the dimension's strength is halved; a phrase averaging under ${MIN_READABLE_PHRASE_MEAN} of its peak has too little data to read, and so has a family reading 0 when one rounding step is over half the saturation point.`;
const signalFormula = (family: 'pain' | 'intent', word: string) =>
  `The strength-weighted mean of the readings there are: min(1, s / ${SIGNAL_SATURATION[family].modifiers}), s = the family's mean / the phrase's mean in the modifier comparison (the share of the phrase's searches with ${word}), strength ${MODIFIER_STRENGTH}; and min(1, share of related queries with ${word} / ${SIGNAL_SATURATION[family].lists}) (related queries Google lists through its embed flow), strength 1. The dimension's strength is its best reading's. ${UNREADABLE} Agreement of the two readings: evidence_agreement.`;

const FORMULAS: Record<Dimension, { formula: string; evidence: string }> = {
  demand: {
    formula:
      "r = (phrase mean + 0.5) / (anchor mean + 0.5) over 12 months in one request; score = 1 / (1 + exp(−1.6 · ln r / ln 4)): as searched as the anchor ⇒ 0.5, 4× ⇒ 0.83, ¼ ⇒ 0.17. With the official Trends API for the series (one scale across requests): r = the phrase's 12-month mean searchInterest / a fixed reference level (10), no anchor term asked, on the same curve.",
    evidence:
      'Steps compare_secondary and compare_anchor: the phrase compared with a fixed anchor term, or (Trends API) its own searchInterest against the reference level.',
  },
  momentum: {
    formula: `z = ${MOMENTUM_MODELS['90d'].week}·w ${MOMENTUM_MODELS['90d'].month}·m ${MOMENTUM_MODELS['90d'].spikeWeek}·s·w, on the 90 days rescaled to a maximum of 100: w = ln((last week + 0.5) / (month + 0.5)), m = ln((month + 0.5) / (the month two months before + 0.5)), s = ln((the month's highest day + 0.5) / (its median day + 0.5)); score = 1 / (1 + exp(−(z − ${MOMENTUM_MODELS['90d'].center}) / ${MOMENTUM_MODELS['90d'].scale})). Rising ≥ ${RISING_AT}, falling ≤ ${FALLING_AT}. With fewer than ${MIN_POINTS_90D} days of the 90: z = ${MOMENTUM_MODELS['30d'].week}·w ${MOMENTUM_MODELS['30d'].spikeWeek}·s·w on the 30 days, score = 1 / (1 + exp(−(z − ${MOMENTUM_MODELS['30d'].center}) / ${MOMENTUM_MODELS['30d'].scale})); none below ${MIN_POINTS_30D} days.`,
    evidence: 'Steps interest_30d and interest_90d: the 30- and 90-day daily series (a trailing partial day is dropped).',
  },
  durability: {
    formula:
      'By the 5-year trajectory: rising 0.85, stable 0.65, declining 0.30, peaked 0.20; + 0.1·tanh(trend change); − 0.25 for a fad (one burst over 4× the median with a coefficient of variation above 0.8).',
    evidence: 'Steps interest_5y, trajectory and volatility: the 5-year weekly series.',
  },
  reach: {
    formula:
      "n = countries with at least a tenth of the strongest country's interest; score = min(1, ln(1 + n) / ln 41) · (1 − 0.3 · the strongest country's share).",
    evidence: 'Steps interest_by_country, interest_by_city and geographic_reach: interest by country and city.',
  },
  breadth: {
    formula: `The strength-weighted mean of the readings there are. Related lists: 0.5 · min(1, (related queries + related topics) / ${BREADTH_SCALES.listed}) + 0.5 · min(1, distinct words / ${BREADTH_SCALES.words}), strength 1. Autocomplete: 0.5 · min(1, topics / ${BREADTH_SCALES.topics}) + 0.5 · min(1, distinct topic types / ${BREADTH_SCALES.types}), strength ${AUTOCOMPLETE_STRENGTH}. Modifier comparison: the share of the modifier families with any searches, strength ${MODIFIER_STRENGTH}. The dimension's strength is its best reading's.`,
    evidence: `Steps autocomplete_phrases, related_queries_top to related_topics_rising and demand_breadth: ${TRENDS_AUTOCOMPLETE}; ${MODIFIER_REQUEST}; related queries and topics when Google lists them.`,
  },
  pain: {
    formula: signalFormula('pain', 'a problem word'),
    evidence: `Step pain_signals: ${MODIFIER_REQUEST} (pain words: ${MODIFIER_FAMILIES.pain.join(', ')}); related queries with problem words when Google lists them.`,
  },
  intent: {
    formula: signalFormula('intent', 'a buying word'),
    evidence: `Step buyer_intent: ${MODIFIER_REQUEST} (buying words: ${MODIFIER_FAMILIES.intent.join(', ')}); related queries with buying words when Google lists them.`,
  },
  whitespace: {
    formula: `1 − pressure; pressure = the stronger of comparison pressure and brand pressure (a space crowded by either is crowded; one alone when the other has nothing to read). A related query is brand-like when it adds one word to the phrase that is neither a signal word nor a word for the thing or service itself ("pizza hut", not "pizza delivery"). Comparison pressure: the strength-weighted mean of min(1, share of the phrase's searches with a comparison word / ${SIGNAL_SATURATION.competition.modifiers}) (modifier comparison) and min(1, share of related queries with one / ${SIGNAL_SATURATION.competition.lists}) (lists). Brand pressure: the same mean of min(1, share of related queries that are a brand name / ${BRAND_SATURATION}) (strength 1) and min(1, share of autocomplete topics whose type names a business (${BRAND_TOPIC_TYPES.join(', ')}) / ${BRAND_SATURATION}) (strength ${AUTOCOMPLETE_STRENGTH}). Strength: the mean of the two halves' best readings (an unread half counts 0).`,
    evidence: `Steps autocomplete_phrases and competition_signals: ${MODIFIER_REQUEST} (comparison words: ${MODIFIER_FAMILIES.competition.join(', ')}); ${TRENDS_AUTOCOMPLETE}; related queries naming brands or comparing options when Google lists them.`,
  },
};

export function methodology() {
  return {
    measured_on: BACKTEST.measured_on,
    overall: {
      formula:
        "overall = Σ wᵢ·sᵢ / Σ wᵢ over the dimensions that have a score; confidence = (Σ wᵢ·eᵢ over scored dimensions / Σ wᵢ over all) × data quality (coverage of the 30 days × share of non-zero days) × the source's certainty (1 for live and recorded answers, 0.6 for a simulated world: its data is made up, so it is never certain), eᵢ the strength of dimension i's evidence (1 unless it says less). A dimension without evidence, or with thin evidence, lowers the confidence, not the score. An experimental dimension weighs a fraction of its designed weight until its evidence is validated.",
      weights: { ...DIMENSION_WEIGHTS },
      designed_weights: { ...DESIGNED_WEIGHTS },
    },
    dimensions: Object.fromEntries(
      DIMENSIONS.map((d) => [
        d,
        {
          weight: DIMENSION_WEIGHTS[d],
          experimental: EXPERIMENTAL_DIMENSIONS[d] !== undefined,
          ...(EXPERIMENTAL_DIMENSIONS[d] ? { why_experimental: EXPERIMENTAL_DIMENSIONS[d] } : {}),
          ...FORMULAS[d],
        },
      ]),
    ) as Record<Dimension, { weight: number; experimental: boolean; why_experimental?: string; formula: string; evidence: string }>,
    validation: {
      dimensions: ['pain', 'intent'],
      required_phrases: EVIDENCE_VALIDATION.required,
      measured_phrases: EVIDENCE_VALIDATION.measured,
      experimental_weight_factor: EVIDENCE_VALIDATION.experimentalWeightFactor,
      method:
        "For each phrase of a set of at least 30 (products, services, problems, brands), `insights evidence collect --phrases FILE` records on one day, within the routes' pace, the related queries Google lists through its embed flow and the modifier comparison the research asks; `npm run bench:evidence -- FILE` fits the modifier saturation points on one half of the phrases (against the related-list reading) and reports agreement on the other.",
      reproduce: 'npx insights evidence collect --phrases phrases.txt --output evidence.jsonl && npm run bench:evidence -- evidence.jsonl',
    },
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
    evidence_agreement: { ...EVIDENCE_AGREEMENT, reproduce: 'npm run bench:evidence' },
    // In the order the rules are tried.
    trend_classes: (Object.keys(TREND_CLASS_DEFINITIONS) as TrendClass[]).map((trendClass) => ({
      class: trendClass,
      rule: TREND_CLASS_DEFINITIONS[trendClass].rule,
      claim: TREND_CLASS_DEFINITIONS[trendClass].claim,
      ...BACKTEST.trendClasses[trendClass],
    })),
  };
}
