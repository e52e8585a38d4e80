// How every answer of Google is read: its outcome (served, empty, no data), a
// changed shape refused, and the trending feed parsed strictly.
import { describe, expect, it } from 'vitest';
import { classifyAnswer, outcomeOfError } from '../../src/providers/google/client.js';
import { parseComparedGeo, parseEmbedPage, parseMultiline, parseRelated, parseTrendingFeed } from '../../src/providers/google/format.js';
import { MalformedResponseError, RateLimitedError, RefusedError } from '../../src/providers/contract.js';
import { recordedBody } from '../support/recorded.js';

const point = (time: number, value: number[], hasData: boolean[]) => ({ time: String(time), value, hasData });

describe('answer outcomes', () => {
  it('related lists: no list, or two empty lists, are empty; lists with items are served; one list alone is a changed shape', () => {
    expect(parseRelated({ default: { rankedList: [] } }, 'relatedQueries', 'x')).toEqual({
      kind: 'relatedQueries',
      top: [],
      rising: [],
      outcome: 'empty',
    });
    expect(parseRelated({ default: { rankedList: [{ rankedKeyword: [] }, { rankedKeyword: [] }] } }, 'relatedTopics', 'x').outcome).toBe(
      'empty',
    );
    expect(
      parseRelated(
        { default: { rankedList: [{ rankedKeyword: [{ query: 'a', value: 100 }] }, { rankedKeyword: [] }] } },
        'relatedQueries',
        'x',
      ).outcome,
    ).toBe('served');
    expect(() => parseRelated({ default: { rankedList: [{ rankedKeyword: [] }] } }, 'relatedQueries', 'x')).toThrow(MalformedResponseError);
    expect(() => parseRelated({ default: {} }, 'relatedQueries', 'x')).toThrow(MalformedResponseError);
  });

  it('a series with no data for any keyword (or no points) is no data, its points kept; one keyword with data is served', () => {
    const none = parseMultiline(
      { default: { timelineData: [point(1700000000, [0, 0], [false, false]), point(1700086400, [0, 0], [false, false])] } },
      ['a', 'b'],
      'x',
    );
    expect(none).toMatchObject({ outcome: 'no_data' });
    expect(none.points).toHaveLength(2);
    expect(parseMultiline({ default: { timelineData: [] } }, ['a'], 'x').outcome).toBe('no_data');
    expect(parseMultiline({ default: { timelineData: [point(1700000000, [50, 0], [true, false])] } }, ['a', 'b'], 'x').outcome).toBe(
      'served',
    );
  });

  it('a map with no place having data is no data', () => {
    const row = (hasData: boolean) => ({ geoCode: 'US', geoName: 'United States', value: [0], hasData: [hasData] });
    expect(parseComparedGeo({ default: { geoMapData: [row(false), row(false)] } }, ['a'], 'x').outcome).toBe('no_data');
    expect(parseComparedGeo({ default: { geoMapData: [row(false), row(true)] } }, ['a'], 'x').outcome).toBe('served');
  });
});

describe('classifying what Google answered', () => {
  const sorry302 = recordedBody('rate-limited-2025', 'test_interest_over_time_ok__18c9392ff6', /01_POST_trends_api_explore_302/);
  const sorry429 = recordedBody('rate-limited-2025', 'test_interest_over_time_ok__18c9392ff6', /02_GET_sorry_index_429/);
  const page404 = recordedBody('rate-limited-2025', 'test_interest_over_time_ok__18c9392ff6', /00_GET_trends_explore_404/);
  const classify = (kind: Parameters<typeof classifyAnswer>[0], answer: Parameters<typeof classifyAnswer>[1]) => {
    try {
      classifyAnswer(kind, answer, 'x');
      return 'ok';
    } catch (error) {
      return outcomeOfError(error);
    }
  };

  it('the 2025 recording: the 302 to /sorry and its 429 page are blocks; the 404 page that sets NID gives the cookie', () => {
    expect(classify('explore', { status: 302, body: sorry302, location: 'https://www.google.com/sorry/index?continue=x' })).toBe('blocked');
    expect(classify('explore', { status: 302, body: sorry302 })).toBe('blocked'); // the body alone says where it leads
    expect(classify('autocomplete', { status: 429, body: sorry429 })).toBe('blocked');
    expect(classify('cookie_page', { status: 404, body: page404, nid: 'NID=525=x' })).toBe('ok');
    expect(classify('cookie_page', { status: 404, body: page404 })).toBe('changed_shape');
    expect(classify('cookie_page', { status: 302, body: sorry302, location: 'https://www.google.com/sorry/index' })).toBe('blocked');
  });

  it('400 is refused, 404 on an endpoint and an unknown redirect are changed shapes, 5xx is no answer', () => {
    expect(classify('explore', { status: 400, body: 'Bad Request' })).toBe('refused');
    expect(classify('multiline', { status: 404, body: page404 })).toBe('changed_shape');
    expect(classify('explore', { status: 302, body: '', location: 'https://accounts.google.com/ServiceLogin' })).toBe('changed_shape');
    // The EU consent wall is neither a block nor a change: a route that needs a consent cookie.
    expect(classify('explore', { status: 302, body: '', location: 'https://consent.google.com/ml?continue=x' })).toBe('consent');
    expect(
      classify('multiline', {
        status: 200,
        body: '<html><title>Before you continue to Google</title><form action="https://consent.google.com/save">',
      }),
    ).toBe('consent');
    expect(classify('explore', { status: 429, body: '<title>Error 429 (Too Many Requests)!!1</title>' })).toBe('blocked');
    expect(classify('explore', { status: 502, body: '' })).toBe('error');
    expect(outcomeOfError(new RateLimitedError('x'))).toBe('blocked');
    expect(outcomeOfError(new RefusedError('x'))).toBe('refused');
  });
});

