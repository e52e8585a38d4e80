// Google's trending searches by every road (issue 51 item 2): the RSS feed,
// then the Trending Now RPC, then the /trending page, through the real client
// and a CONNECT proxy to the loopback Google, whose roads serve the same
// world. Each test breaks the roads a client must not depend on.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startGoogleOnLoopback, type GoogleOnLoopback } from '../../scripts/lib/google-on-loopback/index.js';
import { GoogleUnavailableError, forgetGoogleCookies, type ExchangeReport } from '../../src/providers/google/client.js';
import { GoogleTrendsProvider } from '../../src/providers/google/provider.js';
import { parseTrendingPage, parseTrendingRpc, trafficBucket, trendingRpcForm } from '../../src/providers/google/trending.js';
import { routesFrom, type EgressRoute } from '../../src/providers/google/egress/routes.js';
import { MalformedResponseError } from '../../src/providers/contract.js';
import type { TrendingFeed } from '../../src/domain/trends/answers.js';

let g: GoogleOnLoopback;
let provider: GoogleTrendsProvider;
let route: EgressRoute;
const reports: ExchangeReport[] = [];

beforeAll(async () => {
  forgetGoogleCookies();
  g = await startGoogleOnLoopback({ proxies: 1, requestsPerMinute: 0, embedMinGapMs: 0 });
  provider = new GoogleTrendsProvider({ ca: g.certificates.ca, timeoutMs: 10_000, observe: (r) => reports.push(r) });
  route = routesFrom(g.proxies.map((p) => p.url))[0]!;
});
afterAll(() => g.stop());
beforeEach(() => {
  g.google.setLimits({ requestsPerMinute: 0, embedMinGapMs: 0 });
  for (const kind of ['trending_rss', 'trending_rpc', 'trending_page'] as const) g.google.answerWith(kind, undefined);
  g.google.resetCounts();
  reports.length = 0;
});

const trending = async (geo = 'US') => (await provider.fetch({ kind: 'trendingFeed', geo }, route)) as TrendingFeed;
const searches = (feed: TrendingFeed) => feed.items.map((i) => `${i.query} (${i.approxTraffic})`);
const kinds = () => g.google.log.map((r) => `${r.kind} ${r.status}`);

describe("Google's trending searches, road after road", () => {
  it('reads the RSS feed first, and asks no other road when it serves', async () => {
    const feed = await trending();
    expect(feed.road).toBe('rss');
    expect(feed.passedOver).toBeUndefined();
    expect(feed.items).toHaveLength(20);
    expect(kinds()).toEqual(['trending_rss 200']);
  });

  it('with the RSS feed answering 500, the Trending Now RPC serves the same searches, and why the feed was passed over is kept', async () => {
    const fromFeed = await trending('GB');
    g.google.setLimits({ requestsPerMinute: 0, embedMinGapMs: 0, brokenTrending: { rss: true } });
    g.google.resetCounts();
    reports.length = 0;
    const feed = await trending('GB');
    expect(feed.road).toBe('rpc');
    expect(searches(feed)).toEqual(searches(fromFeed));
    expect(feed.items.every((i) => i.published !== null && i.news.length === 0)).toBe(true);
    // In fixed words: a run's evidence is shown to API clients; Google's own text goes to the exchange's report.
    expect(feed.passedOver).toEqual([{ road: 'rss', why: 'Google answered with an error' }]);
    expect(kinds()).toEqual(['trending_rss 500', 'trending_rpc 200']);
    // The RPC is a cookieless POST, as the page sends it.
    expect(g.google.log.at(-1)).toMatchObject({ cookie: false });
    expect(reports.map((r) => `${r.kind} ${r.outcome}`)).toEqual(['trending_rss error', 'trending_rpc served']);
  });

  it('with the feed and the RPC broken, the /trending page serves', async () => {
    g.google.setLimits({ requestsPerMinute: 0, embedMinGapMs: 0, brokenTrending: { rss: true, rpc: true } });
    const feed = await trending();
    expect(feed.road).toBe('page');
    expect(feed.items).toHaveLength(20);
    expect(feed.passedOver?.map((p) => p.road)).toEqual(['rss', 'rpc']);
    expect(feed.passedOver?.[1]?.why).toBe('Google answered with an error');
    expect(reports.find((r) => r.kind === 'trending_rpc')?.detail).toMatch(/Trending Now RPC .* with an error \(status \[3\]\)/);
    expect(kinds()).toEqual(['trending_rss 500', 'trending_rpc 200', 'trending_page 200']);
  });

  it('with every road broken, fails with one error naming each road and why', async () => {
    g.google.setLimits({ requestsPerMinute: 0, embedMinGapMs: 0, brokenTrending: { rss: true, rpc: true, page: true } });
    const error = await trending().catch((e: unknown) => e);
    // Google unwell on every road: retried with backoff as any 5xx, never data.
    expect(error).toBeInstanceOf(GoogleUnavailableError);
    const message = (error as Error).message;
    expect(message).toMatch(/^no road to Google's trending searches for .* served \(every road\)/);
    expect(message).toMatch(/the RSS feed: .*answered 500/);
    expect(message).toMatch(/the Trending Now RPC: .*with an error/);
    expect(message).toMatch(/the \/trending page: .*answered 500/);
  });

  it('a changed shape on a road is an error naming that road, not data; on every road it fails for good', async () => {
    g.google.setLimits({ requestsPerMinute: 0, embedMinGapMs: 0, brokenTrending: { rss: true } });
    g.google.answerWith('trending_rpc', { status: 200, body: ')]}\'\n\n12\n[["di",42]]\n' });
    const feed = await trending();
    expect(feed.road).toBe('page');
    expect(feed.passedOver?.[1]).toEqual({ road: 'rpc', why: 'changed shape' });
    expect(reports.find((r) => r.kind === 'trending_rpc')).toMatchObject({
      outcome: 'changed_shape',
      detail: expect.stringMatching(/through the Trending Now RPC is malformed: no \["wrb.fr","i0OFE",…\] envelope/),
    });

    g.google.answerWith('trending_rss', {
      status: 200,
      // Not the consent wall ("Before you continue to Google" is one since the consent outcome: its own error).
      body: '<html><body>Trending searches have moved</body></html>',
      contentType: 'text/html',
    });
    g.google.answerWith('trending_page', {
      status: 200,
      body: '<!doctype html><html><body><c-wiz></c-wiz></body></html>',
      contentType: 'text/html',
    });
    const error = await trending().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MalformedResponseError);
    expect((error as Error).message).toMatch(/RSS feed\).*not Google's trending RSS feed/);
    expect((error as Error).message).toMatch(/through the \/trending page is malformed: no AF_initDataCallback data block/);
  });
});

