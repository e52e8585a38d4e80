// The answers a research run asks for (shaped after Google Trends'), as every
// provider in src/providers/registry.ts returns them normalised. Plain data:
// the domain reads them, the providers (src/providers/) fetch them, so they
// live here on the lower floor, and everything imports them from here.

export type RegionResolution = 'COUNTRY' | 'REGION' | 'CITY';

/**
 * How Google answered one request or one widget of an explore. The first three
 * are answers (returned, never thrown); the last three are errors (see the
 * error classes in src/providers/contract.ts). One place classifies every answer (the google client);
 * replay and synthetic answers may leave `outcome` out, which means served.
 *   served         data, as asked
 *   empty          a well-formed answer with nothing in it (related lists since 2024-08)
 *   no_data        a series of zeros with hasData false (too little data for the keyword)
 *   blocked        a 302 to www.google.com/sorry, a 429 page, a 403, an "unusual traffic" page: wait, never fail
 *   refused        400: the request (or a proxy in the way) is at fault
 *   changed_shape  not what Google's API answers: Google changed, retrying will not help
 */
export const ANSWER_OUTCOMES = ['served', 'empty', 'no_data', 'blocked', 'refused', 'changed_shape'] as const;
export type AnswerOutcome = (typeof ANSWER_OUTCOMES)[number];
/** The outcomes that come back as answers (the others are thrown). */
export type ServedOutcome = Extract<AnswerOutcome, 'served' | 'empty' | 'no_data'>;

/** Request windows ending today (the google provider turns them into start/end dates). */
export type Timeframe = '30d' | '90d' | '12m' | '5y';

export type TrendsRequest =
  | { kind: 'interestOverTime'; keywords: string[]; timeframe: Timeframe; geo: string }
  | { kind: 'relatedQueries'; keyword: string; timeframe: Timeframe; geo: string }
  | { kind: 'relatedTopics'; keyword: string; timeframe: Timeframe; geo: string }
  | { kind: 'interestByRegion'; keywords: string[]; timeframe: Timeframe; geo: string; resolution: RegionResolution }
  | { kind: 'autocomplete'; term: string }
  /** Google's trending searches for a country: its RSS feed, else the Trending Now RPC, else the /trending page. */
  | { kind: 'trendingFeed'; geo: string }
  /** Several answers for one keyword set and window, from one explore (Google answers them with one token each). */
  | { kind: 'explore'; keywords: string[]; timeframe: Timeframe; geo: string; parts: ExplorePart[] }
  /**
   * Absolute monthly searches, cost per click and competition of each keyword in
   * a country, from advertising data (Google Ads through DataForSEO): what
   * Google Trends, relative by construction, never answers.
   */
  | { kind: 'searchVolume'; keywords: string[]; geo: string; language: string };

/** What an explore request can carry: the widgets of Google's explore page. Maps are by country or city. */
export const EXPLORE_PARTS = ['series', 'relatedQueries', 'relatedTopics', 'mapCountry', 'mapCity'] as const;
export type ExplorePart = (typeof EXPLORE_PARTS)[number];

export interface TimelinePoint {
  date: string; // YYYY-MM-DD (UTC) of the period's start
  values: number[]; // one per keyword, 0..100
  hasData: boolean[];
  isPartial: boolean;
}
export interface InterestOverTime {
  kind: 'interestOverTime';
  keywords: string[];
  points: TimelinePoint[];
  /** 'no_data' when Google has no data for any keyword (every point hasData false); absent = served. */
  outcome?: ServedOutcome;
}

export interface RankedItem {
  /** The query text, or the topic's title. */
  label: string;
  topic?: { mid: string; type: string };
  value: number;
  /** Google says "Breakout" for a rise above 5000 %. */
  breakout: boolean;
  formattedValue: string;
}
export interface RelatedList {
  kind: 'relatedQueries' | 'relatedTopics';
  top: RankedItem[];
  rising: RankedItem[];
  /** 'empty' when Google answered with no ranked lists at all (its answer to automated clients since 2024-08); absent = served. */
  outcome?: ServedOutcome;
}

/**
 * One place on Google's map. For one keyword, `values[0]` is the place's
 * interest scaled so the strongest place is 100. For several keywords, Google
 * answers differently: each place's values are the keywords' shares of the
 * searches for all of them there, in percent, summing to 100.
 */
export interface RegionValue {
  /** ISO code; empty for cities, which Google names only. */
  geoCode: string;
  geoName: string;
  values: number[];
  hasData: boolean[];
}
export interface InterestByRegion {
  kind: 'interestByRegion';
  keywords: string[];
  regions: RegionValue[];
  /** 'no_data' when no place has data; absent = served. */
  outcome?: ServedOutcome;
}

export interface AutocompleteTopics {
  kind: 'autocomplete';
  topics: Array<{ mid: string; title: string; type: string }>;
  /** 'empty' when Google knows no topic for the term; absent = served. */
  outcome?: ServedOutcome;
}

