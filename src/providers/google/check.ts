// A live canary for `insights google check` and the scheduled `google-check`
// job: one request of each kind the product sends to Google, through one
// egress route, each reported as Google answered it (served, empty, no data,
// blocked, over the embed quota, refused, changed shape, or no answer) with its
// latency, and how Google labelled the client in its tokens. Google changes
// without notice; this is how an operator learns it did, before research and
// discovery start failing.
import { withEgress, type EgressRoute } from './egress/routes.js';
import {
  GoogleSession,
  MemoryCookieJar,
  wasNotSent,
  type CookieJar,
  type ExchangeOutcome,
  type ExchangeReport,
  type Pacer,
  type Widget,
} from './client.js';
import { RateLimitedError } from '../contract.js';
import { ConsentRequiredError, EmbedOverQuotaError } from './errors.js';
import { ENDPOINT_FAMILIES, pacedFamilyOf, type BlockKind, type EndpointFamily, type ExchangeKind } from './families.js';
import { trendingRoads } from './trending.js';
import { parseAutocomplete, parseComparedGeo, parseMultiline, parseRelated, parseTrendingFeed } from './format.js';
import { timeRange } from './provider.js';

/** Who needs each kind, and which answers are expected rather than broken. */
export const CHECKED_KINDS: ReadonlyArray<{
  kind: ExchangeKind;
  neededBy: 'research' | 'discovery';
  fine: readonly CheckOutcome[];
  note?: Partial<Record<CheckOutcome, string>>;
}> = [
  {
    kind: 'home_page',
    neededBy: 'research',
    fine: ['served'],
    note: { empty: 'the home page handed out no NID cookie (Google moved the cookie again)' },
  },
  {
    kind: 'cookie_page',
    neededBy: 'research',
    fine: ['served', 'not_asked'],
    note: {
      served: 'the explore page handed out the cookie the home page did not',
      not_asked: 'not needed: the home page handed out the cookie',
    },
  },
  { kind: 'explore', neededBy: 'research', fine: ['served'] },
  // No data for a term as searched as the anchor means Google may be feeding this client zeros.
  {
    kind: 'multiline',
    neededBy: 'research',
    fine: ['served'],
    note: { no_data: 'no data for a term everyone searches: Google may have flagged this client' },
  },
  {
    kind: 'comparedgeo',
    neededBy: 'research',
    fine: ['served'],
    note: { no_data: 'no place has data for a term everyone searches: Google may have flagged this client' },
  },
  {
    kind: 'relatedsearches',
    neededBy: 'research',
    fine: ['served', 'empty'],
    note: {
      empty: "expected: the explore page's own widgets serve automated clients empty related lists since 2024-08-20",
      served: "the explore page's widgets serve related lists again",
    },
  },
  {
    kind: 'embed_page',
    neededBy: 'research',
    fine: ['served', 'over_quota'],
    note: { over_quota: "the route's embed quota is spent (USER_TYPE_EMBED_OVER_QUOTA): its related lists wait; not a change of Google" },
  },
  {
    kind: 'embed_relatedsearches',
    neededBy: 'research',
    fine: ['served'],
    note: {
      empty:
        'the embed flow serves related queries empty: pain, intent, breadth and whitespace fall back to the modifier comparison and autocomplete',
      not_asked: 'not asked: the embed page gave no token to use',
    },
  },
  { kind: 'autocomplete', neededBy: 'research', fine: ['served', 'empty'] },
  // Discovery reads the first road that serves: one broken road is not broken discovery (GoogleCheck.families says).
  {
    kind: 'trending_rss',
    neededBy: 'discovery',
    fine: ['served', 'error', 'changed_shape'],
    note: { empty: 'the feed lists no trending search', error: 'the RSS feed failed: discovery reads the RPC or the page' },
  },
  {
    kind: 'trending_rpc',
    neededBy: 'discovery',
    fine: ['served', 'error', 'changed_shape'],
    note: { error: 'the Trending Now RPC failed: discovery reads the feed or the page' },
  },
  {
    kind: 'trending_page',
    neededBy: 'discovery',
    fine: ['served', 'error', 'changed_shape'],
    note: { error: 'the /trending page failed: discovery reads the feed or the RPC' },
  },
];

/** An endpoint family as the check found it: Google limits and blocks each on its own. */
export interface CheckedFamily {
  /** `ok`: what was asked answered as expected; `blocked` or `rate_limited`: Google refused the family (the others went on). */
  state: 'ok' | 'blocked' | 'rate_limited' | 'broken' | 'not_asked';
  kinds: ExchangeKind[];
}

