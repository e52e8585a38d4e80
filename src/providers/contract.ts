// What every provider keeps to: one interface over every Google Trends answer
// the research run uses, and the errors that tell a wait from a failure. Each
// provider (google, dataforseo, trends-api, replay, synthetic) returns the
// normalised shapes of domain/trends/answers.ts, which every file imports from
// there (the domain reads them too, and cannot import this floor).
import type { TrendsRequest, TrendsResponse } from '../domain/trends/answers.js';
import { capabilityOf, CAPABILITY_WORDS } from '../domain/trends/capabilities.js';
import type { BlockKind, EndpointFamily } from './google/families.js';
import type { ProviderName } from './registry.js';

export interface TrendsProvider {
  readonly name: ProviderName;
  fetch(request: TrendsRequest): Promise<TrendsResponse>;
}

/**
 * The provider is throttling us: wait, do not fail. Google's (a block of the route's family, or its
 * explore family's rate limit) carries its block kind and family; DataForSEO and the Trends API throw
 * it too (as `too_many_429`, with their Retry-After), and the router, the gateways and the step runner
 * catch it whoever threw it. So it stays in the shared contract, typed with Google's block kinds and
 * families (./google/families.ts), which the others leave at their defaults.
 */
export class RateLimitedError extends Error {
  override name = 'RateLimitedError';
  /** The endpoint family Google refused (set by the client when it knows it): the route's other families stay open. */
  family?: EndpointFamily;
  constructor(
    message: string,
    readonly block: BlockKind = 'too_many_429',
    /** Google's Retry-After, when it sent one: no request on the route before it has passed. */
    readonly retryAfterMs?: number,
    /** A plain 429 with no new cookie where the cookie gate hands one out: the explore family's token bucket is empty, not a block. */
    readonly rateLimit = false,
  ) {
    super(message);
  }
}

/**
 * Google answered 400: the request, or a proxy in the way (pytrends #602), is
 * at fault. The route that got it pauses and the request goes elsewhere; a
 * request refused on every route fails.
 */
export class RefusedError extends Error {
  override name = 'RefusedError';
}

/**
 * The provider refused this service's access, not the request (the Trends API's PERMISSION_DENIED: a
 * project not on its allow-list). Still a refusal (the request fails), but the operator's to fix, and
 * told to clients as such (public-error.ts's notAllowed).
 */
export class AccessRefusedError extends RefusedError {
  override name = 'AccessRefusedError';
}

/** The answer is not what Google's API returns: retrying will not help. */
export class MalformedResponseError extends Error {
  override name = 'MalformedResponseError';
}

/** The provider has no such capability (domain/trends/capabilities.ts); the router never asks it, so this is a bug caught. */
export class NotAvailableError extends Error {
  override name = 'NotAvailableError';
  constructor(provider: ProviderName, request: Exclude<TrendsRequest, { kind: 'explore' }>, why?: string) {
    super(`${provider} does not answer ${CAPABILITY_WORDS[capabilityOf(request)]}${why ? ` ${why}` : ''}`);
  }
}

/**
 * A paid provider refused the account, not the request: wrong login or
 * password, or no money left. Nothing a retry of the request changes until an
 * operator acts, so the run waits (with this message) instead of failing.
 */
export class ProviderAccountError extends Error {
  override name = 'ProviderAccountError';
  constructor(
    message: string,
    /** credentials: the login, or the account's access; balance: money; configuration: DATAFORSEO_API_URL. */
    readonly problem: 'credentials' | 'balance' | 'configuration',
  ) {
    super(message);
  }
}

/** The provider is down or erred on its side (5xx, a timeout, a dropped connection): try again later. */
export class ProviderUnavailableError extends Error {
  override name = 'ProviderUnavailableError';
}

/** The replay provider has no recording of this request, and never invents one. */
export class NotRecordedError extends Error {
  override name = 'NotRecordedError';
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
    case 'searchVolume':
      return `monthly searches and cost per click for ${request.keywords.map((k) => `"${k}"`).join(', ')} in ${request.geo || 'the world'}`;
    case 'explore':
      return `${request.parts.join(', ')} for ${request.keywords.map((k) => `"${k}"`).join(', ')} (${request.timeframe}${request.geo ? `, ${request.geo}` : ''})`;
  }
}
