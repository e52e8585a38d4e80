// Google rations its endpoints by family, not request by request: the explore
// family is a token bucket (about 90, refilled at 60–120 a minute, measured
// 2026-09-09), embed pages have a quota of their own (6 s apart), while widget
// data, autocomplete and the trending feed are paced apart. One table says which
// family each kind of exchange is: counted with its own `page` column (/metrics
// `google_trends_https_total`, bench:google), paced and blocked as Google limits
// it (the egress pool, the route budget, `insights google check`).
import type { TrendsRequest } from '../../domain/trends/answers.js';

/**
 * How Google blocked a route: a 302 to www.google.com/sorry, its plain "Error
 * 429 (Too Many Requests)" page, a 403, or an "unusual traffic" page under
 * another status. Counted per route by kind (`insights budget`, /metrics).
 */
export const BLOCK_KINDS = ['sorry_302', 'too_many_429', 'forbidden_403', 'unusual_traffic'] as const;
export type BlockKind = (typeof BLOCK_KINDS)[number];

/**
 * Google's endpoint families as it limits them: each is limited and blocked on its own (gtrends,
 * `live_integration/`, 2026-09-09: with the explore family at 429, autocomplete, widgetdata and the
 * trending RPC kept answering). `explore` is `/trends/api/explore` and the pages that hand out its
 * cookie, `widgetdata` the widgets' data (the embed flow's included), `embed` the embed pages,
 * `trending` the feed, the Trending Now RPC and the `/trending` page.
 */
export const ENDPOINT_FAMILIES = ['explore', 'widgetdata', 'autocomplete', 'embed', 'trending'] as const;
export type EndpointFamily = (typeof ENDPOINT_FAMILIES)[number];

/** The families requests are counted by: Google's, and `page` (the home and cookie pages a route loads for its NID cookie) apart. */
export const COUNTED_FAMILIES = [...ENDPOINT_FAMILIES, 'page'] as const;
export type CountedFamily = (typeof COUNTED_FAMILIES)[number];

/** The kinds of HTTPS exchange the product makes with Google (counted per kind in /metrics, checked by `insights google check`, classified in ./exchange.ts). */
export const EXCHANGE_KINDS = [
  'home_page',
  'cookie_page',
  'explore',
  'multiline',
  'comparedgeo',
  'relatedsearches',
  'embed_page',
  'embed_relatedsearches',
  'autocomplete',
  'trending_rss',
  'trending_rpc',
  'trending_page',
] as const;
export type ExchangeKind = (typeof EXCHANGE_KINDS)[number];

/**
 * The family of each kind of HTTPS exchange the client makes, as it is counted. The embed flow's
 * data request is `widgetdata/relatedsearches` with an embed token: widget data, as its path says.
 */
export const COUNTED_FAMILY_OF: Readonly<Record<ExchangeKind, CountedFamily>> = {
  home_page: 'page',
  cookie_page: 'page',
  explore: 'explore',
  multiline: 'widgetdata',
  comparedgeo: 'widgetdata',
  relatedsearches: 'widgetdata',
  embed_relatedsearches: 'widgetdata',
  embed_page: 'embed',
  autocomplete: 'autocomplete',
  trending_rss: 'trending',
  trending_rpc: 'trending',
  trending_page: 'trending',
};

/**
 * The family Google limits each counted family under. The cookie pages are paced and blocked with
 * explore: gtrends (2026-09-09) saw the explore page answer 429 together with /trends/api/explore,
 * so what the egress pool paces is what it paced before `page` was counted apart.
 */
const PACED_WITH: Readonly<Record<CountedFamily, EndpointFamily>> = {
  page: 'explore',
  explore: 'explore',
  widgetdata: 'widgetdata',
  autocomplete: 'autocomplete',
  embed: 'embed',
  trending: 'trending',
};

/** The endpoint family an exchange is paced, blocked and budgeted under. */
export const pacedFamilyOf = (kind: ExchangeKind): EndpointFamily => PACED_WITH[COUNTED_FAMILY_OF[kind]];

/** The family of a request's first HTTPS exchange: the one a route must have open to take it. */
export function firstFamilyOf(request: TrendsRequest): EndpointFamily {
  if (request.kind === 'autocomplete') return 'autocomplete';
  if (request.kind === 'trendingFeed') return 'trending';
  return 'explore';
}

/** Requests by counted family, every family present (0 when none was made). */
export type FamilyCounts = Record<CountedFamily, number>;

export const emptyFamilyCounts = (): FamilyCounts => Object.fromEntries(COUNTED_FAMILIES.map((f) => [f, 0])) as FamilyCounts;

/** Counts per family divided by `units` (research runs, refreshed insights), to two decimals. */
export function perUnit(counts: FamilyCounts, units: number): FamilyCounts & { total: number } {
  const round = (x: number) => Math.round(x * 100) / 100;
  const out = Object.fromEntries(COUNTED_FAMILIES.map((f) => [f, round(counts[f] / Math.max(1, units))])) as FamilyCounts;
  const total = COUNTED_FAMILIES.reduce((s, f) => s + counts[f], 0);
  return { ...out, total: round(total / Math.max(1, units)) };
}
