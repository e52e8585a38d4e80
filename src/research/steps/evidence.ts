// Read the evidence out of what was measured: the series' shape, breadth, the pain, intent and
// competition signals, reach and the forecast (steps clean_series to forecast).
import { findProfile, kindOfProviders, UNNAMED_PROVIDER } from '../../providers/registry.js';
import { geographicReach, INTEREST_THRESHOLD } from '../../domain/research/geography.js';
import { familyShares, tooLittleData, type FamilyShare, type ModifierFamily } from '../../domain/research/modifier-evidence.js';
import {
  brandShare,
  COMPETITION_TERMS,
  INTENT_TERMS,
  PAIN_TERMS,
  termShare,
  vocabulary,
  type TermShare,
} from '../../domain/research/query-signals.js';
import { topicSignals, type TopicSignals } from '../../domain/research/topic-signals.js';
import { acceleration, autocorrelation, growth, seriesBreakout, trajectory, volatility } from '../../domain/research/series-analysis.js';
import { forecast as fitForecast } from '../../domain/forecast/forecaster.js';
import { outlook as fitOutlook, type Outlook } from '../../domain/forecast/outlook.js';
import type { BreadthInput } from '../../domain/scoring/dimension-scores.js';
import { isAvailable, type Reading } from '../../domain/scoring/dimensions.js';
import { yearlySeasonality } from '../../domain/scoring/trend-class.js';
import { seriesQuality } from '../../domain/scoring/series.js';
import type { RelatedServed } from '../../domain/research/served-evidence.js';
import type { ModifierOutcome } from '../trends-plan.js';
import { forecastMase } from '../../observability/metrics.js';
import type {
  AskedComparison,
  ModifierComparison,
  NamedStep,
  RelatedOutput,
  SeriesCoverage,
  SignalOutput,
  StepContext,
} from '../step-contract.js';
import { count, servedOf, listsOnly, cleaned } from './shared.js';
import { tenthsPercent } from '../../domain/numbers.js';

/** The idea and its primary phrase: a signal word of theirs is never counted (query-signals.ts termShare). */
const ownTexts = (ctx: StepContext) => [ctx.run.idea, ctx.out('choose_primary').primary];

/** Why a related list gives nothing to read (for the dimensions' evidence). */
const UNLISTED: Record<Exclude<RelatedServed, 'listed'>, string> = {
  empty: 'Google served them empty (its answer to automated clients since 2024-08-20)',
  not_recorded: 'replay has no recording of them',
  not_available: 'no configured provider lists them',
  failed: 'their request failed',
};
const UNLISTED_EMBED = "Google's embed flow served them empty";

/** Where a related list was read from, as the dimensions' evidence names it. */
function listedBy(o: RelatedOutput): string {
  const p = o.provenance;
  if (p && kindOfProviders(p.provider) === 'recorded') {
    // A recording's date is an HTTP date ("Sat, 12 Nov 2022 00:00:24 GMT"): said as the day it was recorded.
    const at = Date.parse(p.recordedAt ?? '');
    return `Google Trends answers recorded on ${Number.isFinite(at) ? new Date(at).toISOString().slice(0, 10) : 'an unknown day'} (${p.provider})`;
  }
  // A list with no provenance (from before it was kept) is Google's, as every list then was.
  const profile = (p ? findProfile(p.provider) : undefined) ?? UNNAMED_PROVIDER;
  return profile.kind === 'live' && p?.via === 'embed' ? "Google's embed flow" : profile.listedBy;
}

/** The related queries Google listed (steps related_queries_top and related_queries_rising), or why there are none to read. */
function listedQueries(ctx: StepContext): Reading<{ queries: string[]; from: string }> {
  const top = ctx.out('related_queries_top');
  const rising = ctx.out('related_queries_rising');
  const listed = [top, rising].filter((o) => servedOf(o) === 'listed');
  if (listed.length === 0) {
    const why = servedOf(top) as Exclude<RelatedServed, 'listed'>;
    return { unavailable: why === 'empty' && top.provenance?.via === 'embed' ? UNLISTED_EMBED : UNLISTED[why] };
  }
  return { queries: [...new Set(listed.flatMap((o) => o.items.map((i) => i.label)))], from: listedBy(listed[0]!) };
}

const listShare = (queries: Reading<{ queries: string[] }>, share: (qs: string[]) => TermShare): Reading<TermShare> =>
  isAvailable(queries) ? share(queries.queries) : queries;
const listsFrom = (queries: Reading<{ from: string }>) => (isAvailable(queries) ? { listsFrom: queries.from } : {});

