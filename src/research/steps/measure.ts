// Measure the primary phrase on Google Trends: its interest over four timeframes, against its
// secondary phrases and the anchor, its related lists and its maps (steps interest_30d to
// interest_by_city). Every answer comes through ctx.requests, over the rate-limited trends queue.
import { kindOfProviders } from '../../providers/registry.js';
import { COMPARABLE_RATIO, mapAgainstAnchor, placesFromMap, type PlaceInterest } from '../../domain/research/geography.js';
import type { Timeframe } from '../../domain/trends/answers.js';
import { describeVolume, volumeOutput } from '../../domain/research/search-volume.js';
import { TrendsFailedError } from '../../providers/gateway.js';
import type { MapOutput, NamedStep, RelatedOutput, SeriesOutput, StepContext } from '../step-contract.js';
import { count, servedOf } from './shared.js';

async function seriesFor(ctx: StepContext, timeframe: Timeframe): Promise<SeriesOutput> {
  const keyword = ctx.out('choose_primary').primary;
  const { answer, derived_from } = await ctx.requests.series(keyword, timeframe);
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

const summarizeSeries = (o: SeriesOutput) =>
  o.values.length === 0
    ? `no points for "${o.keyword}"`
    : `${count(o.values.length, 'point')} for "${o.keyword}", ${o.dates[0]} to ${o.dates.at(-1)}, mean ${Math.round(o.values.reduce((a, b) => a + b, 0) / o.values.length)}`;

async function relatedFor(ctx: StepContext, kind: 'relatedQueries' | 'relatedTopics', list: 'top' | 'rising'): Promise<RelatedOutput> {
  const keyword = ctx.out('choose_primary').primary;
  // Top and rising come in one answer; the second step's request hits the same (deduplicated) trends job.
  const { served, list: answer, reason } = await ctx.requests.related(keyword, kind);
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

/** The phrase's map worldwide: its own, or against the anchor when step compare_anchor found them comparable (see domain/research/geography.ts). */
async function mapOf(ctx: StepContext, resolution: 'COUNTRY' | 'CITY', comparedWith: string | null, reason: string): Promise<MapOutput> {
  const keyword = ctx.out('choose_primary').primary;
  const keywords = comparedWith ? [keyword, comparedWith] : [keyword];
  let answer;
  try {
    answer = await ctx.requests.map(keywords, resolution);
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

export const MEASURE_STEPS: readonly NamedStep[] = [
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
      return (await ctx.requests.comparison(primary, secondary, ctx.anchorTerm)).secondary;
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
      const { anchor } = await ctx.requests.comparison(primary, secondary, ctx.anchorTerm);
      // Absolute demand beside the relative: monthly searches of the phrase and its variants, when a provider has them.
      const volume = await ctx.requests.volume([primary, ...secondary]);
      // One scale across requests (the Trends API): the phrase's own searchInterest against the scale's reference, no anchor asked.
      return ctx.scale
        ? { anchor: null, scale: ctx.scale, ...anchor, volume: volumeOutput(volume) }
        : { anchor: ctx.anchorTerm, ...anchor, volume: volumeOutput(volume) };
    },
    summarize: (o) =>
      `${
        o.scale
          ? `mean ${o.phraseMean} vs ${o.anchorMean} for ${o.scale.values} ${o.scale.reference} (one scale across requests: no anchor term asked)`
          : `mean ${o.phraseMean} vs "${o.anchor}" ${o.anchorMean}`
      }${o.volume ? `; ${describeVolume(o.volume)}` : ''}`,
  },
  { name: 'related_queries_top', run: (ctx) => relatedFor(ctx, 'relatedQueries', 'top'), summarize: summarizeRelated },
  { name: 'related_queries_rising', run: (ctx) => relatedFor(ctx, 'relatedQueries', 'rising'), summarize: summarizeRelated },
  { name: 'related_topics_top', run: (ctx) => relatedFor(ctx, 'relatedTopics', 'top'), summarize: summarizeRelated },
  { name: 'related_topics_rising', run: (ctx) => relatedFor(ctx, 'relatedTopics', 'rising'), summarize: summarizeRelated },
  {
    name: 'interest_by_country',
    run: (ctx) => {
      const { anchor, phraseMean, anchorMean, scale } = ctx.out('compare_anchor');
      if (anchor === null)
        return mapOf(
          ctx,
          'COUNTRY',
          null,
          `the phrase's own map: ${scale?.values ?? 'its values'} are one scale across requests, no anchor term`,
        );
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
];
