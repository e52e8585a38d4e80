// What each source of search data can answer, what it allows and what it
// costs. A research run asks by capability: each request goes to the first
// configured provider that has it, and a request no configured provider can
// answer is recorded as not available (with this reason), never failed.
// Plain data: the domain reads it, src/trends/ and src/research/ act on it.
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

export const PROVIDER_NAMES = ['google', 'replay', 'synthetic', 'dataforseo'] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

export interface ProviderProfile {
  name: ProviderName;
  /** One line for operators (`insights budget`, docs/providers.md). */
  summary: string;
  capabilities: readonly Capability[];
  /** Terms one comparison may hold (Google's explore: 5). */
  termsPerRequest: number;
  /** Whether its answers cost money (then counted per run and per refresh). */
  paid: boolean;
  /**
   * Assumed price per request in US dollars, by what is asked, for estimates
   * only (the refresh's cost per insight in `insights budget`). What a run
   * spent is what the provider billed, read from each answer's `cost`.
   * DataForSEO: $0.009 per Trends live task is what answers seen by other
   * clients carried; $0.075 per Google Ads live task is its listed live price
   * for the Ads family, not confirmed for search volume (2026-11).
   */
  priceUsd: Partial<Record<'explore' | 'searchVolume', number>>;
}

export const PROVIDER_PROFILES: Readonly<Record<ProviderName, ProviderProfile>> = Object.freeze({
  google: {
    name: 'google',
    summary: 'live Google Trends through its unofficial web endpoints: free, paced, blocked at will',
    capabilities: ['series', 'regions', 'cities', 'relatedQueries', 'relatedTopics', 'autocomplete', 'trendingFeed'],
    termsPerRequest: 5,
    paid: false,
    priceUsd: {},
  },
  replay: {
    name: 'replay',
    summary: 'Google Trends answers recorded in 2022–2023: only what was recorded',
    capabilities: ['series', 'regions', 'cities', 'relatedQueries', 'relatedTopics', 'autocomplete', 'trendingFeed'],
    termsPerRequest: 5,
    paid: false,
    priceUsd: {},
  },
  synthetic: {
    name: 'synthetic',
    summary: 'a simulated world for demos and load tests, never real data',
    capabilities: ['series', 'regions', 'cities', 'relatedQueries', 'relatedTopics', 'autocomplete', 'trendingFeed'],
    termsPerRequest: 5,
    paid: false,
    priceUsd: {},
  },
  dataforseo: {
    name: 'dataforseo',
    summary: "DataForSEO's paid APIs: Google Trends explore, and Google Ads search volume with cost per click",
    // Its Trends explore has no city map, no topic autocomplete and no trending feed.
    capabilities: ['series', 'regions', 'relatedQueries', 'relatedTopics', 'searchVolume', 'costPerClick'],
    termsPerRequest: 5,
    paid: true,
    priceUsd: { explore: 0.009, searchVolume: 0.075 },
  },
});

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

/** Why a capability is missing from a list of providers, in words an operator can act on. */
export function unavailableReason(capability: Capability, providers: readonly ProviderName[]): string {
  const having = PROVIDER_NAMES.filter((p) => PROVIDER_PROFILES[p].capabilities.includes(capability));
  return `no configured provider answers ${CAPABILITY_WORDS[capability]} (TRENDS_PROVIDER=${providers.join(',')}; ${having.join(' or ')} would)`;
}

/** A run's provider label: the configured providers in order of preference, e.g. "google+dataforseo". */
export const providerLabel = (providers: readonly ProviderName[]) => providers.join('+');

/** The providers a run's label names (runs from before lists name one). Unknown names throw. */
export function providersOf(label: string): ProviderName[] {
  return label.split('+').map((name) => {
    if (!(PROVIDER_NAMES as readonly string[]).includes(name)) throw new Error(`unknown trends provider "${name}"`);
    return name as ProviderName;
  });
}

/** The first of the providers that has the capability, if any. */
export const answeringProvider = (providers: readonly ProviderName[], capability: Capability): ProviderName | undefined =>
  providers.find((p) => PROVIDER_PROFILES[p].capabilities.includes(capability));
