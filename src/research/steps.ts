// The 40 steps of a research run, in order. Each is small, reads the outputs of
// earlier steps, and returns a JSON output that is recorded with the step (and
// shown by `insights runs show` and GET /api/research-runs/{id}). Trends data
// comes only through ctx.plan (trends-plan.ts: which requests answer which
// step), over the rate-limited `trends` queue. What each step hands on, and
// what it is run with, is declared in step-contract.ts.
import { classifyCategory, FIRM_CONFIDENCE, insightCategory, type CategoryEvidence } from '../domain/research/category.js';
import {
  COMPARABLE_RATIO,
  geographicReach,
  INTEREST_THRESHOLD,
  mapAgainstAnchor,
  placesFromMap,
  type PlaceInterest,
} from '../domain/research/geography.js';
import { normalizeIdea } from '../domain/research/idea.js';
import { choosePrimary, MEASURED, measuredPhrases, phraseCandidates, recordedCandidates } from '../domain/research/phrase-choice.js';
import { familyShares, tooLittleData, type FamilyShare, type ModifierFamily } from '../domain/research/modifier-evidence.js';
import {
  brandShare,
  COMPETITION_TERMS,
  INTENT_TERMS,
  PAIN_TERMS,
  termShare,
  vocabulary,
  type TermShare,
} from '../domain/research/query-signals.js';
import { topicSignals, type TopicSignals } from '../domain/research/topic-signals.js';
import {
  acceleration,
  autocorrelation,
  cleanSeries,
  growth,
  seriesBreakout,
  trajectory,
  volatility,
} from '../domain/research/series-analysis.js';
import { forecast as fitForecast } from '../domain/forecast/forecaster.js';
import { outlook as fitOutlook, type Outlook } from '../domain/forecast/outlook.js';
import {
  scoreBreadth,
  scoreDemand,
  scoreDurability,
  scoreIntent,
  scorePain,
  scoreReach,
  scoreWhitespace,
  type BreadthInput,
  type SignalInput,
} from '../domain/scoring/dimension-scores.js';
import {
  DIMENSIONS,
  isAvailable,
  type Dimension,
  type DimensionScore,
  type DimensionScores,
  type Reading,
  type Unavailable,
} from '../domain/scoring/dimensions.js';
import { assessMomentum } from '../domain/scoring/momentum.js';
import { yearlySeasonality } from '../domain/scoring/trend-class.js';
import { combineScores, SOURCE_CERTAINTY } from '../domain/scoring/overall.js';
import { google } from '../providers/google/profile.js';
import { findProfile, kindOfProviders } from '../providers/registry.js';
import { provenanceKind } from '../domain/provenance.js';
import { seriesQuality } from '../domain/scoring/series.js';
import type { Timeframe } from '../trends/types.js';
import type { RelatedServed } from '../domain/research/served-evidence.js';
import type { Measurement, ModifierOutcome } from './trends-plan.js';
import { commitResearchResult } from './research-result.js';
import { absoluteDemand, describeVolume, volumeOutput } from '../domain/research/search-volume.js';
import { TrendsFailedError } from './trends-gateway.js';
import { forecastMase } from '../observability/metrics.js';
import { RETIRED_STEP_NAMES, STEP_CHAINS } from '../domain/research/step-names.js';
import {
  STEP_NAMES,
  stepChains,
  type StepChains,
  type AskedComparison,
  type ListsOnlyCompetition,
  type MapOutput,
  type ModifierComparison,
  type NamedStep,
  type RelatedOutput,
  type SeriesCoverage,
  type SeriesOutput,
  type SignalOutput,
  type StepContext,
  type StepDefinition,
  type StepOutputs,
} from './step-contract.js';

async function seriesFor(ctx: StepContext, timeframe: Timeframe): Promise<SeriesOutput> {
  const keyword = ctx.out('choose_primary').primary;
  const { answer, derived_from } = await ctx.plan.series(keyword, timeframe);
  return {
    keyword,
    timeframe,
    ...(derived_from ? { derived_from } : {}),
    dates: answer.points.map((p) => p.date),
    values: answer.points.map((p) => p.values[0] ?? 0),
    partial: answer.points.map((p) => p.isPartial),
    has_data: answer.points.map((p) => p.hasData[0] ?? false),
    provenance: answer.provenance ?? null,
  };
}

