// The Google client against the loopback Google, answering as Google answers
// automated clients today, through CONNECT proxies on loopback: no
// interception, the production path (egress agent, TLS for trends.google.com,
// the cookie page, browser headers, every answer classified in one place).
import https from 'node:https';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startGoogleOnLoopback, type GoogleOnLoopback } from '../../scripts/lib/google-on-loopback/index.js';
import { routesFrom, type EgressRoute } from '../../src/trends/egress.js';
import { forgetGoogleCookies, type ExchangeReport } from '../../src/trends/google-client.js';
import { GoogleTrendsProvider } from '../../src/trends/google.provider.js';
import { RateLimitedError, RefusedError, type TrendsResponse } from '../../src/trends/types.js';

const NO_DATA = 'zzqx obscure phrase';
let g: GoogleOnLoopback;
let provider: GoogleTrendsProvider;
let routes: EgressRoute[];
const reports: ExchangeReport[] = [];

beforeAll(async () => {
  forgetGoogleCookies();
  g = await startGoogleOnLoopback({ proxies: 3, requestsPerMinute: 0, world: { noData: [NO_DATA] } });
  provider = new GoogleTrendsProvider({ ca: g.certificates.ca, timeoutMs: 10_000, observe: (r) => reports.push(r) });
  routes = routesFrom(g.proxies.map((p) => p.url));
});
afterAll(() => g.stop());
beforeEach(() => {
  g.google.setLimits({ requestsPerMinute: 0 });
  reports.length = 0;
});

const as = <K extends TrendsResponse['kind']>(answer: TrendsResponse, kind: K) => {
  if (answer.kind !== kind) throw new Error(`expected ${kind}, got ${answer.kind}`);
  return answer as TrendsResponse & { kind: K };
};
const logOf = (proxy: number) => g.google.log.filter((r) => r.client === g.proxies[proxy]!.egressAddress);

/** A raw HTTPS request to the loopback Google from 127.0.0.1 (no proxy): what a bare client gets. */
function raw(path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port: g.google.port, servername: 'trends.google.com', ca: g.certificates.ca, path, headers: { host: 'trends.google.com', ...headers } }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.once('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.once('error', reject);
    req.end();
  });
}

