// One interface over every Google Trends answer the research run uses. Each
// provider (google, replay, synthetic) returns the normalised shapes of
// domain/trends/answers.ts (re-exported here for the adapters).
import type { TrendsRequest, TrendsResponse } from '../domain/trends/answers.js';

export * from '../domain/trends/answers.js';

export interface TrendsProvider {
  readonly name: 'google' | 'replay' | 'synthetic';
  fetch(request: TrendsRequest): Promise<TrendsResponse>;
}

/** Google is throttling us (429 or a redirect to its "sorry" page): wait, do not fail. */
export class RateLimitedError extends Error {
  override name = 'RateLimitedError';
}

/**
 * Google answered 400: the request, or a proxy in the way (pytrends #602), is
 * at fault. The route that got it pauses and the request goes elsewhere; a
 * request refused on every route fails.
 */
export class RefusedError extends Error {
  override name = 'RefusedError';
}

/** The answer is not what Google's API returns: retrying will not help. */
export class MalformedResponseError extends Error {
  override name = 'MalformedResponseError';
}

/** The replay provider has no recording of this request, and never invents one. */
export class NotRecordedError extends Error {
  override name = 'NotRecordedError';
}

/** A stable key for a request: same request, same key (used for job ids and replay lookups). */
export function requestKey(request: TrendsRequest): string {
  const sorted = Object.fromEntries(Object.entries(request).sort(([a], [b]) => a.localeCompare(b)));
  return JSON.stringify(sorted);
}

export function describeRequest(request: TrendsRequest): string {
  switch (request.kind) {
    case 'interestOverTime':
      return `interest over time for ${request.keywords.map((k) => `"${k}"`).join(', ')} (${request.timeframe}${request.geo ? `, ${request.geo}` : ''})`;
    case 'relatedQueries':
    case 'relatedTopics':
      return `${request.kind === 'relatedQueries' ? 'related queries' : 'related topics'} for "${request.keyword}" (${request.timeframe})`;
    case 'interestByRegion':
      return `interest by ${request.resolution.toLowerCase()} for ${request.keywords.map((k) => `"${k}"`).join(', ')}${request.geo ? ` in ${request.geo}` : ' worldwide'}`;
    case 'autocomplete':
      return `autocomplete for "${request.term}"`;
    case 'trendingFeed':
      return `trending searches feed for ${request.geo}`;
    case 'explore':
      return `${request.parts.join(', ')} for ${request.keywords.map((k) => `"${k}"`).join(', ')} (${request.timeframe}${request.geo ? `, ${request.geo}` : ''})`;
  }
}
