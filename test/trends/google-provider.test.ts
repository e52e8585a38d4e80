// The Google adapter through its real HTTPS path: nock intercepts the requests
// made to trends.google.com (the endpoints google-trends-api, pytrends and
// trendspy call) and answers with the bodies Google really returned (recorded
// by pytrends' test suite in 2022–2023, and the refusals of its 2025
// re-recording), the cookie as Google hands it out in 2026 (the home page), and
// related lists through the embed flow: an embed page holding the recorded
// widget in JSON.parse('…'), then the recorded list. The loopback Google
// (test/trends/google-loopback.test.ts) covers the same path through a proxy,
// without interception.
import nock from 'nock';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  BROWSER_USER_AGENT,
  COOKIE_GATE,
  forgetGoogleCookies,
  GoogleUnavailableError,
  MemoryCookieJar,
} from '../../src/providers/google/client.js';
import { GoogleTrendsProvider } from '../../src/providers/google/provider.js';
import { MalformedResponseError, RateLimitedError, RefusedError } from '../../src/providers/contract.js';
import { recordedBody } from '../support/recorded.js';

const GOOGLE = 'https://trends.google.com';
const provider = new GoogleTrendsProvider({ now: () => new Date('2023-03-26T00:00:00Z') });
beforeEach(() => forgetGoogleCookies());
const recorded = (cassette: string, file: RegExp) => recordedBody('pytrends', cassette, file);
const recorded2025 = (cassette: string, file: RegExp) => recordedBody('rate-limited-2025', `${cassette}__18c9392ff6`, file);
/** The NID cookie as Google set it in the September 2025 re-recording (on a 404 of the explore page). */
const NID_2025 =
  'NID=525=fdpP1RK0btQ0y0-jLQM5OdG0RDD2xpMjbzXwyN2kgqV0Its7iZ02DwtYvJc3A0Vwy3GSm7PVy2n43X9e2zAk00riDuh8-E7xK24SsY_6zkmQY8TsIP4eOjNKNv5ldEXorcmFAMRd8EYGT3Q4Xt2PKI1WaBdbbokWEVL6OMJYChw';

/** The page the client takes its cookie from: the home page, as in 2026 (200, with Set-Cookie: NID=…; the value is 2025's). */
function cookiePage() {
  return nock(GOOGLE)
    .get('/trends/')
    .reply(200, '<!doctype html><title>Google Trends</title>', {
      'set-cookie': `${NID_2025}; expires=Fri, 20-Mar-2027 06:04:13 GMT; path=/; domain=.google.com; Secure; HttpOnly; SameSite=none`,
    });
}

/** JSON as Google writes it into a page's JSON.parse('…'): quotes, brackets and markup as \xHH. */
const inPage = (json: unknown) =>
  JSON.stringify(json)
    .replace(/\\/g, '\\\\')
    .replace(/["'{}[\]<>=&]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);

/** An embed page for `id`, holding the recorded explore answer's widget of that id, labelled `userType`. */
function embedPage(cassette: string, id: 'RELATED_QUERIES' | 'RELATED_TOPICS', userType = 'USER_TYPE_EMBED') {
  const explore = JSON.parse(recorded(cassette, /_explore_200\.json\.txt$/).replace(/^\)\]\}',?\s*/, '')) as {
    widgets: Array<{ id: string; request: Record<string, unknown> }>;
  };
  const widget = explore.widgets.find((w) => w.id === id || w.id === `${id}_0`)!;
  const page = `<html><body><script>var widget = JSON.parse('${inPage({ ...widget, request: { ...widget.request, userConfig: { userType } } })}');</script></body></html>`;
  return nock(GOOGLE, { reqheaders: { cookie: NID_2025 } })
    .get(`/trends/embed/explore/${id}`)
    .query((q) => typeof q.req === 'string' && (JSON.parse(q.req).comparisonItem as Array<{ keyword: string }>).length === 1)
    .reply(200, page, { 'content-type': 'text/html; charset=UTF-8' });
}

/** Explore for a related list, whose own widget answers the list empty (as Google answered automated clients from 2024-08): the embed flow is asked next. */
function exploreListedEmpty(cassette: string, keywordType: 'QUERY' | 'ENTITY', cookieKept = false) {
  if (cookieKept)
    nock(GOOGLE, { reqheaders: { cookie: NID_2025 } })
      .get('/trends/api/explore')
      .query(true)
      .reply(200, recorded(cassette, /_explore_200\.json\.txt$/));
  else explore(cassette, 'pizza');
  return nock(GOOGLE, { reqheaders: { cookie: NID_2025 } })
    .get('/trends/api/widgetdata/relatedsearches')
    .query(
      (q) => JSON.parse(String(q.req)).keywordType === keywordType && JSON.parse(String(q.req)).userConfig?.userType !== 'USER_TYPE_EMBED',
    )
    .reply(200, `)]}',\n{"default":{"rankedList":[]}}`);
}