/** "1 topic", "3 topics": a count and its noun, singular when it is one (a step summary is read by people). */
const count = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

const summarizeSeries = (o: SeriesOutput) =>
  o.values.length === 0
    ? `no points for "${o.keyword}"`
    : `${count(o.values.length, 'point')} for "${o.keyword}", ${o.dates[0]} to ${o.dates.at(-1)}, mean ${Math.round(o.values.reduce((a, b) => a + b, 0) / o.values.length)}`;

async function relatedFor(ctx: StepContext, kind: 'relatedQueries' | 'relatedTopics', list: 'top' | 'rising'): Promise<RelatedOutput> {
  const keyword = ctx.out('choose_primary').primary;
  // Top and rising come in one answer; the second step's request hits the same (deduplicated) trends job.
  const { served, list: answer, reason } = await ctx.plan.related(keyword, kind);
  return {
    keyword,
    served,
    ...(reason ? { reason } : {}),
    items: (answer?.[list] ?? []).map((i) => ({
      label: i.label,
      value: i.value,
      breakout: i.breakout,
      formattedValue: i.formattedValue,
      ...(i.topic ? { mid: i.topic.mid } : {}),
    })),
    provenance: answer?.provenance ?? null,
  };
}

const servedOf = (o: RelatedOutput): RelatedServed => o.served ?? 'listed';

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
  const profile = findProfile(p?.provider ?? 'google') ?? google;
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
  const result = await ctx.plan.modifiers(primary, [ctx.run.idea]);
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
const pct1 = (x: number) => `${Math.round(x * 1000) / 10}%`;
const describeFamily = (r: Reading<FamilyShare>) =>
  describeReading(r, (f) =>
    f.contradictory
      ? `contradictory (${f.ratio}× the phrase: not read)`
      : `${f.share === 0 ? `under ${pct1(f.resolution)}` : pct1(f.share)} of the phrase's searches`,
  );
const describeList = (r: Reading<TermShare>) =>
  describeReading(r, (t) => `${t.matched} of ${count(t.total, 'related query', 'related queries')}`);

/** The comparison as steps pain_signals to competition_signals record it: each keeps its own family's share, not all of them. */
const asked = ({ shares: _shares, ...rest }: ModifierComparison): AskedComparison => rest;

/** Step competition_signals as runs recorded it before the modifier comparison. */
const listsOnly = (o: StepOutputs['competition_signals']): o is ListsOnlyCompetition => 'share' in o.comparisons;

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

/** Runs recorded before the modifier comparison read related queries only. */
const notAsked: Unavailable = { unavailable: 'not asked by this run (recorded before it was)' };
const signalInput = (o: SignalOutput | TermShare): SignalInput => ('share' in o ? { modifiers: notAsked, lists: o } : o);

/** The phrase's map worldwide: its own, or against the anchor when step compare_anchor found them comparable (see domain/research/geography.ts). */
async function mapOf(ctx: StepContext, resolution: 'COUNTRY' | 'CITY', comparedWith: string | null, reason: string): Promise<MapOutput> {
  const keyword = ctx.out('choose_primary').primary;
  const keywords = comparedWith ? [keyword, comparedWith] : [keyword];
  let answer;
  try {
    answer = await ctx.plan.map(keywords, resolution);
  } catch (error) {
    // No configured provider draws this map (DataForSEO has no city map): recorded as not available, not a failure.
    if (!(error instanceof TrendsFailedError && error.notAvailable)) throw error;
    return {
      keyword,
      compared_with: comparedWith,
      reason,
      resolution,
      places: [],
      without_data: 0,
      provenance: null,
      unavailable: error.message,
    };
  }
  const { places, withoutData } = placesFromMap(answer);
  return {
    keyword,
    compared_with: comparedWith,
    reason,
    resolution,
    places,
    without_data: withoutData,
    provenance: answer.provenance ?? null,
  };
}

