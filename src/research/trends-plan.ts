// How a research run asks Google Trends for what its steps need. Google's
// requests are the scarce resource (see the README's budget section), so the
// default plan spends as few as the evidence allows:
//
//   autocomplete   the phrases in order, until one is a Google topic (the one
//                  step 4 chooses), instead of every phrase;
//   30 days        the last 30 days of the 90-day answer, rescaled by their
//                  own maximum, instead of a request of its own;
//   12 months      one explore for the primary phrase answers the 12-month
//                  series, related queries, related topics and both maps;
//   comparison     the secondary phrases and the anchor in one 12-month
//                  request (up to 5 terms), instead of two.
//
// That is 5 trends jobs and 13 HTTPS requests per run when the first phrase is
// a topic, against 15 jobs and 25 requests for one keyword per request
// ("single", kept as the baseline that bench:google measures against).
import type { ExploreAnswer, InterestByRegion, InterestOverTime, RelatedList, ResponseProvenance, Timeframe, TrendsRequest, TrendsResponse } from '../trends/types.js';

import { TrendsFailedError } from './trends-gateway.js';

/** An answer with where it came from (shown with the step's output). */
type Sourced<T> = T & { provenance?: ResponseProvenance };

export const TRENDS_PLANS = ['batched', 'single'] as const;
export type TrendsPlanName = (typeof TRENDS_PLANS)[number];

export type Topic = { mid: string; title: string; type: string };

export interface AutocompleteResult {
  topics: Record<string, Topic[]>;
  /** Phrases not asked: an earlier phrase was already a topic (or an operator hint decided). */
  not_asked: string[];
}

export interface SeriesResult {
  answer: Sourced<InterestOverTime>;
  /** Set when the series was cut from a longer answer (e.g. "last 30 days of the 90-day answer, rescaled"). */
  derived_from?: string;
}

export interface ComparisonResult {
  /** The secondary phrases' means, with the primary's, in one request. */
  secondary: { keywords: string[]; timeframe: Timeframe; means: Record<string, number> };
  /** The primary against the anchor: mean interest of each over the same request. */
  anchor: { phraseMean: number; anchorMean: number; points: number; provenance: TrendsResponse['provenance'] | null };
}

export interface TrendsPlan {
  readonly name: TrendsPlanName;
  autocomplete(phrases: string[], hinted: boolean): Promise<AutocompleteResult>;
  series(keyword: string, timeframe: Timeframe): Promise<SeriesResult>;
  comparison(primary: string, secondary: string[], anchor: string): Promise<ComparisonResult>;
  related(keyword: string, kind: 'relatedQueries' | 'relatedTopics'): Promise<Sourced<RelatedList>>;
  /** Worldwide, by country or city; two keywords give each one's share per place. */
  map(keywords: string[], resolution: 'COUNTRY' | 'CITY'): Promise<Sourced<InterestByRegion>>;
}

type Fetch = (request: TrendsRequest) => Promise<TrendsResponse>;

function expectKind<K extends TrendsResponse['kind']>(response: TrendsResponse, kind: K): Extract<TrendsResponse, { kind: K }> {
  if (response.kind !== kind) throw new Error(`expected a ${kind} answer, got ${response.kind}`);
  return response as Extract<TrendsResponse, { kind: K }>;
}

const mean = (answer: InterestOverTime, i: number) => answer.points.reduce((s, p) => s + (p.values[i] ?? 0), 0) / Math.max(1, answer.points.length);
const round = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits;

/**
 * The last `days` points of a daily answer, rescaled so their own maximum is
 * 100 and rounded to integers: what a request for that window returns, up to
 * the precision the longer window's integers carried.
 */
export function lastDaysRescaled(answer: InterestOverTime, days: number): InterestOverTime {
  const points = answer.points.slice(-days);
  const max = Math.max(0, ...points.map((p) => p.values[0] ?? 0));
  return {
    ...answer,
    points: points.map((p) => ({ ...p, values: p.values.map((v) => (max > 0 ? Math.round((v * 100) / max) : 0)) })),
  };
}

/** Everything one explore for the primary phrase over 12 months answers. Every step asks for exactly this, so they share one trends job. */
const BUNDLE_PARTS = ['series', 'relatedQueries', 'relatedTopics', 'mapCountry', 'mapCity'] as const;