export type CheckOutcome = ExchangeOutcome | 'not_asked';

export interface CheckedKind {
  kind: ExchangeKind;
  outcome: CheckOutcome;
  ms: number | null;
  neededBy: 'research' | 'discovery';
  broken: boolean;
  detail: string;
}

export interface GoogleCheck {
  checkedAt: string;
  route: string;
  geo: string;
  term: string;
  kinds: CheckedKind[];
  /** How Google labelled the client: in the explore page's tokens, and in the embed page's. */
  userType: { explore: string | null; embed: string | null };
  /** The kinds research or discovery needs that did not answer as they should. */
  broken: ExchangeKind[];
  /** Google blocked the check (how, and the wait it asked for): the route's pool is told, as for any job. */
  blocked?: { kind: BlockKind; retryAfterMs?: number };
  /** An embed token was over the embed quota. */
  overQuota: boolean;
  /** The route's pace stopped the check before a request (cooling, busy): the kinds after it were not asked, and are not broken. */
  stopped?: string;
  /** The first kind the route's pace stopped. */
  stoppedAt?: ExchangeKind;
  /** Google answered the route with its EU consent page (no consent cookie, or one it did not take): nothing more was asked. */
  consent?: string;
  /** Each endpoint family: a block of one stops only its own kinds (gtrends, 2026-09-09). */
  families: Record<EndpointFamily, CheckedFamily>;
}

export interface GoogleCheckOptions {
  route: EgressRoute;
  /** Country of the explore and of the trending feed ('' explores worldwide, and reads the US feed). */
  geo: string;
  /** A term everyone searches (the anchor). */
  term: string;
  timeoutMs: number;
  ca?: string | Buffer;
  now?: () => Date;
  /** The route's pace (the scheduled check runs inside it); none for a one-off check from the CLI. */
  pacers?: { pace: Pacer; paceEmbed: Pacer };
}

