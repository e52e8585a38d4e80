// What a source of search data can answer. A research run asks by capability:
// each request goes to the first configured provider that has it, and a
// request no configured provider can answer is recorded as not available (with
// a reason), never failed. Each provider lists its own (src/providers/<name>/profile.ts).
import type { ExplorePart, TrendsRequest } from './answers.js';

export const CAPABILITIES = [
  /** Interest over time, 0–100 relative to the window's peak (up to 5 terms on one scale). */
  'series',
  /** Interest by country (worldwide) or by region (within a country). */
  'regions',
  /** Interest by city. */
  'cities',
  'relatedQueries',
  'relatedTopics',
  /** Google's topic autocomplete (a phrase that is a Knowledge Graph topic). */
  'autocomplete',
  /** Google's trending searches of the day (discovery). */
  'trendingFeed',
  /** Absolute monthly searches and their 12-month history, per country. */
  'searchVolume',
  /** What advertisers pay per click, and their competition for the keyword. */
  'costPerClick',
] as const;
export type Capability = (typeof CAPABILITIES)[number];

const PART_CAPABILITY: Record<ExplorePart, Capability> = {
  series: 'series',
  relatedQueries: 'relatedQueries',
  relatedTopics: 'relatedTopics',
  mapCountry: 'regions',
  mapCity: 'cities',
};

export const capabilityOfPart = (part: ExplorePart): Capability => PART_CAPABILITY[part];

/** What a request needs (an explore: each of its parts, see capabilityOfPart). */
export function capabilityOf(request: Exclude<TrendsRequest, { kind: 'explore' }>): Capability {
  switch (request.kind) {
    case 'interestOverTime':
      return 'series';
    case 'relatedQueries':
    case 'relatedTopics':
      return request.kind;
    case 'interestByRegion':
      return request.resolution === 'CITY' ? 'cities' : 'regions';
    case 'autocomplete':
      return 'autocomplete';
    case 'trendingFeed':
      return 'trendingFeed';
    case 'searchVolume':
      return 'searchVolume';
  }
}

export const CAPABILITY_WORDS: Record<Capability, string> = {
  series: 'interest over time',
  regions: 'interest by country or region',
  cities: 'interest by city',
  relatedQueries: 'related queries',
  relatedTopics: 'related topics',
  autocomplete: 'topic autocomplete',
  trendingFeed: 'the trending searches feed',
  searchVolume: 'monthly search volume',
  costPerClick: 'cost per click',
};