describe('the shapes of the RPC and the page', () => {
  const trend = (search: unknown, volume: unknown = 2000) => [
    search,
    null,
    'US',
    [1764300000],
    null,
    null,
    volume,
    null,
    300,
    [],
    [18],
    [],
  ];
  const rpc = (payload: unknown) =>
    `)]}'\n\n99\n${JSON.stringify([
      ['wrb.fr', 'i0OFE', JSON.stringify(payload), null, null, null, 'generic'],
      ['di', 42],
    ])}\n25\n[["e",4,null,null,99]]\n`;

  it('reads the wrb.fr envelope of the length-prefixed chunks, and checks every trend', () => {
    expect(parseTrendingRpc(rpc([null, [trend('solar panels'), trend('tiny homes', 50_000)]]), 'x')).toEqual([
      { query: 'solar panels', approxTraffic: '2000+', published: '2025-11-28T03:20:00.000Z', news: [] },
      { query: 'tiny homes', approxTraffic: '50K+', published: '2025-11-28T03:20:00.000Z', news: [] },
    ]);
    expect(parseTrendingRpc(rpc([null, []]), 'x')).toEqual([]);
    expect(() => parseTrendingRpc(rpc([null, [trend(42)]]), 'x')).toThrow(/Trending Now RPC is malformed: a trend has no search at \[0\]/);
    expect(() => parseTrendingRpc(rpc([null, [trend('a', '2K+')]]), 'x')).toThrow(/volume at \[6\] is "2K\+", not a number/);
    expect(() => parseTrendingRpc(rpc({ trends: [] }), 'x')).toThrow(/the payload is not an array/);
    expect(() => parseTrendingRpc('<html>sorry</html>', 'x')).toThrow(/does not start with Google's \)\]\}' guard/);
  });

  it('reads the page data block holding the list, and no other', () => {
    const page = (data: unknown) =>
      `<script>AF_initDataCallback({key: 'ds:1', hash: '2', data:["other"], sideChannel: {}});</script><script>AF_initDataCallback({key: 'ds:0', hash: '1', data:${JSON.stringify(data)}, sideChannel: {}});</script>`;
    expect(parseTrendingPage(page([null, [trend('meal prep', 200)]]), 'x')).toEqual([
      { query: 'meal prep', approxTraffic: '200+', published: '2025-11-28T03:20:00.000Z', news: [] },
    ]);
    expect(() => parseTrendingPage(page({ a: 1 }), 'x')).toThrow(/no data block holds a list of trends/);
  });

  it('asks the RPC as the page does', () => {
    const form = new URLSearchParams(trendingRpcForm('US', 'en')).get('f.req');
    expect(form).toBe('[[["i0OFE","[null,null,\\"US\\",0,\\"en\\",24,1]",null,"generic"]]]');
    expect([200, 5000, 10_000, 25_000, 2_000_000].map(trafficBucket)).toEqual(['200+', '5000+', '10K+', '25K+', '2M+']);
  });
});
