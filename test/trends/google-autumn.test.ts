// The Google client against the loopback Google's autumn-2026 scenario
// (scripts/lib/google-on-loopback/autumn-2026.ts: Google as a TypeScript
// client measured it live on 2026-09-09, and as actors reported it through
// 2026-11), through CONNECT proxies on loopback: each answer read for what it
// is, not followed as a script.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startGoogleOnLoopback, type GoogleOnLoopback } from '../../scripts/lib/google-on-loopback/index.js';
import { routesFrom, type EgressRoute } from '../../src/providers/google/egress/routes.js';
import { COOKIE_GATE, forgetGoogleCookies, MemoryCookieJar } from '../../src/providers/google/client.js';
import { GoogleTrendsProvider } from '../../src/providers/google/provider.js';
import { checkExitCode, checkGoogle, checkSummary, checkVerdict } from '../../src/providers/google/check.js';
import { RateLimitedError } from '../../src/providers/contract.js';
import type { TrendsResponse } from '../../src/domain/trends/answers.js';
import { ConsentRequiredError } from '../../src/providers/google/errors.js';

const NO_DATA = 'zzqx obscure phrase';
let g: GoogleOnLoopback;
let provider: GoogleTrendsProvider;
let routes: EgressRoute[];
let jar: MemoryCookieJar;

beforeAll(async () => {
  forgetGoogleCookies();
  g = await startGoogleOnLoopback({
    proxies: 3,
    requestsPerMinute: 0,
    scenario: 'autumn-2026',
    world: { noData: [NO_DATA] },
    autumn: { burst: 6, refillPerMinute: [1, 1], latencyMs: 20, familyBlockMs: 60_000 },
  });
  g.google.autumn!.options.euClients = [g.proxies[2]!.egressAddress];
  provider = new GoogleTrendsProvider({ ca: g.certificates.ca, timeoutMs: 10_000 });
  routes = routesFrom(g.proxies.map((p) => p.url));
});
afterAll(() => g.stop());
beforeEach(() => {
  jar = new MemoryCookieJar();
});

const as = <K extends TrendsResponse['kind']>(answer: TrendsResponse, kind: K) => {
  if (answer.kind !== kind) throw new Error(`expected ${kind}, got ${answer.kind}`);
  return answer as TrendsResponse & { kind: K };
};
const logOf = (proxy: number) => g.google.log.filter((r) => r.client === g.proxies[proxy]!.egressAddress);

