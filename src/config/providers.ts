// The search-data providers: TRENDS_* (which providers, pacing Google); each provider's own section (DATAFORSEO_*, RECORDED_TRENDS_DIR, SYNTHETIC_LATENCY_MS) is declared in its profile (src/providers/<name>/profile.ts) and read here through the registry.
import { readFileSync } from 'node:fs';
import { parseServiceAccountKey, projectOfKey, unreadableKey } from '../domain/trends/trends-api/service-account-key.js';
import { parseProxyUrl, ProxyUrlError } from '../domain/proxy-url.js';
import {
  kindOfProviders,
  PROVIDER_NAMES,
  PROVIDERS,
  providerLabel,
  type ProviderName,
  type ProviderSettings,
} from '../providers/registry.js';
import { EnvReader } from './env-reader.js';

/**
 * The trends section (TRENDS_*) holds two things under one name, kept so the variables operators set do not change:
 * every provider's (`providers`, `provider`, `anchor`, `requestPlan`, `geo`, `waitMs`) and live Google's alone, its
 * pace and egress routes (`requestsPerMinute`, `proxyUrls`, `cooldownMs`, `cooldownMaxMs`, `refusedPauseMs`,
 * `requestTimeoutMs`, `embedGapMs`, `embedCooldownMs`, `exploreBurst`, `exploreRefillPerMinute`, `consentCookies`),
 * which the egress pool and Google's client read (docs/internals.md, "Adding a provider").
 */
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
  /** The explore family's bucket per route (Google's: a burst of 89–102, gtrends 2026-09-09); 0: no bucket. */
  readonly exploreBurst: number;
  /** The explore bucket's refill a minute before one is learned, and the least and most it is learned to. */
  readonly exploreRefillPerMinute: { readonly first: number; readonly least: number; readonly most: number };
  /**
   * Each egress route's consent cookie, by route name (TRENDS_CONSENT_COOKIES,
   * "host:port=SOCS=…" entries): a route at an EU address is answered with
   * consent.google.com until it sends one. Not a secret, but never logged.
   */
  readonly consentCookies: Readonly<Record<string, string>>;
}

/**
 * How a research run asks Google for what its steps need (research/trends-plan.ts builds each):
 * `batched` (the default); `shared` asks one explore for the phrase's maps and both related lists (opt-in:
 * bench:google of 2026-11-29 measured it no better under late-2026 limits, see docs/benchmarks.md);
 * `single` one keyword a request (the accuracy baseline).
 */