/** What autocomplete_phrases's autocomplete said about the primary phrase. */
function autocompleteOf(ctx: StepContext): Reading<TopicSignals> {
  const primary = ctx.out('choose_primary').primary;
  const autocomplete = ctx.out('autocomplete_phrases');
  const topics = autocomplete.topics[primary] ?? ctx.out('choose_primary').primary_topics;
  if (topics) return topicSignals(topics);
  return { unavailable: autocomplete.unavailable ?? 'autocomplete was not asked for the phrase' };
}

const MODIFIERS_UNREAD: Record<Exclude<ModifierOutcome, 'served'>, string> = {
  not_recorded: 'replay has no recording of it (it never invents one)',
  not_available: 'no configured provider answers interest over time',
  no_data: 'Google has too little data for the phrase',
  not_asked: 'the phrase is too long to carry modifiers',
  failed: 'its request failed',
};

async function modifierComparison(ctx: StepContext): Promise<ModifierComparison> {
  const primary = ctx.out('choose_primary').primary;
  // The idea's own words are not asked as modifiers (modifier-evidence.ts familyQuery).
  const result = await ctx.requests.modifiers(primary, [ctx.run.idea]);
  const base = { keywords: result.request?.keywords ?? [primary], provenance: result.answer?.provenance ?? null };
  if (result.outcome !== 'served' || !result.request || !result.answer)
    return { outcome: result.outcome, ...(result.reason ? { reason: result.reason } : {}), ...base };
  const shares = familyShares(result.request, result.answer);
  return shares.ok ? { outcome: 'served', shares: shares.shares, ...base } : { outcome: 'no_data', reason: shares.reason, ...base };
}

function familyReading(m: ModifierComparison, family: ModifierFamily): Reading<FamilyShare> {
  const share = m.shares?.[family];
  if (share) return share;
  return { unavailable: m.outcome === 'served' ? `the phrase left no room for the ${family} words` : MODIFIERS_UNREAD[m.outcome] };
}

/** One line for a reading a step recorded (the reason's first clause: the output has all of it). */
const describeReading = <T extends object>(r: Reading<T>, say: (t: T) => string) =>
  isAvailable(r) ? say(r) : `not read (${r.unavailable.replace(/\s*\(.*$/, '')})`;
const describeFamily = (r: Reading<FamilyShare>) =>
  describeReading(r, (f) =>
    f.contradictory
      ? `contradictory (${f.ratio}× the phrase: not read)`
      : `${f.share === 0 ? `under ${tenthsPercent(f.resolution)}` : tenthsPercent(f.share)} of the phrase's searches`,
  );
const describeList = (r: Reading<TermShare>) =>
  describeReading(r, (t) => `${t.matched} of ${count(t.total, 'related query', 'related queries')}`);

/** The comparison as steps pain_signals to competition_signals record it: each keeps its own family's share, not all of them. */
const asked = ({ shares: _shares, ...rest }: ModifierComparison): AskedComparison => rest;

async function signalFor(ctx: StepContext, family: 'pain' | 'intent', terms: readonly string[]): Promise<SignalOutput> {
  const comparison = await modifierComparison(ctx);
  const queries = listedQueries(ctx);
  return {
    modifiers: familyReading(comparison, family),
    lists: listShare(queries, (qs) => termShare(qs, terms, ownTexts(ctx))),
    ...listsFrom(queries),
    modifier_comparison: asked(comparison),
  };
}

const summarizeSignal = (o: SignalOutput | TermShare) =>
  'share' in o ? summarizeShare(o) : `modifier comparison: ${describeFamily(o.modifiers)}; related queries: ${describeList(o.lists)}`;

