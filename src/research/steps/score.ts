// Score the eight dimensions from the evidence (steps score_demand to score_whitespace).
import type { TermShare } from '../../domain/research/query-signals.js';
import {
  scoreBreadth,
  scoreDemand,
  scoreDurability,
  scoreIntent,
  scorePain,
  scoreReach,
  scoreWhitespace,
  type SignalInput,
} from '../../domain/scoring/dimension-scores.js';
import type { Dimension, DimensionScore, Unavailable } from '../../domain/scoring/dimensions.js';
import { assessMomentum } from '../../domain/scoring/momentum.js';
import { absoluteDemand } from '../../domain/research/search-volume.js';
import type { NamedStep, SignalOutput, StepContext, StepDefinition } from '../step-contract.js';
import { listsOnly } from './shared.js';

/** Runs recorded before the modifier comparison read related queries only. */
const notAsked: Unavailable = { unavailable: 'not asked by this run (recorded before it was)' };
const signalInput = (o: SignalOutput | TermShare): SignalInput => ('share' in o ? { modifiers: notAsked, lists: o } : o);

const scoreStep = <D extends Dimension>(dimension: D, compute: (ctx: StepContext) => DimensionScore): StepDefinition<`score_${D}`> => ({
  name: `score_${dimension}`,
  run: async (ctx) => compute(ctx),
  summarize: (o) => `${o.score === null ? 'no score' : o.score.toFixed(3)}${o.experimental ? ' (experimental)' : ''} — ${o.explanation}`,
});

export const SCORE_STEPS: readonly NamedStep[] = [
  scoreStep('demand', (ctx) => {
    const comparison = ctx.out('compare_anchor');
    // Absolute when a provider gave the primary phrase's monthly searches; else relative to the anchor.
    const absolute = comparison.volume?.outcome === 'served' ? absoluteDemand(comparison.volume, ctx.out('choose_primary').primary) : null;
    return scoreDemand(comparison, absolute);
  }),
  scoreStep('momentum', (ctx) => {
    const points = (name: 'interest_30d' | 'interest_90d') => {
      const s = ctx.out(name);
      return s.dates.flatMap((date, i) => (s.has_data[i] === false ? [] : [{ date, value: s.values[i]!, isPartial: s.partial[i] }]));
    };
    // Runs whose step seasonality predates yearly_seasonality read it as unknown.
    const seasonality = ctx.out('seasonality').yearly_seasonality ?? null;
    const forecast = ctx.out('forecast');
    return assessMomentum({
      days30: points('interest_30d'),
      days90: points('interest_90d'),
      yearlySeasonality: seasonality,
      // Fitted on the same 90 days (step forecast): its direction is recorded beside the prediction's.
      forecast7: forecast.withheld ? null : forecast.points,
    }).momentum;
  }),
  scoreStep('durability', (ctx) => {
    const t = ctx.out('trajectory');
    const v = ctx.out('volatility');
    const trendClass = ctx.out('score_momentum').evidence.trend_class;
    return scoreDurability(
      t.five_year ? { ...t.five_year, fad: v.years_5?.fad ?? false, years: Math.round((t.points / 52) * 10) / 10 } : null,
      typeof trendClass === 'string' ? trendClass : null,
    );
  }),
  scoreStep('reach', (ctx) =>
    scoreReach({
      ...ctx.out('geographic_reach'),
      comparedWith: ctx.out('interest_by_country').compared_with,
      places: ctx.geo ? 'regions' : 'countries',
    }),
  ),
  scoreStep('breadth', (ctx) => {
    const o = ctx.out('demand_breadth');
    return scoreBreadth('lists' in o ? o : { lists: o, autocomplete: notAsked, modifiers: notAsked });
  }),
  scoreStep('pain', (ctx) => scorePain(signalInput(ctx.out('pain_signals')))),
  scoreStep('intent', (ctx) => scoreIntent(signalInput(ctx.out('buyer_intent')))),
  scoreStep('whitespace', (ctx) => {
    const o = ctx.out('competition_signals');
    if (listsOnly(o))
      return scoreWhitespace({
        comparisons: { modifiers: notAsked, lists: o.comparisons },
        brands: { autocomplete: notAsked, lists: o.brands },
      });
    return scoreWhitespace(o);
  }),
];
