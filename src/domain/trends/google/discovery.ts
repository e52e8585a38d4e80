// What discovery keeps of a trending search as the evidence of the research
// run it starts: Google's approximate traffic, when it was published, the news
// that linked it (titles and sources; links only when http(s)), and which road
// to Google's trending searches served it (the RSS feed, the Trending Now RPC
// or the /trending page: providers/google/trending.ts) with why the roads
// before it did not.
import type { TrendingFeed, TrendingItem, TrendingRoad } from '../answers.js';

/** Where the search was read, one source per road. */
export const DISCOVERY_SOURCES = {
  rss: 'google-trending-rss',
  rpc: 'google-trending-rpc',
  page: 'google-trending-page',
} as const satisfies Record<TrendingRoad, string>;
export type DiscoverySource = (typeof DISCOVERY_SOURCES)[TrendingRoad];

const ROAD_WORDS: Record<TrendingRoad, string> = {
  rss: 'the RSS feed',
  rpc: 'the Trending Now RPC',
  page: 'the /trending page',
};

export interface DiscoveryEvidence {
  source: DiscoverySource;
  geo: string;
  /** The search as the road listed it. */
  query: string;
  approx_traffic: string;
  published: string | null;
  news: Array<{ title: string; source: string; url: string }>;
  /** The roads tried before the one that served, and why each did not (absent: the first served). */
  passed_over?: Array<{ road: TrendingRoad; why: string }>;
}

/** The road that served a feed: a provider with one road (synthetic) serves as the feed does. */
export const roadOf = (feed: Pick<TrendingFeed, 'road'>): TrendingRoad => feed.road ?? 'rss';

export function discoveryEvidence(
  item: TrendingItem,
  geo: string,
  feed: Pick<TrendingFeed, 'road' | 'passedOver'> = {},
): DiscoveryEvidence {
  return {
    source: DISCOVERY_SOURCES[roadOf(feed)],
    geo,
    query: item.query,
    approx_traffic: item.approxTraffic,
    published: item.published,
    news: item.news,
    ...(feed.passedOver?.length ? { passed_over: feed.passedOver } : {}),
  };
}

/** One line for a terminal, a page or a summary: "trending in US, 10K+ searches; news: Title (Source), …", and the road when not the feed. */
export function describeDiscovery(evidence: DiscoveryEvidence): string {
  const news = evidence.news.slice(0, 3).map((n) => `${n.title} (${n.source})`);
  const road = (Object.keys(DISCOVERY_SOURCES) as TrendingRoad[]).find((r) => DISCOVERY_SOURCES[r] === evidence.source) ?? 'rss';
  const passed = evidence.passed_over?.map((p) => ROAD_WORDS[p.road]).join(' and ');
  const via = road === 'rss' ? '' : ` (read from ${ROAD_WORDS[road]}${passed ? `, ${passed} failing` : ''})`;
  return `trending in ${evidence.geo}, ${evidence.approx_traffic || 'unknown'} searches${via}${news.length ? `; news: ${news.join('; ')}` : ''}`;
}
