// DataForSEO's paid APIs, what they answer, cost and allow. Plain data
// (src/providers/registry.ts lists it); the client, format and paced, billed gateway are beside it.
import type { ProviderProfile } from '../../domain/trends/provider-profile.js';

export interface DataForSeoSection {
  /** The API login and password (app.dataforseo.com/api-access), sent as Basic auth; never logged. */
  readonly login: string | undefined;
  readonly password: string | undefined;
  /** Without a trailing slash; tests point it at the loopback DataForSEO. */
  readonly apiUrl: string;
  /** Tasks a minute across all workers (its Trends live endpoint allows 250). */
  readonly requestsPerMinute: number;
  /** Deadline of one request to it, answer included. */
  readonly requestTimeoutMs: number;
  /** How long a job waits before asking again when the account is refused or it is down; the longest wait for its pace. */
  readonly retryMs: number;
}

/**
 * Countries by ISO code, with DataForSEO's location code (Google Ads' geo
 * target: 2000 + the ISO 3166 numeric code) and name. A market outside it is
 * refused with the list, rather than asked worldwide.
 */
export const DATAFORSEO_COUNTRIES: Readonly<Record<string, { code: number; name: string }>> = Object.freeze(
  Object.fromEntries(
    (
      [
        ['AR', 32, 'Argentina'],
        ['AT', 40, 'Austria'],
        ['AU', 36, 'Australia'],
        ['BE', 56, 'Belgium'],
        ['BR', 76, 'Brazil'],
        ['CA', 124, 'Canada'],
        ['CH', 756, 'Switzerland'],
        ['DE', 276, 'Germany'],
        ['DK', 208, 'Denmark'],
        ['ES', 724, 'Spain'],
        ['FI', 246, 'Finland'],
        ['FR', 250, 'France'],
        ['GB', 826, 'United Kingdom'],
        ['ID', 360, 'Indonesia'],
        ['IE', 372, 'Ireland'],
        ['IN', 356, 'India'],
        ['IT', 380, 'Italy'],
        ['JP', 392, 'Japan'],
        ['KR', 410, 'South Korea'],
        ['MX', 484, 'Mexico'],
        ['NG', 566, 'Nigeria'],
        ['NL', 528, 'Netherlands'],
        ['NO', 578, 'Norway'],
        ['NZ', 554, 'New Zealand'],
        ['PH', 608, 'Philippines'],
        ['PL', 616, 'Poland'],
        ['PT', 620, 'Portugal'],
        ['SE', 752, 'Sweden'],
        ['SG', 702, 'Singapore'],
        ['TR', 792, 'Turkey'],
        ['US', 840, 'United States'],
        ['ZA', 710, 'South Africa'],
      ] as const
    ).map(([iso, numeric, name]) => [iso, { code: 2000 + numeric, name }]),
  ),
);

export const dataforseo = {
  name: 'dataforseo',
  kind: 'live',
  summary: "DataForSEO's paid APIs: Google Trends explore, and Google Ads search volume with cost per click",
  pacing:
    'asked directly, paced in Redis across every process: DATAFORSEO_REQUESTS_PER_MINUTE Trends tasks and 11 Google Ads tasks a minute; the same request answered once a UTC day; billed per task',
  // Its Trends explore has no city map, no topic autocomplete and no trending feed.
  capabilities: ['series', 'regions', 'relatedQueries', 'relatedTopics', 'searchVolume', 'costPerClick'],
  termsPerRequest: 5,
  paid: true,
  // $0.009 per Trends live task is what answers seen by other clients carried; $0.075 per Google Ads live
  // task is its listed live price for the Ads family, not confirmed for search volume (2026-11).
  priceUsd: { explore: 0.009, searchVolume: 0.075 },
  source: 'DataForSEO',
  publicName: 'DataForSEO',
  listedBy: "DataForSEO's Google Trends explore",
  // It is asked by country: a market outside its table is refused when the run is submitted, not at its first series.
  markets: Object.keys(DATAFORSEO_COUNTRIES),
  settings: (read, configured): DataForSeoSection => {
    const section = {
      login: read.text('DATAFORSEO_LOGIN'),
      password: read.text('DATAFORSEO_PASSWORD'),
      apiUrl: (read.url('DATAFORSEO_API_URL', ['https:', 'http:']) ?? 'https://api.dataforseo.com').replace(/\/+$/, ''),
      // Its Trends live endpoint takes 250 tasks a minute per account (issue 38's reading of its docs); a margin under it.
      requestsPerMinute: read.integer('DATAFORSEO_REQUESTS_PER_MINUTE', 200, 1, 2_000),
      requestTimeoutMs: read.integer('DATAFORSEO_REQUEST_TIMEOUT_MS', 60_000, 100, 300_000),
      // How long a job waits before asking again when the account is refused or DataForSEO is down (and at most for its pace).
      retryMs: read.integer('DATAFORSEO_RETRY_MS', 300_000, 100, 3_600_000),
    };
    // The password goes in every request's header: plain HTTP only to this machine (the loopback DataForSEO of tests).
    const url = URL.canParse(section.apiUrl) ? new URL(section.apiUrl) : undefined;
    if (url) {
      read.check(
        url.protocol === 'https:' || ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname),
        `DATAFORSEO_API_URL must use https: (plain http only to this machine; got ${url.protocol}//${url.hostname})`,
      );
      // A login in the address would be printed wherever the address is (the start banner): it goes in DATAFORSEO_LOGIN.
      read.check(
        url.username === '' && url.password === '',
        'DATAFORSEO_API_URL must not carry a login: set DATAFORSEO_LOGIN and DATAFORSEO_PASSWORD',
      );
    }
    read.check(
      !configured.includes('dataforseo') || (section.login !== undefined && section.password !== undefined),
      'TRENDS_PROVIDER names dataforseo: set DATAFORSEO_LOGIN and DATAFORSEO_PASSWORD (the API login and password of app.dataforseo.com/api-access, not the account e-mail)',
    );
    return Object.freeze(section);
  },
} as const satisfies ProviderProfile<'dataforseo', DataForSeoSection>;