export async function checkGoogle(options: GoogleCheckOptions): Promise<GoogleCheck> {
  const { route, geo, term } = options;
  const now = options.now ?? (() => new Date());
  const reports = new Map<ExchangeKind, ExchangeReport>();
  const details = new Map<ExchangeKind, string>();
  // A jar of its own: the home page's cookie is one of the things checked, and the route's shared one stays as it is.
  const jar: CookieJar = new MemoryCookieJar();
  let stopped: string | undefined;
  let stoppedAt: ExchangeKind | undefined;
  let consent: string | undefined;
  /** The route's embed pages are waiting (its embed quota): the embed kinds are not asked, the others are. */
  let embedWaiting: string | undefined;
  let blockedBy: GoogleCheck['blocked'];
  const refusedFamilies = new Map<EndpointFamily, 'blocked' | 'rate_limited'>();
  let overQuota = false;
  let observed = 0;
  const observe = (r: ExchangeReport) => {
    observed += 1;
    reports.set(r.kind, r);
  };
  // Each kind gets a deadline of its own, so one that hangs does not hide the others.
  const ask = async <T>(
    kind: ExchangeKind,
    run: (session: GoogleSession) => Promise<T>,
    describe: (result: T) => string,
  ): Promise<T | undefined> => {
    if (stopped) return undefined;
    const before = observed;
    try {
      const result = await withEgress(
        route,
        options.timeoutMs,
        (agent, outsideDeadline) =>
          run(
            new GoogleSession(agent, route.name, {
              jar,
              ...options.pacers,
              outsideDeadline,
              observe,
              ...(route.consentCookie ? { consentCookie: route.consentCookie } : {}),
            }),
          ),
        {
          ca: options.ca,
        },
      );
      details.set(kind, describe(result));
      return result;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (error instanceof RateLimitedError) {
        blockedBy ??= { kind: error.block, ...(error.retryAfterMs === undefined ? {} : { retryAfterMs: error.retryAfterMs }) };
        refusedFamilies.set(error.family ?? pacedFamilyOf(kind), error.rateLimit ? 'rate_limited' : 'blocked');
      }
      if (error instanceof EmbedOverQuotaError) overQuota = true;
      // The EU consent page: the route is unusable as it is, for every kind alike; nothing more is asked.
      if (error instanceof ConsentRequiredError) {
        consent = message;
        stopped = message;
        stoppedAt = kind;
        return undefined;
      }
      // The route's pace or cooldown stopped the request before it went: the check stops there
      // (only its embed kinds, when it is the route's embed pages that wait).
      if (wasNotSent(error) && kind === 'embed_relatedsearches' && (error as { reason?: string }).reason === 'embed_quota')
        embedWaiting = message;
      else if (wasNotSent(error)) {
        stopped = message;
        stoppedAt = kind;
      }
      // No answer at all (the exchange never reported: a timeout, a network error).
      else if (observed === before)
        reports.set(kind, { kind, family: pacedFamilyOf(kind), outcome: 'error', ms: 0, route: route.name, detail: message });
      return undefined;
    }
  };
  // Blocks are per family: a block of one stops its own kinds (and those that need it), not the others'.
  const blocked = (...families: EndpointFamily[]) => families.some((f) => refusedFamilies.has(f));
  const what = 'insights google check';
  const time = timeRange('12m', now());

  await ask(
    'home_page',
    (s) => s.warmUp(geo, what),
    () => 'NID cookie handed out',
  );
  const cookie = reports.get('cookie_page')?.outcome === 'served' || reports.get('home_page')?.outcome === 'served';
  let widgets: Widget[] | undefined;
  if (cookie && !blocked('explore')) {
    widgets = await ask(
      'explore',
      (s) => s.explore([{ keyword: term, geo, time }], `explore for "${term}"`),
      (w) => `${w.length} widgets: ${w.map((x) => x.id).join(', ')}`,
    );
  }
  if (widgets && !blocked('explore', 'widgetdata')) {
    await ask(
      'multiline',
      (s) => s.widget(widgets, 'TIMESERIES', `interest over time for "${term}"`, (j) => parseMultiline(j, [term], what)),
      (a) => (a ? `${a.points.length} points` : 'refused with 401 (a stale token)'),
    );
    await ask(
      'comparedgeo',
      (s) => s.widget(widgets, 'GEO_MAP', `interest by region for "${term}"`, (j) => parseComparedGeo(j, [term], what)),
      (a) =>
        a ? `${a.regions.filter((r) => r.hasData[0]).length} of ${a.regions.length} places with data` : 'refused with 401 (a stale token)',
    );
    await ask(
      'relatedsearches',
      (s) => s.widget(widgets, 'RELATED_QUERIES', `related queries for "${term}"`, (j) => parseRelated(j, 'relatedQueries', what)),
      (a) => (a ? `${a.top.length} top, ${a.rising.length} rising` : 'refused with 401 (a stale token)'),
    );
  }
  if (cookie && !blocked('embed', 'widgetdata')) {
    await ask(
      'embed_relatedsearches',
      (s) =>
        s.embedRelated({ keyword: term, geo, time }, 'RELATED_QUERIES', `related queries for "${term}" (embed)`, (j) =>
          parseRelated(j, 'relatedQueries', what),
        ),
      (a) => `${a.top.length} top, ${a.rising.length} rising`,
    );
    if (reports.get('embed_page')?.outcome === 'served')
      details.set('embed_page', `a token labelled ${reports.get('embed_page')?.userType ?? '(no label)'}`);
  }
  if (cookie && !blocked('autocomplete')) {
    await ask(
      'autocomplete',
      (s) => s.autocomplete(term, `autocomplete for "${term}"`, (j) => parseAutocomplete(j, what)),
      (a) => `${a.topics.length} topics`,
    );
  }
  // All three roads to the trending searches, each on its own (discovery reads the first that serves).
  const country = geo || 'US';
  for (const [road, kind] of [
    ['rss', 'trending_rss'],
    ['rpc', 'trending_rpc'],
    ['page', 'trending_page'],
  ] as const) {
    if (blocked('trending')) break;
    await ask(
      kind,
      (s) =>
        road === 'rss'
          ? s.trendingFeed(country, `the trending feed for ${country}`, (x) => parseTrendingFeed(x, what).items)
          : trendingRoads(s, country, 'en-US', `the trending searches for ${country}`)[road](),
      (items) => `${items.length} trending searches`,
    );
  }

  const kinds = CHECKED_KINDS.map(({ kind, neededBy, fine, note }): CheckedKind => {
    const report = reports.get(kind);
    const outcome: CheckOutcome = report?.outcome ?? 'not_asked';
    const reason =
      report?.outcome === 'served' || report?.outcome === 'empty' || report?.outcome === 'no_data' ? details.get(kind) : report?.detail;
    const overQuota = kind === 'embed_relatedsearches' && reports.get('embed_page')?.outcome === 'over_quota';
    const embedKind = kind === 'embed_page' || kind === 'embed_relatedsearches';
    const because =
      outcome !== 'not_asked' || (kind === 'cookie_page' && !stopped && refusedFamilies.size === 0)
        ? undefined
        : embedKind && embedWaiting
          ? `not asked: ${embedWaiting}`
          : stopped
            ? `not asked: ${stopped}`
            : overQuota
              ? "not asked: the route's embed quota is spent"
              : blocked(pacedFamilyOf(kind), 'explore')
                ? `not asked: Google blocked the ${refusedFamilies.has(pacedFamilyOf(kind)) ? pacedFamilyOf(kind) : 'explore'} family`
                : 'not asked: an earlier request it depends on failed';
    return {
      kind,
      outcome,
      ms: report ? report.ms : null,
      neededBy,
      broken: !(
        outcome === 'consent' ||
        ((stopped !== undefined || (embedKind && embedWaiting !== undefined)) && outcome === 'not_asked') ||
        (fine.includes(outcome) &&
          !(kind === 'cookie_page' && outcome === 'not_asked' && reports.get('home_page')?.outcome !== 'served')) ||
        overQuota ||
        (kind === 'home_page' && reports.get('cookie_page')?.outcome === 'served')
      ),
      detail: [because ? undefined : note?.[outcome], because, reason].filter(Boolean).join('; '),
    };
  });
  const trendingServed = (['trending_rss', 'trending_rpc', 'trending_page'] as const).some((k) => reports.get(k)?.outcome === 'served');
  const families = Object.fromEntries(
    ENDPOINT_FAMILIES.map((family): [EndpointFamily, CheckedFamily] => {
      const own = kinds.filter((k) => pacedFamilyOf(k.kind) === family);
      const refused = refusedFamilies.get(family);
      const asked = own.filter((k) => k.outcome !== 'not_asked');
      const broken = family === 'trending' ? asked.length > 0 && !trendingServed : own.some((k) => k.broken);
      const state = refused ?? (asked.length === 0 ? 'not_asked' : broken ? 'broken' : 'ok');
      return [family, { state, kinds: own.map((k) => k.kind) }];
    }),
  ) as Record<EndpointFamily, CheckedFamily>;
  // No road to the trending searches served: discovery is broken, whichever road failed first.
  const broken = kinds.filter((k) => k.broken).map((k) => k.kind);
  if (families.trending.state === 'broken') broken.push('trending_rss');
  return {
    checkedAt: now().toISOString(),
    route: route.name,
    geo,
    term,
    kinds,
    userType: { explore: reports.get('explore')?.userType ?? null, embed: reports.get('embed_page')?.userType ?? null },
    broken: [...new Set(broken)],
    ...(blockedBy ? { blocked: blockedBy } : {}),
    overQuota,
    ...(stopped ? { stopped, ...(stoppedAt ? { stoppedAt } : {}) } : {}),
    ...(consent ? { consent } : {}),
    families,
  };
}