describe("the Google client against autumn 2026's Google (loopback)", () => {
  it("reads related queries from explore's own widget (the embed flow never asked), sends every widget request as explore served it, and reads an all-zero series as no data", async () => {
    const queries = as(
      await provider.fetch({ kind: 'relatedQueries', keyword: 'meal planning', timeframe: '12m', geo: '' }, routes[0], { jar }),
      'relatedQueries',
    );
    expect(queries.outcome).toBe('served');
    expect(queries.top.length).toBeGreaterThan(3);
    expect(queries.provenance).toMatchObject({ via: 'explore', userType: 'USER_TYPE_SCRAPER' });
    // The home page for the cookie, then explore and its widget; the cookie from /trends/ is learned for the route.
    expect(logOf(0).map((r) => r.kind)).toEqual(['home', 'explore', 'relatedsearches']);
    expect(await jar.learned(routes[0]!.name, 'warm_up')).toBe('/trends/');

    const series = as(
      await provider.fetch({ kind: 'interestOverTime', keywords: [NO_DATA], timeframe: '90d', geo: '' }, routes[0], { jar }),
      'interestOverTime',
    );
    expect(series.points.length).toBeGreaterThan(60);
    expect(series.points.every((p) => p.hasData[0] === true && p.values[0] === 0)).toBe(true); // what Google sent
    expect(series.outcome).toBe('no_data');
    expect(g.google.autumn!.editedWidgetRequests).toBe(0);
  });

  it("never edits a widget request: a city map where explore's widget is by country is no data, asked of no widget, with no 401 on any route", async () => {
    const map = async (route: EgressRoute, resolution: 'CITY' | 'COUNTRY') =>
      as(
        await provider.fetch({ kind: 'interestByRegion', keywords: ['meal planning'], timeframe: '12m', geo: '', resolution }, route, {
          jar,
        }),
        'interestByRegion',
      );
    const before = g.google.log.length;
    expect(await map(routes[0]!, 'CITY')).toMatchObject({ outcome: 'no_data', regions: [] });
    expect(await map(routes[1]!, 'CITY')).toMatchObject({ outcome: 'no_data', regions: [] });
    // The map explore serves (by country) is sent as served and answered.
    expect((await map(routes[1]!, 'COUNTRY')).outcome).toBe('served');
    const sent = g.google.log.slice(before);
    expect(sent.filter((r) => r.kind === 'comparedgeo').map((r) => r.status)).toEqual([200]);
    expect(sent.some((r) => r.status === 401)).toBe(false);
    expect(g.google.autumn!.editedWidgetRequests).toBe(0);
  });

  it("passes the cookie gate (a stale cookie's 429 that sets NID: sent again at once, once) and reads a plain 429 with no new cookie as the explore family's rate limit: no Retry-After, no page spent on it", async () => {
    g.google.revokeCookies();
    await jar.set(routes[1]!.name, 'NID=511=stale');
    const before = logOf(1).length;
    await provider.fetch({ kind: 'interestOverTime', keywords: ['standing desk'], timeframe: '30d', geo: '' }, routes[1], { jar });
    const sent = logOf(1).slice(before);
    expect(sent.map((r) => [r.kind, r.status, r.refusal ?? null])).toEqual([
      ['explore', 429, 'cookie-gate-429'],
      ['explore', 200, null],
      ['multiline', 200, null],
    ]);
    expect(await jar.learned(routes[1]!.name, 'warm_up')).toBe(COOKIE_GATE);
    // The bucket (6, refilled at 1 a minute) runs dry: a plain 429, no new cookie, read as the rate limit at once.
    let error: unknown;
    for (let i = 0; i < 8 && !error; i += 1)
      error = await provider
        .fetch({ kind: 'interestOverTime', keywords: [`standing desk ${i}`], timeframe: '30d', geo: '' }, routes[1], { jar })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as Error).message).toMatch(/no new cookie/);
    expect(logOf(1).at(-1)).toMatchObject({ kind: 'explore', status: 429, refusal: 'rate-limit-429' });
    expect(
      logOf(1)
        .slice(before)
        .filter((r) => r.kind === 'home' || r.kind === 'page').length,
    ).toBe(0);
  });

  it('is blocked with a 302 to /sorry for the explore family alone when two explore requests of one address overlap; autocomplete still answers', async () => {
    const parallel = await Promise.allSettled(
      ['a', 'b', 'c'].map((k) =>
        provider.fetch({ kind: 'interestOverTime', keywords: [`home gym ${k}`], timeframe: '30d', geo: '' }, routes[0], { jar }),
      ),
    );
    expect(parallel.some((r) => r.status === 'rejected' && r.reason instanceof RateLimitedError && r.reason.block === 'sorry_302')).toBe(
      true,
    );
    expect(g.google.autumn!.maxInFlight.get(g.proxies[0]!.egressAddress)).toBeGreaterThan(1);
    const topics = as(await provider.fetch({ kind: 'autocomplete', term: 'home gym' }, routes[0], { jar }), 'autocomplete');
    expect(topics.outcome).toBe('served');
  });

  it("tells the EU route's consent page apart from a block and from a changed Google, and sends the consent cookie the operator configured", async () => {
    const error = await provider.fetch({ kind: 'autocomplete', term: 'pizza' }, routes[2], { jar }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConsentRequiredError);
    expect((error as Error).message).toMatch(/EU consent page .*TRENDS_CONSENT_COOKIES/);
    expect(logOf(2).map((r) => r.refusal)).toEqual(['consent-302']);

    const [withConsent] = routesFrom([g.proxies[2]!.url], {
      [routes[2]!.name]: 'SOCS=CAISHAgBEhJnd3NfMjAyNjExMjgtMF9SQzIaAmVuIAEaBgiA_LyaBg',
    });
    const served = as(await provider.fetch({ kind: 'autocomplete', term: 'pizza' }, withConsent, { jar }), 'autocomplete');
    expect(served.outcome).toBe('served');

    // `insights google check` says so, and asks nothing more of the route; with the cookie, the route checks out.
    const check = await checkGoogle({ route: routes[2]!, geo: 'US', term: 'weather', timeoutMs: 10_000, ca: g.certificates.ca });
    expect(checkVerdict(check)).toMatchObject({ verdict: 'consent', detail: expect.stringMatching(/EU consent page/) });
    expect(check.kinds.find((k) => k.kind === 'home_page')).toMatchObject({ outcome: 'consent', broken: false });
    expect(check.broken).toEqual([]);
    const fine = await checkGoogle({ route: withConsent!, geo: 'US', term: 'weather', timeoutMs: 10_000, ca: g.certificates.ca });
    expect(fine.consent).toBeUndefined();
    expect(fine.kinds.find((k) => k.kind === 'relatedsearches')).toMatchObject({ outcome: 'served' });
  });

  it('`insights google check` with one family blocked says which, and that the others answer (review of issue 51: it said "BLOCKED")', async () => {
    g.google.autumn!.blockFamily(g.proxies[1]!.egressAddress, 'autocomplete', 60_000);
    const check = await checkGoogle({ route: routes[1]!, geo: 'US', term: 'weather', timeoutMs: 10_000, ca: g.certificates.ca });
    // The explore family of this route may be rate limited by the tests before (its bucket): either way it is named apart.
    expect(check.families.autocomplete.state).toBe('blocked');
    expect(check.families.trending.state).toBe('ok');
    const verdict = checkVerdict(check);
    expect(verdict.verdict).toBe('blocked');
    expect(verdict.families!.blocked).toContain('autocomplete');
    expect(verdict.families!.answering).toContain('trending');
    expect(verdict.families!.answering).not.toContain('autocomplete');
    expect(verdict.detail).toMatch(
      /^Google blocked the (.+, )?autocomplete(, .+)? famil(y|ies) \(.+\); the others answer: (.+, )?trending/,
    );
    const summary = checkSummary(check);
    expect(summary).toMatch(new RegExp(`^BLOCKED \\(${verdict.families!.blocked.join(', ')} only\\): `));
    expect(summary).toMatch(/the others go on answering/);
    expect(checkExitCode(check)).toBe(1);
  });
});