describe('the Google client against today\'s Google (loopback)', () => {
  it('fetches the NID cookie from a page before its first API call, sends every request as a browser, and classifies each answer', async () => {
    const answer = as(
      await provider.fetch({ kind: 'explore', keywords: ['meal planning'], timeframe: '12m', geo: '', parts: ['series', 'relatedQueries', 'relatedTopics', 'mapCountry', 'mapCity'] }, routes[0]),
      'explore',
    );
    expect(answer.series!.outcome).toBe('served');
    expect(Math.max(...answer.series!.points.map((p) => p.values[0]!))).toBe(100);
    expect(answer.mapCountry!.regions.some((r) => r.geoCode === 'US')).toBe(true);
    // Related lists come back empty, as Google serves them to automated clients: an answer, not an error.
    expect(answer.relatedQueries).toMatchObject({ top: [], rising: [], outcome: 'empty' });
    expect(answer.relatedTopics).toMatchObject({ top: [], rising: [], outcome: 'empty' });
    // The cookie page, the explore and five widgets, over one tunnel.
    expect(answer.provenance).toMatchObject({ requests: 7, route: routes[0]!.name });
    expect(g.proxies[0]!.tunnels).toBe(1);

    const log = logOf(0);
    expect(log.map((r) => r.kind)).toEqual(['page', 'explore', 'multiline', 'relatedsearches', 'relatedsearches', 'comparedgeo', 'comparedgeo']);
    expect(log.slice(1).every((r) => r.cookie)).toBe(true); // after the first page, no API call without the cookie
    expect(log.every((r) => /Chrome\/\d+/.test(r.userAgent ?? ''))).toBe(true);
    expect(g.google.counts.get('no-cookie-429')).toBeUndefined();
    expect(reports.map((r) => `${r.kind}:${r.outcome}`)).toEqual([
      'cookie_page:served', 'explore:served', 'multiline:served', 'relatedsearches:empty', 'relatedsearches:empty', 'comparedgeo:served', 'comparedgeo:served',
    ]);

    // The cookie is the route's: the next request needs no page.
    const two = as(await provider.fetch({ kind: 'interestOverTime', keywords: ['meal planning', 'weather'], timeframe: '90d', geo: '' }, routes[0]), 'interestOverTime');
    expect(two.provenance?.requests).toBe(2);
  });

  it('answers an API call without the cookie 429 with no Set-Cookie; a page hands the cookie out; dailytrends is gone (404)', async () => {
    const bare = await raw('/trends/api/autocomplete/pizza?hl=en-US&tz=0');
    expect(bare.status).toBe(429);
    expect(bare.headers['set-cookie']).toBeUndefined();
    // As in the 2025 recording: the explore page with a trailing slash is a 404 that sets the cookie.
    const page = await raw('/trends/explore/?geo=US');
    expect(page.status).toBe(404);
    const nid = (page.headers['set-cookie'] as string[])[0]!.split(';')[0]!;
    expect(nid).toMatch(/^NID=511=/);
    expect((await raw('/trends/api/autocomplete/pizza?hl=en-US&tz=0', { cookie: nid })).status).toBe(200);
    expect((await raw('/trends/api/dailytrends?hl=en-US&tz=0&geo=US&ns=15', { cookie: nid })).status).toBe(404);
  });

  it('says no data for a keyword with too little of it (zeros kept), on the map too; empty autocomplete; Google\'s OR syntax sums the terms', async () => {
    const none = as(await provider.fetch({ kind: 'interestOverTime', keywords: [NO_DATA], timeframe: '90d', geo: '' }, routes[0]), 'interestOverTime');
    expect(none.outcome).toBe('no_data');
    expect(none.points.length).toBeGreaterThanOrEqual(90);
    expect(none.points.every((p) => p.values[0] === 0 && p.hasData[0] === false)).toBe(true);
    // One keyword with data makes the answer served; the other keeps hasData false.
    const mixed = as(await provider.fetch({ kind: 'interestOverTime', keywords: ['meal planning', NO_DATA], timeframe: '90d', geo: '' }, routes[0]), 'interestOverTime');
    expect(mixed.outcome).toBe('served');
    expect(mixed.points.every((p) => p.hasData[0] === true && p.hasData[1] === false)).toBe(true);
    const map = as(await provider.fetch({ kind: 'interestByRegion', keywords: [NO_DATA], timeframe: '12m', geo: '', resolution: 'COUNTRY' }, routes[0]), 'interestByRegion');
    expect(map.outcome).toBe('no_data');

    const unknown = ['knitting robots', 'yak shaving', 'quantum soup', 'glacier tours', 'pocket lint', 'moss walls'].find((t) => g.world.autocomplete(t).length === 0)!;
    expect(as(await provider.fetch({ kind: 'autocomplete', term: unknown }, routes[0]), 'autocomplete')).toMatchObject({ topics: [], outcome: 'empty' });

    // "tea + coffee" is searched as either: its volume is the sum of the two.
    expect(g.world.volume('tea + coffee', 10)).toBeCloseTo(g.world.volume('tea', 10) + g.world.volume('coffee', 10), 6);
    const or = as(await provider.fetch({ kind: 'interestOverTime', keywords: ['tea + coffee', 'tea', 'coffee'], timeframe: '90d', geo: '' }, routes[0]), 'interestOverTime');
    const mean = (i: number) => or.points.reduce((s, p) => s + p.values[i]!, 0) / or.points.length;
    expect(Math.abs(mean(0) - (mean(1) + mean(2)))).toBeLessThan(3); // up to ±2 % noise and rounding
  });

  it('refuses more than five comparison items with a 400, which the client reports as refused', async () => {
    const six = ['a1', 'b2', 'c3', 'd4', 'e5', 'f6'].map((k) => `${k} meal`);
    await expect(provider.fetch({ kind: 'interestOverTime', keywords: six, timeframe: '30d', geo: '' }, routes[0])).rejects.toBeInstanceOf(RefusedError);
    expect(g.google.counts.get('bad-request-400')).toBe(1);
    expect(reports.at(-1)).toMatchObject({ kind: 'explore', outcome: 'refused' });
  });

  it('reads the trending RSS feed without a cookie: searches, approximate traffic, news titles and sources', async () => {
    const pagesBefore = g.google.counts.get('page') ?? 0;
    const feed = as(await provider.fetch({ kind: 'trendingFeed', geo: 'US' }, routes[1]), 'trendingFeed');
    expect(feed.provenance?.requests).toBe(1);
    expect(g.google.counts.get('page') ?? 0).toBe(pagesBefore);
    expect(feed.items).toHaveLength(20);
    for (const item of feed.items) {
      expect(item.query.length).toBeGreaterThan(3);
      expect(item.approxTraffic).toMatch(/^\d+K?\+$/);
      expect(item.published).toMatch(/^\d{4}-\d\d-\d\dT/);
      expect(item.news.length).toBeGreaterThanOrEqual(1);
      expect(item.news[0]).toMatchObject({ title: expect.stringContaining(item.query), source: expect.any(String), url: expect.stringMatching(/^https:\/\//) });
    }
    expect(logOf(1).map((r) => r.cookie)).toEqual([false]);
  });

  it('fetches a fresh cookie once when Google stops taking it; a second refusal in the same request is a block', async () => {
    as(await provider.fetch({ kind: 'autocomplete', term: 'pizza' }, routes[2]), 'autocomplete');
    g.google.revokeCookies();
    const again = await provider.fetch({ kind: 'autocomplete', term: 'pizza' }, routes[2]);
    expect(again.provenance?.requests).toBe(3); // refused, the page, asked again
    expect(logOf(2).slice(-3).map((r) => `${r.kind}:${r.status}`)).toEqual(['autocomplete:429', 'page:200', 'autocomplete:200']);

    // Google taking no cookie at all: one fresh cookie, then a block.
    g.google.setLimits({ requestsPerMinute: 0, cookieLifetimeMs: 0 });
    const error = await provider.fetch({ kind: 'autocomplete', term: 'pizza' }, routes[2]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as { requests: number }).requests).toBe(3);
    expect(logOf(2).slice(-3).map((r) => `${r.kind}:${r.status}`)).toEqual(['autocomplete:429', 'page:200', 'autocomplete:429']);
  });

  it("still reads yesterday's Google: a cookie set on the 429 is taken without a page, served related lists are served", async () => {
    g.google.setLimits({ requestsPerMinute: 0, yesterday: { cookieOn429: true, relatedLists: true } });
    g.google.revokeCookies(); // the route has a cookie, which Google no longer takes
    const pagesBefore = g.google.counts.get('page') ?? 0;
    const related = as(await provider.fetch({ kind: 'relatedQueries', keyword: 'meal planning', timeframe: '12m', geo: '' }, routes[0]), 'relatedQueries');
    expect(related.outcome).toBe('served');
    expect(related.top.length).toBeGreaterThan(0);
    expect(related.provenance?.requests).toBe(3); // explore refused with a cookie, explore again, the widget
    expect(g.google.counts.get('page') ?? 0).toBe(pagesBefore);
  });

  it('blocks an address past its budget of HTTPS requests (pages included) with a 302 to the sorry page, and a request during the block starts it over', async () => {
    g.google.resetClients();
    forgetGoogleCookies();
    g.google.setLimits({ requestsPerMinute: 4, windowMs: 60_000, blockMs: 1_000 });
    const client = g.proxies[0]!.egressAddress;
    // The page and the first call, then two more calls: four requests, the budget.
    await provider.fetch({ kind: 'autocomplete', term: 'pizza' }, routes[0]);
    await provider.fetch({ kind: 'autocomplete', term: 'bagel' }, routes[0]);
    await provider.fetch({ kind: 'autocomplete', term: 'waffle' }, routes[0]);
    await expect(provider.fetch({ kind: 'autocomplete', term: 'crepe' }, routes[0])).rejects.toBeInstanceOf(RateLimitedError);
    expect(reports.at(-1)).toMatchObject({ kind: 'autocomplete', outcome: 'blocked' });
    expect(logOf(0).at(-1)).toMatchObject({ status: 302, refusal: 'sorry-302' });
    const [block] = g.google.blocks(client);
    expect(block).toMatchObject({ probes: [] });

    // Asking again early: refused, and the block now ends a full block after that request.
    await expect(provider.fetch({ kind: 'autocomplete', term: 'crepe' }, routes[0])).rejects.toBeInstanceOf(RateLimitedError);
    const [extended] = g.google.blocks(client);
    expect(extended!.probes).toHaveLength(1);
    expect(extended!.until).toBe(extended!.probes[0]! + 1_000);
    expect(extended!.until).toBeGreaterThan(block!.until);

    // Once the block has run out (Google's own clock), the address is served again.
    await new Promise((r) => setTimeout(r, Math.max(0, extended!.until - Date.now()) + 20));
    expect(as(await provider.fetch({ kind: 'autocomplete', term: 'crepe' }, routes[0]), 'autocomplete').outcome).toBe('served');
    expect(g.google.probesDuringBlocks(client)).toBe(1);
  });
});