describe('the trending RSS feed', () => {
  const feed = (items: string, root = '<rss xmlns:ht="https://trends.google.com/trending/rss" version="2.0">') =>
    `<?xml version="1.0" encoding="UTF-8"?>${root}<channel><title>Daily Search Trends</title>${items}</channel></rss>`;

  it('keeps each search with its approximate traffic, publication time and news, and drops what is not a link', () => {
    const parsed = parseTrendingFeed(
      feed(
        '<item><title> solar  panels </title><ht:approx_traffic>10K+</ht:approx_traffic><pubDate>not a date</pubDate><ht:news_item><ht:news_item_title>Panels</ht:news_item_title><ht:news_item_source>Wire</ht:news_item_source><ht:news_item_url>ftp://x</ht:news_item_url></ht:news_item></item>',
      ),
      'x',
    );
    expect(parsed).toEqual({
      kind: 'trendingFeed',
      items: [{ query: 'solar panels', approxTraffic: '10K+', published: null, news: [{ title: 'Panels', source: 'Wire', url: '' }] }],
    });
    expect(parseTrendingFeed(feed(''), 'x').items).toEqual([]);
  });

  it('refuses anything that is not the feed as a changed shape: HTML, other XML, a document type, an item without a title, two channels', () => {
    const refused = [
      '<!doctype html><html><head><title>Before you continue to Google</title></head><body>consent</body></html>',
      '<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>x</title></feed>',
      '<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY x "y">]><rss version="2.0"><channel><item><title>&x;</title></item></channel></rss>',
      feed('<item><ht:approx_traffic>200+</ht:approx_traffic></item>'),
      `<rss version="2.0"><channel></channel><channel></channel></rss>`,
      feed('<item><title>broken</title>', '<rss version="2.0">'),
      '',
    ];
    for (const body of refused) expect(() => parseTrendingFeed(body, 'the feed'), body.slice(0, 40)).toThrow(MalformedResponseError);
  });
});

describe("the embed page's widget", () => {
  const widget = { id: 'RELATED_QUERIES', token: 'APP6_x', request: { keywordType: 'QUERY', userConfig: { userType: 'USER_TYPE_EMBED' } } };
  const escaped = (json: unknown) =>
    JSON.stringify(json)
      .replace(/\\/g, '\\\\')
      .replace(/["'{}[\]<>=&]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);

  it("reads the widget Google writes into JSON.parse('…') with \\xHH escapes, and its label", () => {
    const page = `<script>var w = JSON.parse('${escaped(widget)}'); render(w);</script>`;
    expect(parseEmbedPage(page, 'x')).toEqual({ ...widget, userType: 'USER_TYPE_EMBED' });
  });

  it('passes over another JSON.parse before the widget, and reads \\u and one-letter escapes and quotes inside strings', () => {
    const tricky = { ...widget, request: { ...widget.request, note: 'it\'s "quoted"\n\u00e9' } };
    const body = escaped(tricky).replace('\\x27', "\\'");
    const page = `<script>var cfg = JSON.parse('{\\x22theme\\x22:1}'); var w = JSON.parse('${body}');</script>`;
    expect(parseEmbedPage(page, 'x').request).toMatchObject({ note: 'it\'s "quoted"\né' });
  });

  it('a page without a widget is a changed shape; a "sorry" page is a block', () => {
    expect(() => parseEmbedPage('<html><body>Google Trends</body></html>', 'x')).toThrow(/holds no JSON.parse/);
    expect(() => parseEmbedPage("<script>JSON.parse('{}')</script>", 'x')).toThrow(/holds no widget with a token/);
    expect(() => parseEmbedPage('<form id="captcha-form">unusual traffic</form>', 'x')).toThrow(RateLimitedError);
  });
});
