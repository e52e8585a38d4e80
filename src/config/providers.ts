// The search-data providers: TRENDS_* (which providers, pacing Google) and DATAFORSEO_*.
import path from 'node:path';
import { parseProxyUrl, ProxyUrlError } from '../domain/proxy-url.js';
import { PROVIDER_NAMES, providerLabel, type ProviderName } from '../domain/trends/capabilities.js';
import { EnvReader } from './env-reader.js';
import { PROJECT_ROOT } from './project-root.js';

export interface TrendsConfig {
  /**
   * Where search data comes from, in order of preference (TRENDS_PROVIDER, a
   * comma list): each request goes to the first that has its capability
   * (domain/trends/capabilities.ts). `provider` is the same list as a run
   * records it, e.g. "google+dataforseo".
   */
  readonly providers: readonly ProviderName[];
  readonly provider: string;
  /** HTTPS requests to live Google per minute per egress route, across all workers (pages included); 0 = no pacing. */
  readonly requestsPerMinute: number;
  /** HTTP CONNECT proxies requests to Google leave through, each with its own rate and pause; empty = direct. */
  readonly proxyUrls: readonly string[];
  /**
   * The fixed term every idea is compared with to calibrate demand (step compare_anchor),
   * and its maps when the two are comparable (17, 18). Unset: "weather", or
   * "bagel" for replay (see anchorTermFor).
   */
  readonly anchor: string | undefined;
  /** How research runs ask Google Trends: "batched" (few requests, the default) or "single" (one keyword per request, the baseline). */
  readonly requestPlan: TrendsPlanName;
  /** Geography of interest-over-time requests ('' = worldwide). */
  readonly geo: string;
  /** Recorded Google Trends exchanges served by the replay provider; the repository's own by default. */
  readonly recordedDir: string;
  /** Each synthetic Trends answer takes this long (load and chaos tests: runs then last as long as real ones, in proportion). */
  readonly syntheticLatencyMs: number;
  /** First cooldown of a route after Google blocks it; doubles per block in a row. */
  readonly cooldownMs: number;
  /** The longest cooldown. */
  readonly cooldownMaxMs: number;
  /** How long a route that got a 400 from Google is left alone (its requests go to other routes). */
  readonly refusedPauseMs: number;
  /** How long a step or refresh waits for a trends answer before sleeping (without spending an attempt). */
  readonly waitMs: number;
  /** Overall deadline of one Google Trends request, all its HTTPS exchanges included. */
  readonly requestTimeoutMs: number;
  /** Gap between two embed pages (related lists) of one egress route: the embed flow's own quota. */
  readonly embedGapMs: number;
  /** How long a route's embed pages wait after a token over the embed quota; doubles while it keeps happening. */
  readonly embedCooldownMs: number;
}

