// The Google adapter through its real HTTPS path: nock intercepts the requests
// made to trends.google.com (the endpoints google-trends-api and pytrends call)
// and answers with the bodies Google really returned (recorded by pytrends'
// test suite). The loopback Google (test/integration/google-loopback.test.ts)
// covers the same path through a proxy, without interception.
import nock from 'nock';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { forgetGoogleCookies } from '../../src/trends/google-client.js';
import { GoogleTrendsProvider } from '../../src/trends/google.provider.js';
import { MalformedResponseError, RateLimitedError } from '../../src/trends/types.js';
import { recordedBody } from '../support/recorded.js';

const GOOGLE = 'https://trends.google.com';
const provider = new GoogleTrendsProvider({ now: () => new Date('2023-03-26T00:00:00Z') });
beforeEach(() => forgetGoogleCookies());
const recorded = (cassette: string, file: RegExp) => recordedBody('pytrends', cassette, file);

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

/** What the package asks Google, checked: the explore call carries our keyword in `req`. */
function explore(cassette: string, keyword: string) {
  return nock(GOOGLE)
    .get('/trends/api/explore')
    .query((q) => typeof q.req === 'string' && (JSON.parse(q.req).comparisonItem as Array<{ keyword: string }>).some((c) => c.keyword === keyword))
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

  it('parses related queries (top and rising, with Breakout)', async () => {
    explore('test_related_queries_result_rising__f6b2d0c230', 'pizza');
    nock(GOOGLE)
      .get('/trends/api/widgetdata/relatedsearches')
      .query(true)
      .reply(200, recorded('test_related_queries_result_rising__f6b2d0c230', /02_GET_trends_api_widgetdata_relatedsearches/));
    const result = await provider.fetch({ kind: 'relatedQueries', keyword: 'pizza', timeframe: '12m', geo: '' });
    if (result.kind !== 'relatedQueries') throw new Error(result.kind);
    expect(result.top.length).toBeGreaterThan(5);
    expect(result.top[0]).toMatchObject({ label: 'pizza hut', value: 100, breakout: false });
    expect(result.rising.length).toBeGreaterThan(0);
  });

  it('parses related topics with their Freebase ids', async () => {
    explore('test_related_topics_result_top__f6b2d0c230', 'pizza');
    nock(GOOGLE)
      .get('/trends/api/widgetdata/relatedsearches')
      .query(true)
      .reply(200, recorded('test_related_topics_result_top__f6b2d0c230', /02_GET_trends_api_widgetdata_relatedsearches/));
    const result = await provider.fetch({ kind: 'relatedTopics', keyword: 'pizza', timeframe: '12m', geo: '' });
    if (result.kind !== 'relatedTopics') throw new Error(result.kind);
    expect(result.top[0]!.topic?.mid).toMatch(/^\/[mg]\//);
  });

  it('parses interest by region for the phrase and the anchor (shares per place)', async () => {
    explore('test_interest_by_region_ok__f6b2d0c230', 'bagel');
    nock(GOOGLE)
      .get('/trends/api/widgetdata/comparedgeo')
      .query((q) => typeof q.req === 'string' && JSON.parse(q.req).resolution === 'COUNTRY')
      .reply(200, recorded('test_interest_by_region_ok__f6b2d0c230', /comparedgeo_200/));
    const result = await provider.fetch({ kind: 'interestByRegion', keywords: ['pizza', 'bagel'], timeframe: '12m', geo: '', resolution: 'COUNTRY' });
    if (result.kind !== 'interestByRegion') throw new Error(result.kind);
    expect(result.regions.find((r) => r.geoCode === 'CA')).toEqual({ geoCode: 'CA', geoName: 'Canada', values: [98, 2], hasData: [true, true] });
    expect(result.regions.find((r) => r.geoCode === 'PR')).toEqual({ geoCode: 'PR', geoName: 'Puerto Rico', values: [0, 0], hasData: [false, false] });
  });

  it('asks for cities worldwide and parses places named without a code', async () => {
    explore('test_interest_by_region_city_resolution__f6b2d0c230', 'bagel');
    nock(GOOGLE)
      .get('/trends/api/widgetdata/comparedgeo')
      .query((q) => typeof q.req === 'string' && JSON.parse(q.req).resolution === 'CITY')
      .reply(200, recorded('test_interest_by_region_city_resolution__f6b2d0c230', /comparedgeo_200/));
    const result = await provider.fetch({ kind: 'interestByRegion', keywords: ['pizza', 'bagel'], timeframe: '12m', geo: '', resolution: 'CITY' });
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
    await expect(provider.fetch({ kind: 'interestByRegion', keywords: ['pizza'], timeframe: '12m', geo: '', resolution: 'COUNTRY' })).rejects.toThrow(
      /malformed: a place has 2 values for 1 keywords/,
    );
  });

  it('parses autocomplete with one request (no explore, as pytrends asks it)', async () => {
    nock(GOOGLE).get('/trends/api/autocomplete/pizza').query(true).reply(200, recorded('test_suggestions_ok__f6b2d0c230', /autocomplete_pizza_200/));
    const result = await provider.fetch({ kind: 'autocomplete', term: 'pizza' });
    if (result.kind !== 'autocomplete') throw new Error(result.kind);
    expect(result.topics[0]).toEqual({ mid: '/m/0663v', title: 'Pizza', type: 'Dish' });
    expect(result.provenance).toMatchObject({ provider: 'google', requests: 1, route: 'direct' });
  });

  it('answers several widgets from one explore: series, related queries and topics, the map by country and by city', async () => {
    nock(GOOGLE)
      .get('/trends/api/explore')
      .query(true)
      .reply(200, recorded('test_related_topics_result_top__f6b2d0c230', /_explore_200\.json\.txt$/));
    nock(GOOGLE).get('/trends/api/widgetdata/multiline').query(true).reply(200, recorded('test_interest_over_time_ok__f6b2d0c230', /multiline_200/));
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
      .reply(200, recorded('test_interest_by_region_city_resolution__f6b2d0c230', /comparedgeo_200/).replace(/"value":\[(\d+),\d+\]/g, '"value":[$1]').replace(/"hasData":\[(true|false),(true|false)\]/g, '"hasData":[$1]'));
    nock(GOOGLE)
      .get('/trends/api/widgetdata/comparedgeo')
      .query((q) => JSON.parse(String(q.req)).resolution === 'CITY')
      .reply(200, recorded('test_interest_by_region_city_resolution__f6b2d0c230', /comparedgeo_200/).replace(/"value":\[(\d+),\d+\]/g, '"value":[$1]').replace(/"hasData":\[(true|false),(true|false)\]/g, '"hasData":[$1]'));
    const result = await provider.fetch({ kind: 'explore', keywords: ['pizza'], timeframe: '12m', geo: '', parts: ['series', 'relatedQueries', 'relatedTopics', 'mapCountry', 'mapCity'] });
    if (result.kind !== 'explore') throw new Error(result.kind);
    expect(result.series?.points.length).toBeGreaterThan(0);
    expect(result.relatedQueries?.top.length).toBeGreaterThan(0);
    expect(result.relatedTopics?.top[0]?.topic?.mid).toMatch(/^\/m\//);
    expect(result.mapCountry?.regions.length).toBeGreaterThan(0);
    expect(result.mapCity?.regions.length).toBeGreaterThan(0);
    expect(result.provenance?.requests).toBe(6); // one explore and five widgets, where the package would make ten requests
  });

  it('takes the cookie of Google\'s first 429 and repeats the request with it', async () => {
    nock(GOOGLE).get('/trends/api/autocomplete/cookie').query(true).reply(429, 'Too many', { 'set-cookie': 'NID=511=abc; expires=Fri, 01-Jan-2100 00:00:00 GMT; path=/' });
    nock(GOOGLE, { reqheaders: { cookie: 'NID=511=abc' } })
      .get('/trends/api/autocomplete/cookie')
      .query(true)
      .reply(200, recorded('test_suggestions_ok__f6b2d0c230', /autocomplete_pizza_200/));
    const result = await provider.fetch({ kind: 'autocomplete', term: 'cookie' }, { name: 'cookie-test' });
    expect(result.provenance?.requests).toBe(2);
  });

  it('reports the 2025 rate-limit redirect to the "sorry" page as RateLimitedError', async () => {
    nock(GOOGLE)
      .get('/trends/api/explore')
      .query(true)
      .reply(302, recordedBody('rate-limited-2025', 'test_interest_over_time_ok__18c9392ff6', /01_POST_trends_api_explore_302/), {
        location: 'https://www.google.com/sorry/index?continue=https://trends.google.com/trends/api/explore',
      });
    await expect(provider.fetch({ kind: 'interestOverTime', keywords: ['pizza'], timeframe: '30d', geo: '' })).rejects.toBeInstanceOf(RateLimitedError);
  });

  it('reports the 429 "sorry" page as RateLimitedError', async () => {
    nock(GOOGLE)
      .get('/trends/api/autocomplete/pizza')
      .query(true)
      .reply(429, recordedBody('rate-limited-2025', 'test_suggestions_ok__18c9392ff6', /02_GET_sorry_index_429/));
    await expect(provider.fetch({ kind: 'autocomplete', term: 'pizza' })).rejects.toBeInstanceOf(RateLimitedError);
  });

  it('reports a malformed answer as MalformedResponseError with a clear message', async () => {
    nock(GOOGLE).get('/trends/api/explore').query(true).reply(200, recorded('test_interest_over_time_ok__f6b2d0c230', /00_GET_trends_explore_404/));
    const error = await provider.fetch({ kind: 'relatedQueries', keyword: 'pizza', timeframe: '12m', geo: '' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MalformedResponseError);
    expect((error as Error).message).toMatch(/related queries for "pizza".*not its JSON/);

    nock(GOOGLE).get('/trends/api/autocomplete/pizza').query(true).reply(200, ")]}',\n{\"default\":{\"nothing\":1}}");
    await expect(provider.fetch({ kind: 'autocomplete', term: 'pizza' })).rejects.toThrow(/malformed: no default.topics/);
  });
});