beforeAll(() => {
  nock.disableNetConnect();
});
afterEach(() => {
  expect(nock.isDone(), `pending mocks: ${nock.pendingMocks().join(', ')}`).toBe(true);
  nock.cleanAll();
});
afterAll(() => {
  nock.enableNetConnect();
});

/** What the package asks Google, checked: the explore call carries our keyword in `req` (after the cookie page). */
function explore(cassette: string, keyword: string) {
  cookiePage();
  return nock(GOOGLE, { reqheaders: { cookie: NID_2025 } })
    .get('/trends/api/explore')
    .query(
      (q) =>
        typeof q.req === 'string' && (JSON.parse(q.req).comparisonItem as Array<{ keyword: string }>).some((c) => c.keyword === keyword),
    )
    .reply(200, recorded(cassette, /_explore_200\.json\.txt$/));
}

describe('google provider over recorded HTTP', () => {
  it('parses interest over time', async () => {
    explore('test_interest_over_time_ok__f6b2d0c230', 'pizza');
    nock(GOOGLE)
      .get('/trends/api/widgetdata/multiline')
      .query((q) => typeof q.token === 'string' && q.token.length > 10)
      .reply(200, recorded('test_interest_over_time_ok__f6b2d0c230', /multiline_200/));
    const result = await provider.fetch({ kind: 'interestOverTime', keywords: ['pizza', 'bagel'], timeframe: '30d', geo: '' });
    expect(result.kind).toBe('interestOverTime');
    if (result.kind !== 'interestOverTime') return;
    expect(result.points[0]).toEqual({ date: '2021-01-01', values: [100, 2], hasData: [true, true], isPartial: false });
    expect(result.points.length).toBeGreaterThanOrEqual(5);
  });

  it("asks related queries through the embed flow when explore's own widget lists none: the embed page, then its token for the list (top and rising, with Breakout)", async () => {
    exploreListedEmpty('test_related_queries_result_rising__f6b2d0c230', 'QUERY');
    embedPage('test_related_queries_result_rising__f6b2d0c230', 'RELATED_QUERIES');
    nock(GOOGLE, { reqheaders: { cookie: NID_2025, referer: 'https://trends.google.com/trends/explore' } })
      .get('/trends/api/widgetdata/relatedsearches')
      // The token and the request the embed page held, echoed as Google signed them.
      .query(
        (q) =>
          typeof q.token === 'string' && q.token.startsWith('APP6_') && JSON.parse(String(q.req)).userConfig.userType === 'USER_TYPE_EMBED',
      )
      .reply(200, recorded('test_related_queries_result_rising__f6b2d0c230', /02_GET_trends_api_widgetdata_relatedsearches/));
    const result = await provider.fetch({ kind: 'relatedQueries', keyword: 'pizza', timeframe: '12m', geo: '' });
    if (result.kind !== 'relatedQueries') throw new Error(result.kind);
    expect(result.top.length).toBeGreaterThan(5);
    expect(result.top[0]).toMatchObject({ label: 'pizza hut', value: 100, breakout: false });
    expect(result.rising.length).toBeGreaterThan(0);
    expect(result.provenance).toMatchObject({ requests: 5, via: 'embed', userType: 'USER_TYPE_EMBED' });
  });

  it('parses related topics through the embed flow, with their Freebase ids', async () => {
    exploreListedEmpty('test_related_topics_result_top__f6b2d0c230', 'ENTITY');
    embedPage('test_related_topics_result_top__f6b2d0c230', 'RELATED_TOPICS');
    nock(GOOGLE)
      .get('/trends/api/widgetdata/relatedsearches')
      .query((q) => JSON.parse(String(q.req)).keywordType === 'ENTITY')
      .reply(200, recorded('test_related_topics_result_top__f6b2d0c230', /02_GET_trends_api_widgetdata_relatedsearches/));
    const result = await provider.fetch({ kind: 'relatedTopics', keyword: 'pizza', timeframe: '12m', geo: '' });
    if (result.kind !== 'relatedTopics') throw new Error(result.kind);
    expect(result.top[0]!.topic?.mid).toMatch(/^\/[mg]\//);
  });

  it("stops at an embed token over the embed quota: no data request; explore's empty list is the answer, marked so (the route's embed pages then close)", async () => {
    exploreListedEmpty('test_related_queries_result_rising__f6b2d0c230', 'QUERY');
    embedPage('test_related_queries_result_rising__f6b2d0c230', 'RELATED_QUERIES', 'USER_TYPE_EMBED_OVER_QUOTA');
    const result = await provider.fetch({ kind: 'relatedQueries', keyword: 'pizza', timeframe: '12m', geo: '' });
    expect(result).toMatchObject({ kind: 'relatedQueries', top: [], outcome: 'empty' });
    expect(result.provenance).toMatchObject({ requests: 4, via: 'explore', embedOverQuota: true, userType: 'USER_TYPE_EMBED_OVER_QUOTA' });
  });

  it("reads related queries from explore's own widget when it lists them (as measured on 2026-09-09): no embed page", async () => {
    explore('test_related_queries_result_rising__f6b2d0c230', 'pizza');
    nock(GOOGLE)
      .get('/trends/api/widgetdata/relatedsearches')
      .query((q) => JSON.parse(String(q.req)).keywordType === 'QUERY')
      .reply(200, recorded('test_related_queries_result_rising__f6b2d0c230', /02_GET_trends_api_widgetdata_relatedsearches/));
    const result = await provider.fetch({ kind: 'relatedQueries', keyword: 'pizza', timeframe: '12m', geo: '' });
    if (result.kind !== 'relatedQueries') throw new Error(result.kind);
    expect(result.top[0]).toMatchObject({ label: 'pizza hut', value: 100 });
    expect(result.provenance).toMatchObject({ requests: 3, via: 'explore', userType: 'USER_TYPE_SCRAPER' });
  });

  it('parses interest by region for the phrase and the anchor (shares per place)', async () => {
    explore('test_interest_by_region_ok__f6b2d0c230', 'bagel');
    nock(GOOGLE)
      .get('/trends/api/widgetdata/comparedgeo')
      .query((q) => typeof q.req === 'string' && JSON.parse(q.req).resolution === 'COUNTRY')
      .reply(200, recorded('test_interest_by_region_ok__f6b2d0c230', /comparedgeo_200/));
    const result = await provider.fetch({
      kind: 'interestByRegion',
      keywords: ['pizza', 'bagel'],
      timeframe: '12m',
      geo: '',
      resolution: 'COUNTRY',
    });
    if (result.kind !== 'interestByRegion') throw new Error(result.kind);
    expect(result.regions.find((r) => r.geoCode === 'CA')).toEqual({
      geoCode: 'CA',
      geoName: 'Canada',
      values: [98, 2],
      hasData: [true, true],
    });
    expect(result.regions.find((r) => r.geoCode === 'PR')).toEqual({
      geoCode: 'PR',
      geoName: 'Puerto Rico',
      values: [0, 0],
      hasData: [false, false],
    });
  });

  it("asks no city map of a widget that is by country: explore picks the map's resolution from the geo, and an edited widget request is a 401 (gtrends, 2026-09-09), so the map is no data", async () => {
    explore('test_interest_by_region_city_resolution__f6b2d0c230', 'bagel');
    const result = await provider.fetch({
      kind: 'interestByRegion',
      keywords: ['pizza', 'bagel'],
      timeframe: '12m',
      geo: '',
      resolution: 'CITY',
    });
    expect(result).toMatchObject({ kind: 'interestByRegion', regions: [], outcome: 'no_data' });
    expect(result.provenance?.requests).toBe(2); // the cookie page and explore: no widget request
  });

  it('parses a city map (places named without a code) where explore serves its widget by city, sent as served', async () => {
    cookiePage();
    const served = recorded('test_interest_by_region_city_resolution__f6b2d0c230', /_explore_200\.json\.txt$/).replace(
      /"resolution":"COUNTRY"/g,
      '"resolution":"CITY"',
    );
    nock(GOOGLE, { reqheaders: { cookie: NID_2025 } })
      .get('/trends/api/explore')
      .query(true)
      .reply(200, served);
    nock(GOOGLE)
      .get('/trends/api/widgetdata/comparedgeo')
      .query((q) => typeof q.req === 'string' && JSON.parse(q.req).resolution === 'CITY')
      .reply(200, recorded('test_interest_by_region_city_resolution__f6b2d0c230', /comparedgeo_200/));
    const result = await provider.fetch({
      kind: 'interestByRegion',
      keywords: ['pizza', 'bagel'],
      timeframe: '12m',
      geo: '',
      resolution: 'CITY',
    });
    if (result.kind !== 'interestByRegion') throw new Error(result.kind);
    expect(result.regions.length).toBe(200);
    const withData = result.regions.filter((r) => r.hasData[0]);
    expect(withData.length).toBe(7);
    expect(withData.every((r) => r.geoCode === '' && r.geoName.length > 0 && r.values[0]! + r.values[1]! === 100)).toBe(true);
  });

  it('fails a map answer whose places do not carry one value per keyword', async () => {
    explore('test_interest_by_region_ok__f6b2d0c230', 'pizza');
    nock(GOOGLE)
      .get('/trends/api/widgetdata/comparedgeo')
      .query(true)
      .reply(200, recorded('test_interest_by_region_ok__f6b2d0c230', /comparedgeo_200/));
    await expect(
      provider.fetch({ kind: 'interestByRegion', keywords: ['pizza'], timeframe: '12m', geo: '', resolution: 'COUNTRY' }),
    ).rejects.toThrow(/malformed: a place has 2 values for 1 keywords/);
  });

  it('parses autocomplete with one request after the cookie page (no explore, as pytrends asks it), sent as a browser', async () => {
    cookiePage();
    nock(GOOGLE, {
      reqheaders: {
        cookie: NID_2025,
        'user-agent': BROWSER_USER_AGENT,
        'accept-language': 'en-US,en;q=0.9',
        referer: 'https://trends.google.com/trends/explore',
      },
    })
      .get('/trends/api/autocomplete/pizza')
      .query(true)
      .reply(200, recorded('test_suggestions_ok__f6b2d0c230', /autocomplete_pizza_200/));
    const result = await provider.fetch({ kind: 'autocomplete', term: 'pizza' });
    if (result.kind !== 'autocomplete') throw new Error(result.kind);
    expect(result.topics[0]).toEqual({ mid: '/m/0663v', title: 'Pizza', type: 'Dish' });
    expect(result.outcome).toBe('served');
    expect(result.provenance).toMatchObject({ provider: 'google', requests: 2, route: 'direct' });
  });

  it('answers several widgets from one explore: series, related queries and topics, the map by country; by city, no data (its widget is by country, and is not edited)', async () => {
    cookiePage();
    nock(GOOGLE)
      .get('/trends/api/explore')
      .query(true)
      .reply(200, recorded('test_related_topics_result_top__f6b2d0c230', /_explore_200\.json\.txt$/));
    nock(GOOGLE)
      .get('/trends/api/widgetdata/multiline')
      .query(true)
      .reply(200, recorded('test_interest_over_time_ok__f6b2d0c230', /multiline_200/));
    nock(GOOGLE)
      .get('/trends/api/widgetdata/relatedsearches')
      .query((q) => JSON.parse(String(q.req)).keywordType === 'QUERY')
      .reply(200, recorded('test_related_queries_result_rising__f6b2d0c230', /02_GET_trends_api_widgetdata_relatedsearches/));
    nock(GOOGLE)
      .get('/trends/api/widgetdata/relatedsearches')
      .query((q) => JSON.parse(String(q.req)).keywordType === 'ENTITY')
      .reply(200, recorded('test_related_topics_result_top__f6b2d0c230', /02_GET_trends_api_widgetdata_relatedsearches/));
    nock(GOOGLE)
      .get('/trends/api/widgetdata/comparedgeo')
      .query((q) => JSON.parse(String(q.req)).resolution === 'COUNTRY')
      .reply(
        200,
        recorded('test_interest_by_region_city_resolution__f6b2d0c230', /comparedgeo_200/)
          .replace(/"value":\[(\d+),\d+\]/g, '"value":[$1]')
          .replace(/"hasData":\[(true|false),(true|false)\]/g, '"hasData":[$1]'),
      );
    const result = await provider.fetch({
      kind: 'explore',
      keywords: ['pizza'],
      timeframe: '12m',
      geo: '',
      parts: ['series', 'relatedQueries', 'relatedTopics', 'mapCountry', 'mapCity'],
    });
    if (result.kind !== 'explore') throw new Error(result.kind);
    expect(result.series?.points.length).toBeGreaterThan(0);
    expect(result.relatedQueries?.top.length).toBeGreaterThan(0);
    expect(result.relatedTopics?.top[0]?.topic?.mid).toMatch(/^\/m\//);
    expect(result.mapCountry?.regions.length).toBeGreaterThan(0);
    expect(result.mapCity).toMatchObject({ regions: [], outcome: 'no_data' });
    expect(result.provenance?.requests).toBe(6); // the cookie page, one explore and four widgets, where the package would make ten requests
  });

  it('reads related lists answered as Google answers automated clients since 2024-08 as empty, not as an error', async () => {
    exploreListedEmpty('test_related_queries_result_rising__f6b2d0c230', 'QUERY');
    embedPage('test_related_queries_result_rising__f6b2d0c230', 'RELATED_QUERIES');
    nock(GOOGLE).get('/trends/api/widgetdata/relatedsearches').query(true).reply(200, `)]}',\n{"default":{"rankedList":[]}}`);
    const result = await provider.fetch({ kind: 'relatedQueries', keyword: 'pizza', timeframe: '12m', geo: '' });
    expect(result).toMatchObject({ kind: 'relatedQueries', top: [], rising: [], outcome: 'empty' });
  });

  it('fetches a fresh cookie from the home page when Google stops taking the one it kept, and asks once more', async () => {
    cookiePage();
    nock(GOOGLE)
      .get('/trends/api/autocomplete/pizza')
      .query(true)
      .reply(200, recorded('test_suggestions_ok__f6b2d0c230', /autocomplete_pizza_200/));
    await provider.fetch({ kind: 'autocomplete', term: 'pizza' });
    // Google no longer takes the kept cookie: a plain 429 (no Set-Cookie, no Retry-After).
    nock(GOOGLE).get('/trends/api/autocomplete/bagel').query(true).reply(429, 'Too many requests');
    nock(GOOGLE).get('/trends/').reply(200, '<html>Google Trends</html>', { 'set-cookie': 'NID=511=fresh; path=/; domain=.google.com' });
    nock(GOOGLE, { reqheaders: { cookie: 'NID=511=fresh' } })
      .get('/trends/api/autocomplete/bagel')
      .query(true)
      .reply(200, recorded('test_suggestions_ok__f6b2d0c230', /autocomplete_pizza_200/));
    const result = await provider.fetch({ kind: 'autocomplete', term: 'bagel' });
    expect(result.provenance?.requests).toBe(3);
  });

  it('a plain 429 to a kept cookie, then a plain 429 from the home page, is a block: no other page is sent into it', async () => {
    cookiePage();
    nock(GOOGLE)
      .get('/trends/api/autocomplete/pizza')
      .query(true)
      .reply(200, recorded('test_suggestions_ok__f6b2d0c230', /autocomplete_pizza_200/));
    await provider.fetch({ kind: 'autocomplete', term: 'pizza' });
    nock(GOOGLE).get('/trends/api/autocomplete/bagel').query(true).reply(429, '<title>Error 429 (Too Many Requests)!!1</title>');
    nock(GOOGLE).get('/trends/').reply(429, '<title>Error 429 (Too Many Requests)!!1</title>');
    const error = await provider.fetch({ kind: 'autocomplete', term: 'bagel' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error).toMatchObject({ requests: 2 });
    // The block did not cost the route its cookie: the next request (after the cooldown) carries it.
    nock(GOOGLE, { reqheaders: { cookie: NID_2025 } })
      .get('/trends/api/autocomplete/waffle')
      .query(true)
      .reply(200, recorded('test_suggestions_ok__f6b2d0c230', /autocomplete_pizza_200/));
    expect((await provider.fetch({ kind: 'autocomplete', term: 'waffle' })).provenance?.requests).toBe(1);
  });

  it('a block that sets a cookie is still a block: nothing is sent into it on that cookie', async () => {
    nock(GOOGLE)
      .get('/trends/')
      .reply(302, recorded2025('test_tokens', /01_POST_trends_api_explore_302/), {
        location: 'https://www.google.com/sorry/index?continue=x',
        'set-cookie': 'NID=511=blocked; path=/; domain=.google.com',
      });
    const error = await provider.fetch({ kind: 'autocomplete', term: 'pizza' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ block: 'sorry_302', requests: 1 });
  });

  it('a "sorry" page under a 503 is a block, not Google being unwell (which would be retried into it)', async () => {
    cookiePage();
    nock(GOOGLE)
      .get('/trends/api/explore')
      .query(true)
      .reply(503, recorded2025('test_suggestions_ok', /02_GET_sorry_index_429/));
    await expect(provider.fetch({ kind: 'interestOverTime', keywords: ['pizza'], timeframe: '30d', geo: '' })).rejects.toMatchObject({
      name: 'RateLimitedError',
      block: 'unusual_traffic',
    });
    nock(GOOGLE)
      .get('/trends/api/explore')
      .query(true)
      .reply(503, 'Service Unavailable', { location: 'https://www.google.com/sorry/index?continue=x' });
    await expect(provider.fetch({ kind: 'interestOverTime', keywords: ['pizza'], timeframe: '30d', geo: '' })).rejects.toMatchObject({
      name: 'RateLimitedError',
    });
  });

  it('takes the cookie from the explore page (the 2025 recording: a 404 that sets it) when the home page refuses one without blocking', async () => {
    nock(GOOGLE).get('/trends/').reply(429, '<title>Error 429 (Too Many Requests)!!1</title>');
    nock(GOOGLE)
      .get('/trends/explore')
      .query(true)
      .reply(404, recorded2025('test_interest_over_time_ok', /00_GET_trends_explore_404/), {
        'set-cookie': `${NID_2025}; path=/; domain=.google.com; HttpOnly`,
      });
    nock(GOOGLE, { reqheaders: { cookie: NID_2025 } })
      .get('/trends/api/autocomplete/pizza')
      .query(true)
      .reply(200, recorded('test_suggestions_ok__f6b2d0c230', /autocomplete_pizza_200/));
    const result = await provider.fetch({ kind: 'autocomplete', term: 'pizza' });
    expect(result.provenance?.requests).toBe(3);
  });

  it('a 429 that carries Retry-After is a block at once, even to a kept cookie: no new cookie, nothing sent again, the wait Google asked for', async () => {
    cookiePage();
    nock(GOOGLE)
      .get('/trends/api/autocomplete/pizza')
      .query(true)
      .reply(200, recorded('test_suggestions_ok__f6b2d0c230', /autocomplete_pizza_200/));
    await provider.fetch({ kind: 'autocomplete', term: 'pizza' });
    nock(GOOGLE)
      .get('/trends/api/autocomplete/bagel')
      .query(true)
      .reply(429, '<title>Error 429 (Too Many Requests)!!1</title>', { 'retry-after': '1800' });
    const error = await provider.fetch({ kind: 'autocomplete', term: 'bagel' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error).toMatchObject({ block: 'too_many_429', retryAfterMs: 1_800_000, requests: 1 });
  });

  it('reads a 403 "unusual traffic" page as a block, with the Retry-After it carries as an HTTP date', async () => {
    cookiePage();
    const at = new Date(Date.now() + 600_000).toUTCString();
    nock(GOOGLE)
      .get('/trends/api/explore')
      .query(true)
      .reply(403, recorded2025('test_suggestions_ok', /02_GET_sorry_index_429/), { 'retry-after': at });
    const error = await provider
      .fetch({ kind: 'interestOverTime', keywords: ['pizza'], timeframe: '30d', geo: '' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).block).toBe('forbidden_403');
    expect((error as RateLimitedError).retryAfterMs).toBeGreaterThan(590_000);
    expect((error as RateLimitedError).retryAfterMs).toBeLessThanOrEqual(600_000);
  });

  it('classifies the 2025 recording\'s refusals as blocked: the 302 to the "sorry" page, and its 429 page', async () => {
    cookiePage();
    nock(GOOGLE)
      .get('/trends/api/explore')
      .query(true)
      .reply(302, recorded2025('test_interest_over_time_ok', /01_POST_trends_api_explore_302/), {
        location: 'https://www.google.com/sorry/index?continue=https://trends.google.com/trends/api/explore',
      });
    await expect(provider.fetch({ kind: 'interestOverTime', keywords: ['pizza'], timeframe: '30d', geo: '' })).rejects.toMatchObject({
      block: 'sorry_302',
    });

    nock(GOOGLE)
      .get('/trends/api/autocomplete/pizza')
      .query(true)
      .reply(429, recorded2025('test_suggestions_ok', /02_GET_sorry_index_429/));
    const error = await provider.fetch({ kind: 'autocomplete', term: 'pizza' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as { requests: number }).requests).toBe(1); // the sorry page is a block at once: no cookie retry
  });

  it('classifies a block of the home page itself as blocked, and asks no other page', async () => {
    nock(GOOGLE)
      .get('/trends/')
      .reply(302, recorded2025('test_tokens', /01_POST_trends_api_explore_302/), {
        location: 'https://www.google.com/sorry/index?continue=x',
      });
    const error = await provider.fetch({ kind: 'autocomplete', term: 'pizza' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error).toMatchObject({ requests: 1 });
  });

  it('a plain 429 from the home page, the explore page and the trending page is a block (every page that hands out the cookie was tried)', async () => {
    nock(GOOGLE).get('/trends/').reply(429, '<title>Error 429 (Too Many Requests)!!1</title>');
    nock(GOOGLE).get('/trends/explore').query(true).reply(429, '<title>Error 429 (Too Many Requests)!!1</title>');
    nock(GOOGLE).get('/trending').query(true).reply(429, '<title>Error 429 (Too Many Requests)!!1</title>');
    const error = await provider.fetch({ kind: 'autocomplete', term: 'pizza' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error).toMatchObject({ requests: 3 });
  });

  it("learns the page that hands out the route's cookie (the trending page, where the home page answers without one) and asks it first next time", async () => {
    nock(GOOGLE).get('/trends/').reply(200, '<html>Google Trends</html>');
    nock(GOOGLE).get('/trends/explore').query(true).reply(429, '<title>Error 429 (Too Many Requests)!!1</title>');
    nock(GOOGLE)
      .get('/trending')
      .query(true)
      .reply(200, '<html>Trending now</html>', { 'set-cookie': `${NID_2025}; path=/; domain=.google.com` });
    nock(GOOGLE, { reqheaders: { cookie: NID_2025 } })
      .get('/trends/api/autocomplete/pizza')
      .query(true)
      .reply(200, recorded('test_suggestions_ok__f6b2d0c230', /autocomplete_pizza_200/));
    expect((await provider.fetch({ kind: 'autocomplete', term: 'pizza' })).provenance).toMatchObject({ requests: 4 });
    forgetGoogleCookies();
    const jar = new MemoryCookieJar();
    await jar.learn('direct', 'warm_up', '/trending');
    nock(GOOGLE)
      .get('/trending')
      .query(true)
      .reply(200, '<html>Trending now</html>', { 'set-cookie': `${NID_2025}; path=/; domain=.google.com` });
    nock(GOOGLE, { reqheaders: { cookie: NID_2025 } })
      .get('/trends/api/autocomplete/pizza')
      .query(true)
      .reply(200, recorded('test_suggestions_ok__f6b2d0c230', /autocomplete_pizza_200/));
    expect((await provider.fetch({ kind: 'autocomplete', term: 'pizza' }, undefined, { jar })).provenance).toMatchObject({ requests: 2 });
  });

  it("passes Google's cookie gate (a cookieless call's 429 that sets NID: sent again at once, once), and then reads a plain 429 with no new cookie as the rate limit, not a stale cookie", async () => {
    const jar = new MemoryCookieJar();
    await jar.learn('direct', 'warm_up', COOKIE_GATE);
    nock(GOOGLE, { badheaders: ['cookie'] })
      .get('/trends/api/autocomplete/pizza')
      .query(true)
      .reply(429, '<title>Error 429 (Too Many Requests)!!1</title>', { 'set-cookie': `${NID_2025}; path=/; domain=.google.com` });
    nock(GOOGLE, { reqheaders: { cookie: NID_2025 } })
      .get('/trends/api/autocomplete/pizza')
      .query(true)
      .reply(200, recorded('test_suggestions_ok__f6b2d0c230', /autocomplete_pizza_200/));
    expect((await provider.fetch({ kind: 'autocomplete', term: 'pizza' }, undefined, { jar })).provenance).toMatchObject({ requests: 2 });
    expect(await jar.get('direct')).toBe(NID_2025);
    nock(GOOGLE, { reqheaders: { cookie: NID_2025 } })
      .get('/trends/api/autocomplete/pizza')
      .query(true)
      .reply(429, '<title>Error 429 (Too Many Requests)!!1</title>');
    const error = await provider.fetch({ kind: 'autocomplete', term: 'pizza' }, undefined, { jar }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as Error).message).toMatch(/no new cookie/);
    expect(error).toMatchObject({ requests: 1 });
  });

  it('reports a 400 as refused, a 5xx as Google unavailable, and a page without the cookie or a 404 endpoint as a changed shape', async () => {
    cookiePage();
    nock(GOOGLE).get('/trends/api/explore').query(true).reply(400, '<html>Error 400 (Bad Request)!!1</html>');
    await expect(provider.fetch({ kind: 'interestOverTime', keywords: ['pizza'], timeframe: '30d', geo: '' })).rejects.toBeInstanceOf(
      RefusedError,
    );
    nock(GOOGLE).get('/trends/api/explore').query(true).reply(503, 'Service Unavailable');
    await expect(provider.fetch({ kind: 'interestOverTime', keywords: ['pizza'], timeframe: '30d', geo: '' })).rejects.toBeInstanceOf(
      GoogleUnavailableError,
    );
    nock(GOOGLE)
      .get('/trends/api/autocomplete/pizza')
      .query(true)
      .reply(404, recorded2025('test_initial_data', /00_GET_trends_explore_404/));
    await expect(provider.fetch({ kind: 'autocomplete', term: 'pizza' })).rejects.toThrow(/answered 404 .*the endpoint is gone/);

    forgetGoogleCookies();
    nock(GOOGLE).get('/trends/').reply(200, '<html>Google Trends</html>');
    nock(GOOGLE).get('/trends/explore').query(true).reply(200, '<html>Google Trends</html>');
    nock(GOOGLE).get('/trending').query(true).reply(200, '<html>Google Trends</html>');
    const error = await provider.fetch({ kind: 'autocomplete', term: 'pizza' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MalformedResponseError);
    expect((error as Error).message).toMatch(/handed out no NID cookie/);
  });

  it('reads the trending RSS feed without a cookie page', async () => {
    const feed = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<rss xmlns:atom="http://www.w3.org/2005/Atom" xmlns:ht="https://trends.google.com/trending/rss" version="2.0">
<channel><title>Daily Search Trends</title><description>Recent searches</description><link>https://trends.google.com/trending/rss?geo=US</link>
<item><title>madureira vs vasco da gama</title><ht:approx_traffic>200+</ht:approx_traffic><description/><link>https://trends.google.com/trending/rss?geo=US</link>
<pubDate>Mon, 2 Feb 2026 17:10:00 -0800</pubDate><ht:picture>https://encrypted-tbn3.gstatic.com/images?q=tbn:1</ht:picture><ht:picture_source>The Playoffs</ht:picture_source>
<ht:news_item><ht:news_item_title>Fim da 5ª rodada do Campeonato Carioca</ht:news_item_title><ht:news_item_snippet/><ht:news_item_url>https://theplayoffs.news/noticias/fim</ht:news_item_url><ht:news_item_picture>https://encrypted-tbn3.gstatic.com/images?q=tbn:1</ht:news_item_picture><ht:news_item_source>The Playoffs</ht:news_item_source></ht:news_item>
<ht:news_item><ht:news_item_title>Puma perde p&#234;nalti &amp; Brenner vacila</ht:news_item_title><ht:news_item_snippet/><ht:news_item_url>javascript:alert(1)</ht:news_item_url><ht:news_item_source>OneFootball</ht:news_item_source></ht:news_item>
</item></channel></rss>`;
    nock(GOOGLE, { badheaders: ['cookie'] })
      .get('/trending/rss')
      .query({ geo: 'US' })
      .reply(200, feed, { 'content-type': 'application/rss+xml; charset=utf-8' });
    const result = await provider.fetch({ kind: 'trendingFeed', geo: 'US' });
    expect(result).toMatchObject({
      kind: 'trendingFeed',
      items: [
        {
          query: 'madureira vs vasco da gama',
          approxTraffic: '200+',
          published: '2026-02-03T01:10:00.000Z',
          news: [
            { title: 'Fim da 5ª rodada do Campeonato Carioca', source: 'The Playoffs', url: 'https://theplayoffs.news/noticias/fim' },
            { title: 'Puma perde pênalti & Brenner vacila', source: 'OneFootball', url: '' }, // only http(s) links are kept
          ],
        },
      ],
      provenance: { requests: 1 },
    });
  });

  it('reports a malformed answer as MalformedResponseError with a clear message', async () => {
    cookiePage();
    nock(GOOGLE)
      .get('/trends/api/explore')
      .query(true)
      .reply(200, recorded('test_interest_over_time_ok__f6b2d0c230', /00_GET_trends_explore_404/));
    const error = await provider
      .fetch({ kind: 'interestOverTime', keywords: ['pizza'], timeframe: '12m', geo: '' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MalformedResponseError);
    expect((error as Error).message).toMatch(/interest over time for "pizza".*not its JSON/);

    exploreListedEmpty('test_related_queries_result_rising__f6b2d0c230', 'QUERY', true);
    nock(GOOGLE).get('/trends/embed/explore/RELATED_QUERIES').query(true).reply(200, '<html><body>Google Trends</body></html>');
    await expect(provider.fetch({ kind: 'relatedQueries', keyword: 'pizza', timeframe: '12m', geo: '' })).rejects.toThrow(
      /embed page of related queries for "pizza".*holds no JSON.parse/,
    );

    nock(GOOGLE).get('/trends/api/autocomplete/pizza').query(true).reply(200, ')]}\',\n{"default":{"nothing":1}}');
    await expect(provider.fetch({ kind: 'autocomplete', term: 'pizza' })).rejects.toThrow(/malformed: no default.topics/);
  });
});