export const TRENDS_PLANS = ['shared', 'batched', 'single'] as const;
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
  const simulated = providers.filter((name) => kindOfProviders(name) === 'simulated');
  read.check(
    simulated.length === 0 || providers.length === 1,
    `TRENDS_PROVIDER: ${simulated.join(', ')} is a simulated world and cannot be combined with other providers`,
  );
  const consentEntries = read.list('TRENDS_CONSENT_COOKIES');
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
    cooldownMs: read.integer('TRENDS_COOLDOWN_MS', 600_000, 100, 86_400_000),
    cooldownMaxMs: read.integer('TRENDS_COOLDOWN_MAX_MS', 3_600_000, 100, 86_400_000),
    refusedPauseMs: read.integer('TRENDS_REFUSED_PAUSE_MS', 600_000, 100, 86_400_000),
    waitMs: read.integer('TRENDS_WAIT_MS', 20_000, 100, 600_000),
    requestTimeoutMs: read.integer('TRENDS_REQUEST_TIMEOUT_MS', 20_000, 100, 300_000),
    // Embed pages 3 s apart were refused, 6–8 s apart served (trendspy #17, 2025-10-22).
    embedGapMs: read.integer('TRENDS_EMBED_GAP_MS', 8_000, 0, 3_600_000),
    embedCooldownMs: read.integer('TRENDS_EMBED_COOLDOWN_MS', 300_000, 100, 86_400_000),
    // Google's explore limit is a token bucket: a burst of 89–102, refilled at 60–120 a minute (gtrends,
    // live_integration, 2026-09-09: 60 a minute for 7 minutes never emptied it). The refill is learned from
    // Google's rate-limit 429s between the least (half the first) and the most (twice it).
    exploreBurst: read.integer('TRENDS_EXPLORE_BURST', 90, 0, 100_000),
    exploreRefillPerMinute: ((first: number) => Object.freeze({ first, least: first / 2, most: first * 2 }))(
      read.integer('TRENDS_EXPLORE_REFILL_PER_MINUTE', 60, 1, 1_000_000),
    ),
    // An EU address is answered with consent.google.com until it sends a consent cookie (an actor's fix,
    // 2026-05-13): "route=cookie" entries, the route named as `insights budget` names it (host:port, or direct).
    consentCookies: Object.freeze(
      Object.fromEntries(
        consentEntries.flatMap((entry) => {
          const at = entry.indexOf('=');
          // Not "route=COOKIE": reported below by its position, never echoed (it may be a cookie).
          return at > 0 && at < entry.length - 1 ? [[entry.slice(0, at).trim(), entry.slice(at + 1).trim()]] : [];
        }),
      ) as Record<string, string>,
    ),
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
  const routeNames = proxyNames.length > 0 || section.proxyUrls.length > 0 ? proxyNames : ['direct'];
  consentEntries.forEach((entry, i) => {
    const at = entry.indexOf('=');
    read.check(
      at > 0 && at < entry.length - 1,
      `TRENDS_CONSENT_COOKIES: entry ${i + 1} of ${consentEntries.length} (not shown: it may be a cookie) is not "route=COOKIE": write comma-separated entries, one per egress route, each the route's name (${routeNames.join(', ')}), "=", and the consent cookie as NAME=VALUE pairs joined by "; ", e.g. direct=SOCS=CAI…; CONSENT=YES+ (docs/operations.md, "EU consent")`,
    );
  });
  // A route given two cookies would keep the last one silently (outside review of issue 51).
  const consentRoutes = consentEntries
    .filter((entry) => entry.indexOf('=') > 0 && entry.indexOf('=') < entry.length - 1)
    .map((entry) => entry.slice(0, entry.indexOf('=')).trim());
  const twice = consentRoutes.find((route, i) => consentRoutes.indexOf(route) !== i);
  read.check(twice === undefined, `TRENDS_CONSENT_COOKIES gives route "${twice}" more than one cookie: keep one entry per route`);
  for (const [route, cookie] of Object.entries(section.consentCookies)) {
    read.check(
      routeNames.includes(route),
      `TRENDS_CONSENT_COOKIES names route "${route}", which is not one of the egress routes (${routeNames.join(', ')}): write "host:port=COOKIE" for a proxy of TRENDS_PROXY_URLS, or "direct=COOKIE"`,
    );
    read.check(
      /^[A-Za-z0-9_]+=[^;\s]+(;\s*[A-Za-z0-9_]+=[^;\s]+)*$/.test(cookie),
      `TRENDS_CONSENT_COOKIES: the cookie for route "${route}" must be NAME=VALUE pairs joined by "; " (e.g. SOCS=CAI…; CONSENT=YES+)`,
    );
  }
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

/** Each provider's section, as its profile declares it (config reads the variables; the provider says which). */
export function loadProviderSettings(read: EnvReader, trends: TrendsConfig): ProviderSettings {
  const settings = Object.freeze(
    Object.fromEntries(PROVIDERS.map((p) => [p.name, Object.freeze(p.settings(read, trends.providers))])),
  ) as ProviderSettings;
  // A missing or wrong key file is said at start, not found by research that then waits for it without end
  // (outside review of issue 51, 2026-11-29). A profile is plain data, so the file is read here.
  const keyFile = settings['trends-api'].credentialsFile;
  if (trends.providers.includes('trends-api') && keyFile !== undefined) {
    const problem = serviceAccountKeyProblem(keyFile, settings['trends-api'].project);
    read.check(problem === undefined, problem ?? '');
  }
  return settings;
}

/**
 * Why the file at `credentialsFile` is not a readable service account key that can sign, or why no project
 * would be sent (neither TRENDS_API_PROJECT nor the key names one); undefined when all is there.
 */
function serviceAccountKeyProblem(credentialsFile: string, project: string | undefined): string | undefined {
  let text: string;
  try {
    text = readFileSync(credentialsFile, 'utf8');
  } catch (error) {
    return unreadableKey(credentialsFile, error);
  }
  const parsed = parseServiceAccountKey(credentialsFile, text);
  if ('problem' in parsed) return parsed.problem;
  if (project === undefined && projectOfKey(parsed) === undefined)
    return `no project to send as X-Goog-User-Project: set TRENDS_API_PROJECT to the allow-listed project (the key in GOOGLE_APPLICATION_CREDENTIALS (${credentialsFile}) names none)`;
  return undefined;
}
