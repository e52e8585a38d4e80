// The Google client against the loopback Google, through a CONNECT proxy on
// loopback: no interception, the production path (egress agent, TLS for
// trends.google.com, the cookie step, rate limiting).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGoogleOnLoopback, type GoogleOnLoopback } from '../../scripts/lib/google-on-loopback/index.js';
import { routesFrom } from '../../src/trends/egress.js';
import { forgetGoogleCookies } from '../../src/trends/google-client.js';
import { GoogleTrendsProvider } from '../../src/trends/google.provider.js';
import { RateLimitedError } from '../../src/trends/types.js';

let g: GoogleOnLoopback;
let provider: GoogleTrendsProvider;
beforeAll(async () => {
  forgetGoogleCookies();
  g = await startGoogleOnLoopback({ proxies: 2 });
  provider = new GoogleTrendsProvider({ ca: g.certificates.ca, timeoutMs: 10_000 });
});
afterAll(() => g.stop());

describe('the loopback Google', () => {
  it('answers an explore with five widgets in six requests, after the cookie step, normalised together as Google does', async () => {
    const [route] = routesFrom([g.proxies[0]!.url]);
    const answer = await provider.fetch({ kind: 'explore', keywords: ['meal planning'], timeframe: '12m', geo: '', parts: ['series', 'relatedQueries', 'relatedTopics', 'mapCountry', 'mapCity'] }, route);
    if (answer.kind !== 'explore') throw new Error(answer.kind);
    expect(answer.series!.points.length).toBeGreaterThanOrEqual(52);
    expect(Math.max(...answer.series!.points.map((p) => p.values[0]!))).toBe(100);
    expect(answer.relatedQueries!.top.length).toBeGreaterThan(0);
    expect(answer.mapCountry!.regions.some((r) => r.geoCode === 'US')).toBe(true);
    expect(answer.mapCity!.regions.every((r) => r.geoCode === '')).toBe(true);
    // The first request of a new client: a 429 with a cookie, then the same request again.
    expect(answer.provenance).toMatchObject({ requests: 7, route: route!.name });
    expect(g.google.counts.get('cookie-429')).toBe(1);
    expect(g.google.counts.get('explore')).toBe(1);
    expect(g.proxies[0]!.tunnels).toBe(1); // one tunnel, kept alive for all seven

    const two = await provider.fetch({ kind: 'interestOverTime', keywords: ['meal planning', 'weather'], timeframe: '90d', geo: '' }, route);
    if (two.kind !== 'interestOverTime') throw new Error(two.kind);
    expect(two.points.length).toBeGreaterThanOrEqual(90);
    expect(Math.max(...two.points.flatMap((p) => p.values))).toBe(100);
    expect(two.provenance?.requests).toBe(2);
  });

  it('blocks a client past its limit with the "sorry" redirect, while another proxy goes on', async () => {
    const [blocked, other] = routesFrom(g.proxies.map((p) => p.url));
    g.google.block(g.proxies[0]!.egressAddress);
    await expect(provider.fetch({ kind: 'autocomplete', term: 'meal planning' }, blocked)).rejects.toBeInstanceOf(RateLimitedError);
    const ok = await provider.fetch({ kind: 'autocomplete', term: 'meal planning' }, other);
    expect(ok.kind).toBe('autocomplete');
    g.google.block(g.proxies[0]!.egressAddress, false);
    expect((await provider.fetch({ kind: 'autocomplete', term: 'meal planning' }, blocked)).kind).toBe('autocomplete');
  });
});
