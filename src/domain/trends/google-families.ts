// Google rations its endpoints by family, not request by request: the explore
// family is a token bucket (about 90, refilled at 60–120 a minute, measured
// 2026-09-09), embed pages have a quota of their own (6 s apart), while widget
// data, autocomplete and the trending feed are paced apart. Counting requests
// per family is what tells which of them a research run or a refresh spends
// (bench:google, /metrics `google_trends_https_total`).

export const GOOGLE_FAMILIES = ['explore', 'widgetdata', 'autocomplete', 'embed', 'trending', 'page'] as const;
/** `page`: the home and cookie pages a route loads for its NID cookie, rationed with the address's requests. */
export type GoogleFamily = (typeof GOOGLE_FAMILIES)[number];

/**
 * The family of each kind of HTTPS exchange the client makes (src/providers/google/exchange.ts's
 * EXCHANGE_KINDS; test/unit/google-families.test.ts checks every kind has one). The embed flow's
 * data request is `widgetdata/relatedsearches` with an embed token: widget data, as its path says.
 */
export const FAMILY_OF_EXCHANGE: Readonly<Record<string, GoogleFamily>> = {
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

/** The family of an exchange kind; an unknown kind (a newer client) is counted as a page rather than dropped. */
export const familyOfExchange = (kind: string): GoogleFamily => FAMILY_OF_EXCHANGE[kind] ?? 'page';

/** Requests by family, every family present (0 when none was made). */
export type FamilyCounts = Record<GoogleFamily, number>;

export const emptyFamilyCounts = (): FamilyCounts => Object.fromEntries(GOOGLE_FAMILIES.map((f) => [f, 0])) as FamilyCounts;

/** Counts per family divided by `units` (research runs, refreshed insights), to two decimals. */
export function perUnit(counts: FamilyCounts, units: number): FamilyCounts & { total: number } {
  const round = (x: number) => Math.round(x * 100) / 100;
  const out = Object.fromEntries(GOOGLE_FAMILIES.map((f) => [f, round(counts[f] / Math.max(1, units))])) as FamilyCounts;
  const total = GOOGLE_FAMILIES.reduce((s, f) => s + counts[f], 0);
  return { ...out, total: round(total / Math.max(1, units)) };
}