/**
 * What a check says of Google, in one word: `unreachable` when no request got an answer at all
 * (DNS, the connection, the proxy, a timeout: nothing of Google's was read, so nothing says Google
 * changed); `blocked` when Google refused this client (429, the "sorry" page); `changed` when Google
 * answered, but not as the product reads it; `stopped` when the route's own pace stopped the check
 * first; `consent` when Google answered the route with its EU consent page; else `ok`.
 */
/** The check's last line, for a person: what was found and what to do (the CLI prints it; a verdict's exit code is in checkExitCode). */
export function checkSummary(check: Parameters<typeof checkVerdict>[0] & Pick<GoogleCheck, 'route' | 'stoppedAt'>): string {
  const { verdict, detail, families } = checkVerdict(check);
  switch (verdict) {
    // Unreachable and blocked are not "Google changed": the operator's fix is the network, the proxy or patience, not the client.
    case 'unreachable':
      return `CANNOT REACH GOOGLE via ${check.route}: ${detail}. Nothing of Google's was read, so this says nothing of whether Google changed: check DNS, the network and TRENDS_PROXY_URLS, then run the check again.`;
    case 'blocked':
      return families && families.answering.length > 0
        ? `BLOCKED (${families.blocked.join(', ')} only): ${detail}. Google blocks each family on its own: the blocked ${families.blocked.length === 1 ? 'family cools' : 'families cool'} down on this route, the others go on answering (docs/operations.md, "Pacing Google").`
        : `BLOCKED: ${detail}. Google refuses this client for now; the route cools down (docs/operations.md, "Pacing Google").`;
    case 'consent':
      return `EU CONSENT: ${detail}. Not a change of Google: set TRENDS_CONSENT_COOKIES for route ${check.route} (docs/operations.md, "EU consent").`;
    case 'stopped':
      return `Not checked from ${check.stoppedAt ?? 'the start'} on: ${detail}. Try again when the route is free.`;
    case 'ok':
      return 'Every kind research and discovery need answers as expected.';
    case 'changed':
      return `BROKEN: ${check.broken.join(', ')}: Google answered, but not as this client reads it. See docs/operations.md, "Google changed".`;
  }
}