const describePlace = (p: PlaceInterest) => `${p.name} ${p.share === null ? p.relative : `${p.share}%`}`;

function summarizeRelated(o: RelatedOutput): string {
  switch (servedOf(o)) {
    case 'empty':
      return o.provenance?.via !== 'embed'
        ? 'empty: Google served no list (its answer to automated clients since 2024-08-20)'
        : kindOfProviders(o.provenance.provider) === 'simulated'
          ? "empty: the simulated embed flow served no list (as Google's does for related topics in 2026)"
          : "empty: Google's embed flow served no list (its answer for related topics in 2026)";
    case 'not_recorded':
      return 'not recorded by replay';
    case 'not_available':
      return `not available: ${o.reason ?? 'no configured provider lists them'}`;
    case 'failed':
      return `not read: ${o.reason ?? 'the request failed'}`;
    case 'listed':
      return o.items.length === 0
        ? 'none listed'
        : `${o.items.length}${o.provenance?.via === 'embed' ? ' (embed flow)' : ''}: ${o.items
            .slice(0, 3)
            .map((i) => i.label)
            .join(', ')}${o.items.length > 3 ? ', …' : ''}`;
  }
}

/** What a category is read from: the idea, its phrases, the autocomplete topics and, once listed (step aggregate), the related lists. */
function categoryEvidence(ctx: StepContext, withLists: boolean): CategoryEvidence {
  const topics = [
    ...Object.values(ctx.out('autocomplete_phrases').topics).flat(),
    ...(withLists ? (ctx.out('choose_primary').primary_topics ?? []) : []),
  ];
  const lists = (names: Array<'related_queries_top' | 'related_queries_rising' | 'related_topics_top' | 'related_topics_rising'>) =>
    names
      .map((n) => ctx.out(n))
      .filter((o) => servedOf(o) === 'listed')
      .flatMap((o) => o.items.map((i) => i.label));
  return {
    idea: ctx.run.idea,
    phrases: ctx.out('extract_phrases').phrases,
    topics,
    ...(withLists
      ? {
          relatedQueries: lists(['related_queries_top', 'related_queries_rising']),
          relatedTopics: lists(['related_topics_top', 'related_topics_rising']).map((label) => ({ label })),
        }
      : {}),
  };
}

const cleaned = (s: SeriesOutput) =>
  cleanSeries(s.dates.map((date, i) => ({ date, value: s.values[i]!, hasData: s.has_data[i], isPartial: s.partial[i] })));

const scoreStep = <D extends Dimension>(dimension: D, compute: (ctx: StepContext) => DimensionScore): StepDefinition<`score_${D}`> => ({
  name: `score_${dimension}`,
  run: async (ctx) => compute(ctx),
  summarize: (o) => `${o.score === null ? 'no score' : o.score.toFixed(3)}${o.experimental ? ' (experimental)' : ''} — ${o.explanation}`,
});