export const EVIDENCE_STEPS: readonly NamedStep[] = [
  {
    name: 'clean_series',
    run: async (ctx) => {
      const coverage = (name: 'interest_30d' | 'interest_90d' | 'interest_12m' | 'interest_5y'): SeriesCoverage => {
        const c = cleaned(ctx.out(name));
        const q = seriesQuality(
          c.values.map((value, i) => ({ date: c.dates[i]!, value })),
          c.values.length + c.missing + (c.droppedPartial ? 1 : 0),
        );
        return {
          points: c.values.length,
          dropped_partial: c.droppedPartial,
          missing: c.missing,
          zero_share: Math.round(q.zeroShare * 1000) / 1000,
        };
      };
      return {
        interest_30d: coverage('interest_30d'),
        interest_90d: coverage('interest_90d'),
        interest_12m: coverage('interest_12m'),
        interest_5y: coverage('interest_5y'),
      };
    },
    summarize: (o) =>
      Object.entries(o)
        .map(([k, v]) => `${k.replace('interest_', '')}: ${v.points} pts, ${Math.round(v.zero_share * 100)}% zero`)
        .join('; '),
  },
  {
    name: 'growth',
    run: async (ctx) => ({
      growth_30d: growth(cleaned(ctx.out('interest_30d')).values),
      growth_90d: growth(cleaned(ctx.out('interest_90d')).values),
    }),
    summarize: (o) => `30d ${fmtPct(o.growth_30d)}, 90d ${fmtPct(o.growth_90d)}`,
  },
  {
    name: 'acceleration',
    run: async (ctx) => ({ acceleration_90d: acceleration(cleaned(ctx.out('interest_90d')).values) }),
    summarize: (o) => (o.acceleration_90d === null ? 'not enough points' : `slope change ${o.acceleration_90d}`),
  },
  {
    name: 'trajectory',
    run: async (ctx) => ({
      five_year: trajectory(cleaned(ctx.out('interest_5y')).values),
      points: cleaned(ctx.out('interest_5y')).values.length,
    }),
    summarize: (o) => (o.five_year ? `${o.five_year.trajectory} (${fmtPct(o.five_year.change)})` : 'not enough points'),
  },
  {
    name: 'seasonality',
    run: async (ctx) => ({
      weekly_acf_lag7: autocorrelation(cleaned(ctx.out('interest_90d')).values, 7),
      yearly_acf_lag52: autocorrelation(cleaned(ctx.out('interest_5y')).values, 52),
      // The same, after removing the 5 years' trend: what the "seasonal" trend class reads.
      yearly_seasonality: yearlySeasonality(cleaned(ctx.out('interest_5y')).values),
    }),
    summarize: (o) =>
      `weekly ${o.weekly_acf_lag7 ?? '–'}, yearly ${o.yearly_acf_lag52 ?? '–'} (without trend ${o.yearly_seasonality ?? '–'})`,
  },
  {
    name: 'volatility',
    run: async (ctx) => ({
      days_90: volatility(cleaned(ctx.out('interest_90d')).values),
      years_5: volatility(cleaned(ctx.out('interest_5y')).values),
    }),
    summarize: (o) => `cv ${o.days_90?.cv ?? '–'}${o.years_5?.fad ? ', fad-like spikes' : ''}`,
  },
  {
    name: 'breakout',
    run: async (ctx) => {
      const rising = ctx.out('related_queries_rising');
      return {
        rising_queries: servedOf(rising),
        breakout_queries: rising.items.filter((i) => i.breakout).map((i) => i.label),
        series: seriesBreakout(cleaned(ctx.out('interest_90d')).values),
      };
    },
    summarize: (o) =>
      `${(o.rising_queries ?? 'listed') === 'listed' ? count(o.breakout_queries.length, 'breakout query', 'breakout queries') : `no rising queries to read (${o.rising_queries})`}; series z ${o.series?.zScore ?? '–'}${o.series?.breakout ? ' (breakout)' : ''}`,
  },
  {
    name: 'demand_breadth',
    run: async (ctx) => {
      const primary = ctx.out('choose_primary').primary;
      const queries = listedQueries(ctx);
      const topicLists = [ctx.out('related_topics_top'), ctx.out('related_topics_rising')].filter((o) => servedOf(o) === 'listed');
      const topics = topicLists.flatMap((o) => o.items.map((i) => i.label));
      const lists: BreadthInput['lists'] =
        isAvailable(queries) || topicLists.length > 0
          ? {
              queries: isAvailable(queries) ? queries.queries.length : 0,
              topics: new Set(topics).size,
              vocabulary: vocabulary(primary, [...(isAvailable(queries) ? queries.queries : []), ...topics]),
            }
          : queries;
      // This step records the whole comparison, every family's share with it.
      const comparison = await modifierComparison(ctx);
      // A family whose numbers contradict the phrase's (an OR-group above it) says nothing of whether it is searched.
      const all = Object.values(comparison.shares ?? {});
      const families = all.filter((f) => !f.contradictory);
      const contradictory = all.length - families.length;
      const leftOut = [...new Set(all.flatMap((f) => f.left_out ?? []))];
      const little = families[0] ? tooLittleData(primary, families[0].phrase_mean) : null;
      const modifiers: BreadthInput['modifiers'] =
        comparison.outcome === 'served' && families.length > 0 && !little
          ? {
              registering: families.filter((f) => f.share > 0).length,
              families: families.length,
              phrase_mean: families[0]!.phrase_mean,
              ...(contradictory ? { contradictory } : {}),
              ...(leftOut.length ? { left_out: leftOut } : {}),
            }
          : {
              unavailable:
                comparison.outcome !== 'served'
                  ? MODIFIERS_UNREAD[comparison.outcome]
                  : little
                    ? little
                    : contradictory > 0
                      ? `every family's numbers contradict the phrase's (an OR-group above its phrase): Google's sample of it is too thin`
                      : 'no family fitted the request',
              ...(contradictory > 0 ? { contradictory: true } : {}),
            };
      return { lists, autocomplete: autocompleteOf(ctx), modifiers, modifier_comparison: comparison };
    },
    summarize: (o) =>
      'lists' in o
        ? [
            `related lists: ${describeReading(o.lists, (l) => `${count(l.queries, 'query', 'queries')}, ${count(l.topics, 'topic')}, ${count(l.vocabulary, 'distinct word')}`)}`,
            `autocomplete: ${describeReading(o.autocomplete, (a) => `${count(a.topics, 'topic')} of ${count(a.types.length, 'type')}`)}`,
            `modifiers: ${describeReading(o.modifiers, (m) => `${m.registering} of ${count(m.families, 'family', 'families')} searched`)}`,
          ].join('; ')
        : `${count(o.queries, 'query', 'queries')}, ${count(o.topics, 'topic')}, ${count(o.vocabulary, 'distinct word')}`,
  },
  { name: 'pain_signals', run: (ctx) => signalFor(ctx, 'pain', PAIN_TERMS), summarize: summarizeSignal },
  { name: 'buyer_intent', run: (ctx) => signalFor(ctx, 'intent', INTENT_TERMS), summarize: summarizeSignal },
  {
    name: 'competition_signals',
    run: async (ctx) => {
      const primary = ctx.out('choose_primary').primary;
      const queries = listedQueries(ctx);
      const comparison = await modifierComparison(ctx);
      return {
        comparisons: {
          modifiers: familyReading(comparison, 'competition'),
          lists: listShare(queries, (qs) => termShare(qs, COMPETITION_TERMS, ownTexts(ctx))),
          ...listsFrom(queries),
        },
        brands: { autocomplete: autocompleteOf(ctx), lists: listShare(queries, (qs) => brandShare(primary, qs, ctx.run.idea)) },
        modifier_comparison: asked(comparison),
      };
    },
    summarize: (o) =>
      listsOnly(o)
        ? `${o.brands.matched} brand and ${o.comparisons.matched} comparison queries of ${o.brands.total}`
        : [
            `comparisons: ${describeFamily(o.comparisons.modifiers)}, ${describeList(o.comparisons.lists)}`,
            `brands: ${describeReading(o.brands.autocomplete, (a) => `${a.brand_topics} of ${count(a.topics, 'autocomplete topic')}`)}, ${describeList(o.brands.lists)}`,
          ].join('; '),
  },
  {
    name: 'geographic_reach',
    run: async (ctx) => geographicReach(ctx.out('interest_by_country').places, ctx.out('interest_by_city').places),
    summarize: (o) =>
      `${o.countriesWithInterest} of ${count(o.countriesWithData, 'country', 'countries')} ≥ ${INTEREST_THRESHOLD}${o.topCountry ? `, top ${o.topCountry}` : ''}; ${count(o.citiesWithInterest, 'city', 'cities')}`,
  },
  {
    name: 'forecast',
    run: async (ctx) => {
      const days90 = ctx.out('interest_90d');
      const c = cleaned(days90);
      const long = cleaned(ctx.out('interest_5y'));
      // From the day after the last day of data, partial or not: the forecast never restates a day the chart shows.
      return { ...fitForecast(c.dates, c.values, 7, days90.dates.at(-1)), outlook: fitOutlook(long.dates, long.values) };
    },
    summarize: (o) =>
      `${
        o.withheld
          ? `7 days withheld: ${o.reason}`
          : `${o.model}, next 7 days ${o.points[0]?.value}…${o.points.at(-1)?.value}, MASE ${o.backtest.mase ?? '–'}`
      }; ${describeOutlook(o.outlook)}`,
    observe: (o) => {
      const mase = o.withheld ? undefined : o.backtest.mase;
      if (typeof mase === 'number') forecastMase.observe(mase);
    },
  },
];

function describeOutlook(o: Outlook | undefined): string {
  if (!o) return 'no outlook (recorded before it was made)';
  if (o.withheld) return `outlook withheld: ${o.reason}`;
  const horizons = o.horizons.map((h) => (h.withheld ? `${h.months} months withheld` : `${h.months} months ${h.value}`));
  return `outlook (${o.model}): ${horizons.join(', ')}`;
}

function fmtPct(x: number | null): string {
  return x === null ? '–' : `${x >= 0 ? '+' : ''}${Math.round(x * 100)}%`;
}

function summarizeShare(o: TermShare): string {
  return `${o.matched} of ${count(o.total, 'query', 'queries')}${o.examples[0] ? ` (e.g. "${o.examples[0]}")` : ''}`;
}
