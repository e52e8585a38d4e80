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