export interface DataForSeoConfig {
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

/** How a research run asks Google for what its steps need (research/trends-plan.ts builds each). */
export const TRENDS_PLANS = ['batched', 'single'] as const;
export type TrendsPlanName = (typeof TRENDS_PLANS)[number];

export function loadTrendsSection(read: EnvReader): TrendsConfig {
  const providers = read.list('TRENDS_PROVIDER', 'google').filter((name, i, all) => {
    read.check(
      (PROVIDER_NAMES as readonly string[]).includes(name),
      `TRENDS_PROVIDER must list providers among ${PROVIDER_NAMES.join(', ')}, in order of preference, e.g. "google" or "google,dataforseo" (got "${name}")`,
    );
    read.check(all.indexOf(name) === i, `TRENDS_PROVIDER lists "${name}" twice`);
    return (PROVIDER_NAMES as readonly string[]).includes(name) && all.indexOf(name) === i;
  }) as ProviderName[];
  if (providers.length === 0) providers.push('google');
  // A simulated world beside real data would publish simulated research as real (and pay for its search volume).
  read.check(
    !providers.includes('synthetic') || providers.length === 1,
    'TRENDS_PROVIDER: synthetic is a simulated world and cannot be combined with other providers',
  );
  const section = {
    providers: Object.freeze(providers),
    provider: providerLabel(providers),
    // Live Google only (replay and synthetic are local). 10 a minute, one request every 6 s: under the
    // 10–15 a minute peers report before a block since 2025-03 (trendspy #13), where 500 requests 5 s
    // apart passed in 2024 (trendspy #4). docs/operations.md, "Pacing Google".
    requestsPerMinute: read.integer('TRENDS_REQUESTS_PER_MINUTE', 10, 0, 100_000),
    proxyUrls: Object.freeze(read.list('TRENDS_PROXY_URLS')),
    anchor: read.text('TRENDS_ANCHOR'),
    requestPlan: read.oneOf('TRENDS_REQUEST_PLAN', TRENDS_PLANS, 'batched'),
    geo: read.text('TRENDS_GEO') ?? '',
    recordedDir: path.resolve(PROJECT_ROOT, read.text('RECORDED_TRENDS_DIR') ?? 'data/google-trends-recorded'),
    syntheticLatencyMs: read.integer('SYNTHETIC_LATENCY_MS', 0, 0, 60_000),
    cooldownMs: read.integer('TRENDS_COOLDOWN_MS', 600_000, 100, 86_400_000),
    cooldownMaxMs: read.integer('TRENDS_COOLDOWN_MAX_MS', 3_600_000, 100, 86_400_000),
    refusedPauseMs: read.integer('TRENDS_REFUSED_PAUSE_MS', 600_000, 100, 86_400_000),
    waitMs: read.integer('TRENDS_WAIT_MS', 20_000, 100, 600_000),
    requestTimeoutMs: read.integer('TRENDS_REQUEST_TIMEOUT_MS', 20_000, 100, 300_000),
    // Embed pages 3 s apart were refused, 6–8 s apart served (trendspy #17, 2025-10-22).
    embedGapMs: read.integer('TRENDS_EMBED_GAP_MS', 8_000, 0, 3_600_000),
    embedCooldownMs: read.integer('TRENDS_EMBED_COOLDOWN_MS', 300_000, 100, 86_400_000),
  };
  const proxyNames: string[] = [];
  section.proxyUrls.forEach((proxy, i) => {
    try {
      proxyNames.push(parseProxyUrl(proxy).name);
    } catch (error) {
      if (!(error instanceof ProxyUrlError)) throw error;
      read.check(
        false,
        `TRENDS_PROXY_URLS: entry ${i + 1} of ${section.proxyUrls.length} (${error.shown ?? 'not shown: it may hold a password'}) is not an HTTP CONNECT proxy URL: ${error.reason}`,
      );
    }
  });
  read.check(new Set(proxyNames).size === proxyNames.length, 'TRENDS_PROXY_URLS lists the same proxy twice');
  read.check(
    section.geo === '' || /^[A-Z]{2}(-[A-Z0-9]{1,3})?$/.test(section.geo),
    `TRENDS_GEO must be empty (worldwide) or a country code such as US or US-CA (got "${section.geo}")`,
  );
  read.check(
    section.cooldownMaxMs >= section.cooldownMs,
    `TRENDS_COOLDOWN_MAX_MS (${section.cooldownMaxMs}) must not be below TRENDS_COOLDOWN_MS (${section.cooldownMs})`,
  );
  return Object.freeze(section);
}

export function loadDataForSeoSection(read: EnvReader, trends: TrendsConfig): DataForSeoConfig {
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
    !trends.providers.includes('dataforseo') || (section.login !== undefined && section.password !== undefined),
    'TRENDS_PROVIDER names dataforseo: set DATAFORSEO_LOGIN and DATAFORSEO_PASSWORD (the API login and password of app.dataforseo.com/api-access, not the account e-mail)',
  );
  return Object.freeze(section);
}
