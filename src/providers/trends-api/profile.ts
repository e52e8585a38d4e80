// Google's own Trends API (alpha since 2025-07-24, open only to projects on
// its allow-list), what it answers and how it is asked. Plain data
// (src/providers/registry.ts lists it); the sign-in, client and provider are beside it.
import type { ProviderProfile } from '../../domain/trends/provider-profile.js';

export interface TrendsApiSection {
  /** The service account's JSON key (GOOGLE_APPLICATION_CREDENTIALS): checked at start (config/providers.ts), read again when the provider is first asked, never logged. */
  readonly credentialsFile: string | undefined;
  /** The Google Cloud project sent as X-Goog-User-Project (the one on the allow-list); the key's own project when unset. */
  readonly project: string | undefined;
  /** Without a trailing slash; tests point it at the loopback Trends API. */
  readonly apiUrl: string;
  /** Where the signed assertion is exchanged for an access token; tests point it at the loopback token endpoint. */
  readonly tokenUrl: string;
  /** Requests (one term each) a minute across all workers. */
  readonly requestsPerMinute: number;
  /** Deadline of one request: the POST and every poll of its operation until it is done. */
  readonly requestTimeoutMs: number;
  /** Gap between two polls of a long-running operation. */
  readonly pollMs: number;
  /** How long a job waits before asking again when the API is down or the credentials are refused; the longest quota wait. */
  readonly retryMs: number;
}

const LOOPBACK = ['127.0.0.1', 'localhost', '[::1]'];

export const trendsApi = {
  name: 'trends-api',
  kind: 'live',
  summary:
    "Google's official Trends API (alpha, allow-listed projects only): series at every resolution and regions, consistently scaled across requests",
  pacing:
    'asked directly, paced in Redis across every process: TRENDS_API_REQUESTS_PER_MINUTE requests (one term each) a minute; the same request answered once a UTC day; its quota counted in data points',
  // Series (daily to yearly, a rolling 1,800 days ending two days ago) and regions (ISO 3166-2); no related
  // lists, no autocomplete, no trending feed, no city map.
  capabilities: ['series', 'regions'],
  // The API asks one term per request: a comparison of up to 5 terms (what a step asks at once) is that many
  // requests, on one scale (searchInterest).
  termsPerRequest: 5,
  // searchInterest is one scale across requests: demand is the phrase's own 12-month mean against a fixed level of
  // that scale, no anchor term asked. 10 is a choice (docs/providers.md, "Demand and reach from searchInterest"):
  // the level an idea searched as much as the anchor of other providers' runs ("weather") would need is not published.
  comparableScale: { values: 'searchInterest', reference: 10 },
  paid: false,
  meteredIn: 'data points',
  priceUsd: {},
  source: 'the Google Trends API',
  publicName: 'the Google Trends API',
  listedBy: 'the Google Trends API',
  settings: (read, configured): TrendsApiSection => {
    const section = {
      credentialsFile: read.text('GOOGLE_APPLICATION_CREDENTIALS'),
      project: read.text('TRENDS_API_PROJECT'),
      apiUrl: (read.url('TRENDS_API_URL', ['https:', 'http:']) ?? 'https://trends.googleapis.com').replace(/\/+$/, ''),
      tokenUrl: read.url('TRENDS_API_TOKEN_URL', ['https:', 'http:']) ?? 'https://oauth2.googleapis.com/token',
      requestsPerMinute: read.integer('TRENDS_API_REQUESTS_PER_MINUTE', 60, 1, 10_000),
      requestTimeoutMs: read.integer('TRENDS_API_REQUEST_TIMEOUT_MS', 120_000, 100, 600_000),
      pollMs: read.integer('TRENDS_API_POLL_MS', 1_000, 10, 60_000),
      retryMs: read.integer('TRENDS_API_RETRY_MS', 300_000, 100, 3_600_000),
    };
    // A bearer token goes in every request, a signed assertion to the token endpoint: plain HTTP only to this machine.
    for (const [name, value] of [
      ['TRENDS_API_URL', section.apiUrl],
      ['TRENDS_API_TOKEN_URL', section.tokenUrl],
    ] as const) {
      const url = URL.canParse(value) ? new URL(value) : undefined;
      if (url)
        read.check(
          url.protocol === 'https:' || LOOPBACK.includes(url.hostname),
          `${name} must use https: (plain http only to this machine; got ${url.protocol}//${url.hostname})`,
        );
    }
    read.check(
      !configured.includes('trends-api') || section.credentialsFile !== undefined,
      "TRENDS_PROVIDER names trends-api: set GOOGLE_APPLICATION_CREDENTIALS to the service account's JSON key (of a project on the Trends API's allow-list)",
    );
    return Object.freeze(section);
  },
} as const satisfies ProviderProfile<'trends-api', TrendsApiSection>;