export interface ExploreAnswer {
  kind: 'explore';
  keywords: string[];
  series?: InterestOverTime;
  relatedQueries?: RelatedList;
  relatedTopics?: RelatedList;
  mapCountry?: InterestByRegion;
  mapCity?: InterestByRegion;
  /** Parts the provider could not answer (replay: not recorded), with its reason. */
  missing?: Record<string, string>;
  /** Of the missing parts, those no configured provider can answer at all (a capability none has). */
  unavailable?: string[];
}

/** One keyword's advertising data in one country: Google Ads' figures, as DataForSEO relays them. */
export interface KeywordVolume {
  keyword: string;
  /** Average monthly searches over the last 12 months; null when Google Ads has too little data. */
  monthlySearches: number | null;
  /** The last months, oldest first (`YYYY-MM`). */
  history: Array<{ month: string; searches: number }>;
  /** Average cost per click, in US dollars; null when no advertiser bid. */
  cpcUsd: number | null;
  /** Top-of-page bid range (20th and 80th percentiles), in US dollars. */
  bidLowUsd: number | null;
  bidHighUsd: number | null;
  /** Google Ads' competition for ad slots: level, and index 0–100. */
  competition: 'LOW' | 'MEDIUM' | 'HIGH' | null;
  competitionIndex: number | null;
}
export interface SearchVolume {
  kind: 'searchVolume';
  /** The country the figures are for (ISO code), as asked. */
  geo: string;
  /** The provider's name for it (e.g. "United States") and its location code. */
  location: { name: string; code: number };
  language: string;
  keywords: KeywordVolume[];
}

/**
 * The roads to Google's trending searches, in the order they are tried: the RSS
 * feed (/trending/rss), the Trending Now RPC (batchexecute, rpc i0OFE) and the
 * /trending page's embedded data. The feed answered 500 for weeks in late 2026
 * (issue 51) while the RPC served; the RPC has failed for every country while
 * the feed served (an actor's changelog, 2026-11-10).
 */
export const TRENDING_ROADS = ['rss', 'rpc', 'page'] as const;
export type TrendingRoad = (typeof TRENDING_ROADS)[number];

/** One trending search, with Google's approximate traffic and the news it links (the RSS feed's; the other roads give none). */
export interface TrendingItem {
  query: string;
  /** Google's bucket, e.g. "200+" or "10K+". */
  approxTraffic: string;
  /** ISO timestamp of the item's pubDate, when it has a valid one. */
  published: string | null;
  news: Array<{ title: string; source: string; url: string }>;
}
export interface TrendingFeed {
  kind: 'trendingFeed';
  items: TrendingItem[];
  /** Which road served the list (absent: the RSS feed, or a provider with one road). */
  road?: TrendingRoad;
  /** The roads tried before it and why each did not serve, in order. */
  passedOver?: Array<{ road: TrendingRoad; why: string }>;
}

/** Where an answer came from, shown with the step's output. */
export interface ResponseProvenance {
  /** A registered provider's name (src/providers/registry.ts; a string here, since the registry reads this file's types). */
  provider: string;
  /** Paid providers: what the answer cost, in US dollars, as the provider billed it (0 when served from the day's cache). */
  costUsd?: number;
  /** The Trends API: the data points its answer counted against the project's quota (0 when served from the day's cache). */
  dataPoints?: number;
  /** The Trends API: which of its values the answer's were read from (searchInterest: one scale across requests). */
  valuesFrom?: 'searchInterest';
  /** The Trends API: the searchInterest its answer's 100 stands for (a value v read v × scalePeak / 100), so a run reads the scale back without an anchor. */
  scalePeak?: number;
  /** Paid providers: the provider's id of the task that answered (for a support request). */
  taskId?: string;
  /** Replay only: the window and date of the recorded exchange (it may differ from the requested window). */
  recordedTimeRange?: string;
  recordedAt?: string;
  /** Replay only: the recorded comparison these keywords' columns were taken from. */
  derivedFrom?: string;
  /** Google only: the HTTPS requests this answer took (explore, widgets, a cookie retry). */
  requests?: number;
  /** Google only: the egress route it took (direct, or a proxy's host:port). */
  route?: string;
  /** Google only: how the answer was asked: the explore page's widgets, or the embed flow (related lists). */
  via?: 'explore' | 'embed';
  /** Google only: explore's related list was empty and the route's embed quota was spent, so the list is explore's. */
  embedOverQuota?: true;
  /**
   * Google only: how Google labelled the client in the answer's token
   * (`userConfig.userType`: USER_TYPE_SCRAPER, USER_TYPE_LEGIT_USER,
   * USER_TYPE_EMBED …), the earliest sign that answers are being degraded.
   */
  userType?: string;
}

export type TrendsResponse = (
  InterestOverTime | RelatedList | InterestByRegion | AutocompleteTopics | TrendingFeed | ExploreAnswer | SearchVolume
) & {
  provenance?: ResponseProvenance;
};

/** A stable key for a request: same request, same key (used for job ids and replay lookups). */
export function requestKey(request: TrendsRequest): string {
  const sorted = Object.fromEntries(Object.entries(request).sort(([a], [b]) => a.localeCompare(b)));
  return JSON.stringify(sorted);
}