export function trendsPlan(name: TrendsPlanName, fetch: Fetch, geo: string): TrendsPlan {
  const interest = async (keywords: string[], timeframe: Timeframe, where = geo) =>
    expectKind(await fetch({ kind: 'interestOverTime', keywords, timeframe, geo: where }), 'interestOverTime');
  const autocompleteOne = async (term: string) => expectKind(await fetch({ kind: 'autocomplete', term }), 'autocomplete').topics.slice(0, 5);

  if (name === 'single') {
    return {
      name,
      async autocomplete(phrases) {
        const answers = await Promise.all(phrases.map(autocompleteOne));
        return { topics: Object.fromEntries(phrases.map((p, i) => [p, answers[i]!])), not_asked: [] };
      },
      series: async (keyword, timeframe) => ({ answer: await interest([keyword], timeframe) }),
      async comparison(primary, secondary, anchor) {
        const keywords = [primary, ...secondary.slice(0, 4)];
        const secondaryAnswer = secondary.length > 0 ? await interest(keywords, '30d') : undefined;
        const anchorAnswer = await interest([primary, anchor], '12m');
        return {
          secondary: { keywords, timeframe: '30d', means: Object.fromEntries(keywords.map((k, i) => [k, secondaryAnswer ? round(mean(secondaryAnswer, i), 1) : 0])) },
          anchor: { phraseMean: round(mean(anchorAnswer, 0), 2), anchorMean: round(mean(anchorAnswer, 1), 2), points: anchorAnswer.points.length, provenance: anchorAnswer.provenance ?? null },
        };
      },
      related: async (keyword, kind) => expectKind(await fetch({ kind, keyword, timeframe: '12m', geo }), kind),
      map: async (keywords, resolution) => expectKind(await fetch({ kind: 'interestByRegion', keywords, timeframe: '12m', geo: '', resolution }), 'interestByRegion'),
    };
  }

  const bundle = async (keyword: string) =>
    expectKind(await fetch({ kind: 'explore', keywords: [keyword], timeframe: '12m', geo, parts: [...BUNDLE_PARTS] }), 'explore');
  const part = <P extends keyof ExploreAnswer>(answer: ExploreAnswer, name: P) => {
    const value = answer[name];
    // Not there for good (replay has no recording of it): the step fails at once, as for any unanswerable request.
    if (value === undefined) throw new TrendsFailedError(answer.missing?.[String(name)] ?? `the explore answer has no ${String(name)}`);
    return { ...(value as object), provenance: (answer as TrendsResponse).provenance } as NonNullable<ExploreAnswer[P]> & { provenance: TrendsResponse['provenance'] };
  };
  return {
    name,
    async autocomplete(phrases, hinted) {
      const topics: Record<string, Topic[]> = {};
      // Step 4 takes the hint, or else the first phrase that is a topic: the phrases after it cannot be chosen.
      for (const [i, phrase] of phrases.entries()) {
        topics[phrase] = await autocompleteOne(phrase);
        if (hinted || topics[phrase]!.length > 0) return { topics, not_asked: phrases.slice(i + 1) };
      }
      return { topics, not_asked: [] };
    },
    async series(keyword, timeframe) {
      if (timeframe === '30d') return { answer: lastDaysRescaled(await interest([keyword], '90d'), 30), derived_from: 'the last 30 days of the 90-day answer, rescaled by their own maximum' };
      if (timeframe === '12m') return { answer: part(await bundle(keyword), 'series'), derived_from: 'the 12-month explore (with related queries, topics and maps)' };
      return { answer: await interest([keyword], timeframe) };
    },
    async comparison(primary, secondary, anchor) {
      // One request: the primary, up to three secondary phrases and the anchor (Google takes five terms).
      const keywords = [primary, ...secondary.filter((s) => s !== anchor).slice(0, 3), anchor];
      const answer = await interest(keywords, '12m');
      const last = keywords.length - 1;
      return {
        secondary: { keywords: keywords.slice(0, last), timeframe: '12m', means: Object.fromEntries(keywords.slice(0, last).map((k, i) => [k, round(mean(answer, i), 1)])) },
        anchor: { phraseMean: round(mean(answer, 0), 2), anchorMean: round(mean(answer, last), 2), points: answer.points.length, provenance: answer.provenance ?? null },
      };
    },
    related: async (keyword, kind) => part(await bundle(keyword), kind),
    async map(keywords, resolution) {
      // Maps are worldwide; the explore bundle is, too, unless runs look at one country (TRENDS_GEO).
      if (keywords.length === 1 && geo === '') return part(await bundle(keywords[0]!), resolution === 'COUNTRY' ? 'mapCountry' : 'mapCity');
      const answer = expectKind(await fetch({ kind: 'explore', keywords, timeframe: '12m', geo: '', parts: ['mapCountry', 'mapCity'] }), 'explore');
      return part(answer, resolution === 'COUNTRY' ? 'mapCountry' : 'mapCity');
    },
  };
}