const DEFINITIONS: readonly NamedStep[] = [
  {
    name: 'normalize_idea',
    run: async (ctx) => normalizeIdea(ctx.run.idea),
    summarize: (o) => `"${o.key}" (${count(o.words.length, 'word')})`,
  },
  {
    name: 'extract_phrases',
    run: async (ctx) => {
      // A trending search discovery found is a search already: it is the phrase, not re-derived from its words.
      const candidates = phraseCandidates(ctx.run.idea, ctx.run.hints, ctx.run.trending ? { trending: ctx.run.trending } : {});
      return { phrases: candidates.map((c) => c.phrase), candidates };
    },
    summarize: (o) =>
      o.candidates
        ? o.candidates
            .map(
              (c) =>
                `${c.phrase} (${c.hint ? 'operator keyword' : c.trending ? 'trending search' : `covers ${Math.round(c.coverage * 100)}%`})`,
            )
            .join(', ') || 'no phrases'
        : o.phrases.join(', ') || 'no phrases',
  },
  {
    name: 'autocomplete_phrases',
    // Only the phrases step choose_primary may choose (the best four by coverage): the others are never researched.
    run: async (ctx) =>
      ctx.plan.autocomplete(
        ctx.out('extract_phrases').phrases.slice(0, MEASURED),
        ctx.run.hints.length > 0 || ctx.run.trending !== undefined,
      ),
    summarize: (o) =>
      o.unavailable
        ? `not available: ${o.unavailable}`
        : Object.entries(o.topics)
            .map(([p, t]) => `${p} → ${t[0]?.title ?? '–'}`)
            .join('; ') + (o.not_asked?.length ? `; not asked: ${o.not_asked.join(', ')}` : ''),
  },
  {
    name: 'choose_primary',
    run: async (ctx) => {
      const extracted = ctx.out('extract_phrases');
      // Runs whose step extract_phrases predates candidates: the same candidates, from the idea.
      const candidates = extracted.candidates ?? recordedCandidates(ctx.run.idea, ctx.run.hints, extracted.phrases);
      if (candidates.length === 0) throw new Error('no search phrase could be extracted from the idea; pass --keyword');
      // How much the best candidates are searched: one comparison with the anchor (the request steps compare_secondary and compare_anchor read again).
      const asked = measuredPhrases(candidates);
      let measurement: Measurement | null = null;
      const given = candidates[0]!.hint ? 'an operator keyword' : candidates[0]!.trending ? "Google's trending search" : null;
      let unmeasured = given ?? 'a single candidate';
      if (!given && asked.length > 1) {
        try {
          measurement = await ctx.plan.measure(asked, ctx.anchorTerm);
        } catch (error) {
          if (!(error instanceof TrendsFailedError)) throw error;
          unmeasured = error.message;
        }
      }
      const choice = choosePrimary(candidates, measurement?.means ?? null, unmeasured);
      const order = [...(measurement?.keywords ?? []), ...candidates.map((c) => c.phrase)];
      const secondary = [...new Set(order)].filter((p) => p !== choice.primary).slice(0, 4);
      // Step autocomplete_phrases asked autocomplete until a phrase was a topic: the chosen phrase may not be among those asked.
      const autocomplete = ctx.out('autocomplete_phrases');
      const primaryTopics =
        !autocomplete.unavailable && autocomplete.topics[choice.primary] === undefined
          ? (await ctx.plan.autocomplete([choice.primary], true)).topics[choice.primary]
          : undefined;
      return {
        primary: choice.primary,
        secondary,
        reason: choice.reason,
        candidates: choice.candidates,
        measured: measurement ? { ...measurement, anchor: ctx.anchorTerm } : null,
        ...(primaryTopics ? { primary_topics: primaryTopics } : {}),
      };
    },
    summarize: (o) => `"${o.primary}" (${o.reason}); secondary: ${o.secondary.join(', ') || 'none'}`,
  },
  {
    name: 'classify_category',
    // From the idea and its autocomplete topics: the idea's own meaning. Step aggregate files the insight under this
    // choice, and reads the related lists only when it was uncategorized or a guess (insightCategory).
    run: async (ctx) => classifyCategory(categoryEvidence(ctx, false)),
    summarize: (o) =>
      `${o.category}${o.matched.length ? ` (matched: ${o.matched.join(', ')})` : ''}${
        o.category === 'uncategorized' || o.confidence < FIRM_CONFIDENCE
          ? `; a guess (confidence ${o.confidence.toFixed(2)}): aggregate files the insight by the related lists as well`
          : ''
      }`,
  },
  {
    name: 'detect_duplicate',
    run: async (ctx) => {
      const existing = await ctx.findExistingInsight(ctx.out('normalize_idea').key, ctx.out('choose_primary').primary);
      if (!existing) return { existing_insight_id: null, matched_on: null, action: 'create' };
      return existing.sameIdea
        ? { existing_insight_id: existing.id, matched_on: 'idea', action: 'update' }
        : {
            existing_insight_id: existing.id,
            matched_on: 'primary_keyword',
            similar_idea: existing.idea,
            action: 'create (a different idea on the same phrase)',
          };
    },
    summarize: (o) => (o.existing_insight_id ? `${o.matched_on} matches ${o.existing_insight_id}: ${o.action}` : 'new idea'),
  },
  { name: 'interest_30d', run: (ctx) => seriesFor(ctx, '30d'), summarize: summarizeSeries },
  { name: 'interest_90d', run: (ctx) => seriesFor(ctx, '90d'), summarize: summarizeSeries },
  { name: 'interest_12m', run: (ctx) => seriesFor(ctx, '12m'), summarize: summarizeSeries },
  { name: 'interest_5y', run: (ctx) => seriesFor(ctx, '5y'), summarize: summarizeSeries },
  {
    name: 'compare_secondary',
    run: async (ctx) => {
      const { primary, secondary } = ctx.out('choose_primary');
      if (secondary.length === 0) return { keywords: [primary], means: { [primary]: null }, note: 'no secondary phrases to compare' };
      // The same request as compare_anchor's (one trends job): the plan may ask both in one comparison.
      return (await ctx.plan.comparison(primary, secondary, ctx.anchorTerm)).secondary;
    },
    summarize: (o) =>
      'note' in o
        ? o.note
        : `${Object.entries(o.means)
            .map(([k, m]) => `${k} ${m}`)
            .join(', ')} (${o.timeframe})`,
  },
  {
    name: 'compare_anchor',
    run: async (ctx) => {
      const { primary, secondary } = ctx.out('choose_primary');
      const { anchor } = await ctx.plan.comparison(primary, secondary, ctx.anchorTerm);
      // Absolute demand beside the relative: monthly searches of the phrase and its variants, when a provider has them.
      const volume = await ctx.plan.volume([primary, ...secondary]);
      return { anchor: ctx.anchorTerm, ...anchor, volume: volumeOutput(volume) };
    },
    summarize: (o) => `mean ${o.phraseMean} vs "${o.anchor}" ${o.anchorMean}${o.volume ? `; ${describeVolume(o.volume)}` : ''}`,
  },
  { name: 'related_queries_top', run: (ctx) => relatedFor(ctx, 'relatedQueries', 'top'), summarize: summarizeRelated },
  { name: 'related_queries_rising', run: (ctx) => relatedFor(ctx, 'relatedQueries', 'rising'), summarize: summarizeRelated },
  { name: 'related_topics_top', run: (ctx) => relatedFor(ctx, 'relatedTopics', 'top'), summarize: summarizeRelated },
  { name: 'related_topics_rising', run: (ctx) => relatedFor(ctx, 'relatedTopics', 'rising'), summarize: summarizeRelated },
  {
    name: 'interest_by_country',
    run: (ctx) => {
      const { anchor, phraseMean, anchorMean } = ctx.out('compare_anchor');
      const against = mapAgainstAnchor(phraseMean, anchorMean);
      const reason = against
        ? `against "${anchor}": within ${COMPARABLE_RATIO}× of it over 12 months (${phraseMean} vs ${anchorMean})`
        : `the phrase's own map: "${anchor}" is not within ${COMPARABLE_RATIO}× of it (${phraseMean} vs ${anchorMean})`;
      return mapOf(ctx, 'COUNTRY', against ? anchor : null, reason);
    },
    summarize: (o) =>
      o.unavailable
        ? `not available: ${o.unavailable}`
        : `${o.places.some((p) => p.code.includes('-')) ? count(o.places.length, 'region') : count(o.places.length, 'country', 'countries')} with data${o.compared_with ? ` (shares vs "${o.compared_with}")` : ''}; strongest: ${o.places.slice(0, 3).map(describePlace).join(', ') || '–'}`,
  },
  {
    name: 'interest_by_city',
    run: async (ctx) => {
      const countries = ctx.out('interest_by_country');
      const map = await mapOf(ctx, 'CITY', countries.compared_with, 'the same map as step interest_by_country, by city');
      // Google lists a few hundred cities, most without data; keep the ones that carry evidence.
      return { ...map, places: map.places.slice(0, 25) };
    },
    summarize: (o) =>
      o.unavailable
        ? `not available: ${o.unavailable}`
        : o.places.length === 0
          ? `no city has data for "${o.keyword}"`
          : `top cities: ${o.places.slice(0, 3).map(describePlace).join(', ')}`,
  },
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
    return scoreDurability(
      t.five_year ? { ...t.five_year, fad: v.years_5?.fad ?? false, years: Math.round((t.points / 52) * 10) / 10 } : null,
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
  {
    name: 'aggregate',
    run: async (ctx) => {
      const dimensions = Object.fromEntries(DIMENSIONS.map((d) => [d, ctx.out(`score_${d}`)])) as DimensionScores;
      const s30 = cleaned(ctx.out('interest_30d'));
      const quality = seriesQuality(
        s30.values.map((value, i) => ({ date: s30.dates[i]!, value })),
        30,
      ).quality;
      // What the data is bounds the confidence: a simulated world's answers are complete but made up (SOURCE_CERTAINTY).
      const kind = provenanceKind({
        source: ctx.run.source,
        provider: ctx.run.provider ?? ctx.out('interest_30d').provenance?.provider ?? null,
      });
      const overall = combineScores(dimensions, quality, SOURCE_CERTAINTY[kind]);
      // classify_category's choice, unless it was uncategorized or a guess: the related lists drift from the idea
      // ("vegan pet food" → "vegan recipes"), so they fill a gap, they do not overrule (docs/categories.md).
      const category = insightCategory(ctx.out('classify_category'), () => classifyCategory(categoryEvidence(ctx, true))).category;
      const strongest = Object.entries(dimensions)
        .filter(([, d]) => d.score !== null)
        .sort((a, b) => b[1].score! - a[1].score!)
        .slice(0, 2)
        .map(([name, d]) => `${name} ${d.score!.toFixed(2)}${d.experimental ? ' (experimental)' : ''}`);
      return {
        overall,
        dimensions,
        category,
        summary: `Overall ${overall.score.toFixed(2)} (confidence ${overall.confidence.toFixed(2)}, ${overall.scoredDimensions}/8 dimensions scored)${strongest.length ? `; strongest: ${strongest.join(', ')}` : ''}; filed under ${category}${
          // Where the related lists overruled classify_category's guess, the trace says so (founder review).
          category !== ctx.out('classify_category').category
            ? ` (classify_category's guess was ${ctx.out('classify_category').category})`
            : ''
        }.`,
      };
    },
    summarize: (o) => o.summary,
    // The insight, its series, its forecast and the outbox event commit with this step.
    commit: commitResearchResult,
  },
];

const BY_NAME = new Map<string, StepDefinition>(DEFINITIONS.map((d) => [d.name, d]));

/** Today's chain: the steps in STEP_NAMES' order, each with the output its name declares. */
export const STEPS: readonly StepDefinition[] = STEP_NAMES.map((name) => BY_NAME.get(name)!);

/** Every chain a run may be on (STEP_CHAINS), each step by its definition; the step runner looks a run's chain up here. */
export const RESEARCH_CHAINS: StepChains = stepChains(
  STEP_CHAINS.map((names) =>
    names.map((name) => {
      const definition = BY_NAME.get(name);
      // Fail at startup, not mid-run: a chain a run may be on names a step this code cannot run.
      if (!definition) throw new Error(`research step "${name}" is in a chain (STEP_CHAINS) but has no definition in steps.ts`);
      return definition;
    }),
  ),
);

// Fail at startup, not mid-run, if the names and the definitions ever disagree: every step a chain may
// name (today's and the retired ones older chains still run) has exactly one definition, and nothing else does.
{
  const known: readonly string[] = [...STEP_NAMES, ...RETIRED_STEP_NAMES];
  for (const name of known) if (!BY_NAME.has(name)) throw new Error(`research step "${name}" has no definition in steps.ts`);
  for (const d of DEFINITIONS)
    if (!known.includes(d.name)) throw new Error(`research step "${d.name}" is defined but in neither STEP_NAMES nor RETIRED_STEP_NAMES`);
  if (BY_NAME.size !== DEFINITIONS.length) throw new Error('a research step is defined twice in steps.ts');
}

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
