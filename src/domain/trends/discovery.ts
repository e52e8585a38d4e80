// What discovery keeps of a trending search as the evidence of the research
// run it starts: Google's approximate traffic, when it was published, and the
// news that linked it (titles and sources; links only when http(s)).
import type { TrendingItem } from './answers.js';

export interface DiscoveryEvidence {
  source: 'google-trending-rss';
  geo: string;
  /** The search as the feed listed it. */
  query: string;
  approx_traffic: string;
  published: string | null;
  news: Array<{ title: string; source: string; url: string }>;
}

export function discoveryEvidence(item: TrendingItem, geo: string): DiscoveryEvidence {
  return {
    source: 'google-trending-rss',
    geo,
    query: item.query,
    approx_traffic: item.approxTraffic,
    published: item.published,
    news: item.news,
  };
}

/** One line for a terminal or a summary: "US, 10K+ searches; news: Title (Source), …". */
export function describeDiscovery(evidence: DiscoveryEvidence): string {
  const news = evidence.news.slice(0, 3).map((n) => `${n.title} (${n.source})`);
  return `trending in ${evidence.geo}, ${evidence.approx_traffic || 'unknown'} searches${news.length ? `; news: ${news.join('; ')}` : ''}`;
}