/**
 * The exit code of `insights google check` (its --help and docs/operations.md list them): 0 every kind answers; 1 a
 * kind research or discovery needs is broken (Google changed, or blocked a family); 2 a usage error (commander, or a
 * bad --geo); 3 the route's pace stopped the check before it asked everything; 4 Google could not be reached (DNS,
 * connection, proxy); 5 the route answered with the EU consent page (set TRENDS_CONSENT_COOKIES).
 */
export function checkExitCode(check: Parameters<typeof checkVerdict>[0]): 0 | 1 | 3 | 4 | 5 {
  const { verdict } = checkVerdict(check);
  if (verdict === 'unreachable') return 4;
  if (verdict === 'consent') return 5;
  if (check.broken.length > 0) return 1;
  if (check.stopped) return 3;
  return 0;
}

export type CheckVerdict = 'ok' | 'unreachable' | 'blocked' | 'changed' | 'stopped' | 'consent';

/** Why Google could not be reached, in the operator's words, from the network error's text. */
export function unreachableCause(detail: string): string {
  if (/ENOTFOUND|EAI_AGAIN|getaddrinfo/i.test(detail)) return 'the name does not resolve (DNS)';
  // CONNECT in capitals is the proxy's tunnel; "connect ECONNREFUSED" is Node's own connection failing.
  if (/\bproxy\b/i.test(detail) || /\bCONNECT\b/.test(detail)) return 'the egress proxy refused or failed the connection';
  if (/did not answer within|timed? ?out|ETIMEDOUT/i.test(detail)) return 'no answer in time';
  if (/ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENETUNREACH|socket hang up/i.test(detail)) return 'the connection failed';
  if (/certificate|TLS|SSL/i.test(detail)) return 'the TLS handshake failed';
  return 'no answer';
}

export function checkVerdict(
  check: Pick<GoogleCheck, 'kinds' | 'broken' | 'blocked' | 'stopped' | 'consent'> & Partial<Pick<GoogleCheck, 'families'>>,
): {
  verdict: CheckVerdict;
  detail: string;
  /** Blocked: the families Google refused, and those that answered (Google blocks each family on its own). */
  families?: { blocked: EndpointFamily[]; answering: EndpointFamily[] };
} {
  if (check.consent) return { verdict: 'consent', detail: check.consent };
  if (check.blocked) {
    const states = Object.entries(check.families ?? {}) as Array<[EndpointFamily, CheckedFamily]>;
    const blocked = states.filter(([, f]) => f.state === 'blocked' || f.state === 'rate_limited').map(([name]) => name);
    const answering = states.filter(([, f]) => f.state === 'ok').map(([name]) => name);
    if (blocked.length === 0) return { verdict: 'blocked', detail: `Google blocked this client (${check.blocked.kind})` };
    const which = `the ${blocked.join(', ')} ${blocked.length === 1 ? 'family' : 'families'}`;
    return {
      verdict: 'blocked',
      detail:
        answering.length > 0
          ? `Google blocked ${which} (${check.blocked.kind}); the others answer: ${answering.join(', ')}`
          : `Google blocked ${which} (${check.blocked.kind}); no other family answered`,
      families: { blocked, answering },
    };
  }
  const asked = check.kinds.filter((k) => k.outcome !== 'not_asked');
  if (asked.length > 0 && asked.every((k) => k.outcome === 'error')) {
    const first = asked[0]!;
    return { verdict: 'unreachable', detail: `${unreachableCause(first.detail)}: ${first.kind}: ${first.detail}` };
  }
  if (check.broken.length > 0) return { verdict: 'changed', detail: `broken: ${check.broken.join(', ')}` };
  if (check.stopped) return { verdict: 'stopped', detail: check.stopped };
  return { verdict: 'ok', detail: 'every kind research and discovery need answers as expected' };
}
