// Parsers for what Google Trends answers: the widgets' raw JSON (after the
// `)]}'` guard), the embed page's widget and the trending RSS feed. Each parser says how Google answered
// (the `outcome` of src/domain/trends/answers.ts): served, empty (a well-formed answer with nothing
// in it) or no data. Anything that is not Google's format is a
// MalformedResponseError (changed shape), except the "sorry" pages of a
// blocked client, which are a RateLimitedError.
import { SaxesParser, type SaxesTagNS } from 'saxes';
import { MalformedResponseError, RateLimitedError } from '../contract.js';
import type {
  AutocompleteTopics,
  InterestByRegion,
  InterestOverTime,
  RankedItem,
  RelatedList,
  TrendingFeed,
  TrendingItem,
} from '../../domain/trends/answers.js';

// The 2025 recording's sorry page (captcha-form, "unusual traffic") and the 302 that leads to it;
// trendspyg matches "unusual traffic from your computer network", other scrapers "recaptcha" too.
const SORRY_MARKERS = [/google\.com\/sorry\//i, /captcha-form/i, /unusual traffic/i, /recaptcha/i];

/** Google's "sorry" page (or a redirect to it): the client is blocked. */
export function isSorryPage(body: string): boolean {
  return SORRY_MARKERS.some((marker) => marker.test(body));
}

// The EU consent wall as scrapers met it (an actor's fix with pre-seeded CONSENT cookies, 2026-05-13): a
// redirect to consent.google.com, or its "Before you continue to Google" page served in place of the answer.
const CONSENT_MARKERS = [/consent\.google\.com/i, /Before you continue to Google/i];

/** Google's EU consent page, or a link that leads to it: not a block, not a change of Google. */
export function isConsentPage(body: string, location?: string): boolean {
  if (location !== undefined && /^https?:\/\/consent\.google\.[a-z.]+\//i.test(location)) return true;
  return CONSENT_MARKERS.some((marker) => marker.test(body.slice(0, 20_000)));
}

/** Throws RateLimitedError for Google's throttling pages, MalformedResponseError for any other non-JSON. */
export function classifyNonJson(body: string, what: string): never {
  if (isSorryPage(body)) {
    throw new RateLimitedError(`Google Trends is rate limiting us (its "sorry" page) while fetching ${what}`, 'unusual_traffic');
  }
  const sample = body.slice(0, 80).replace(/\s+/g, ' ');
  throw new MalformedResponseError(`Google Trends answered ${what} with something that is not its JSON: "${sample}…"`);
}

/** Strips the anti-JSON-hijacking guard (`)]}'` or `)]}',`) and parses. */
export function parseGuardedJson(body: string, what: string): unknown {
  const trimmed = body.replace(/^\)\]\}',?\s*/, '');
  try {
    return JSON.parse(trimmed);
  } catch {
    return classifyNonJson(body, what);
  }
}

/** A JavaScript string literal's body, unescaped (\\xHH, \\uHHHH and the one-letter escapes). */
function unescapeJsString(body: string): string {
  const simple: Record<string, string> = { n: '\n', r: '\r', t: '\t', b: '\b', f: '\f', v: '\v', '0': '\0' };
  return body.replace(/\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|[\s\S])/g, (_, e: string) =>
    e.length > 1 ? String.fromCharCode(parseInt(e.slice(1), 16)) : (simple[e] ?? e),
  );
}

/** What an embed page holds: the widget's token and request, and how Google labels the client in it. */
export interface EmbedWidget {
  id: string;
  token: string;
  request: Record<string, unknown>;
  /** `request.userConfig.userType`: USER_TYPE_EMBED, or USER_TYPE_EMBED_OVER_QUOTA when the embed quota is spent. */
  userType: string | null;
}

/**
 * The widget an embed page (`/trends/embed/explore/RELATED_QUERIES?req=…`)
 * carries in `JSON.parse('…')`, its quotes and brackets written as \\xHH
 * (trendspy `client.py`). A page without it is a changed shape, unless it is
 * one of Google's "sorry" pages.
 */
export function parseEmbedPage(html: string, what: string): EmbedWidget {
  let seen = 0;
  // The page's first JSON.parse('…') that holds a widget: a script of another kind before it is passed over.
  for (const match of html.matchAll(/JSON\.parse\('((?:\\[\s\S]|[^'\\])*)'\)/g)) {
    if ((seen += 1) > 20) break;
    let json: unknown;
    try {
      json = JSON.parse(unescapeJsString(match[1]!));
    } catch {
      continue;
    }
    // One widget; a page of several (a future layout) is read by its first.
    const widget = Array.isArray((json as { widgets?: unknown })?.widgets) ? (json as { widgets: unknown[] }).widgets[0] : json;
    if (isObject(widget) && typeof widget.token === 'string' && isObject(widget.request)) {
      return { id: String(widget.id ?? ''), token: widget.token, request: widget.request, userType: userTypeOf(widget.request) };
    }
  }
  if (isSorryPage(html))
    throw new RateLimitedError(`Google Trends is rate limiting us (its "sorry" page) while fetching ${what}`, 'unusual_traffic');
  fail(
    what,
    seen === 0
      ? "the embed page holds no JSON.parse('…') widget"
      : "the embed page's JSON.parse('…') holds no widget with a token and a request",
  );
}

/** `userConfig.userType` of a widget's request (every token carries how Google labels the client), or null. */
export function userTypeOf(request: unknown): string | null {
  const config = isObject(request) && isObject(request.userConfig) ? request.userConfig : undefined;
  return typeof config?.userType === 'string' ? config.userType.slice(0, 60) : null;
}

function fail(what: string, reason: string): never {
  throw new MalformedResponseError(`Google Trends answer for ${what} is malformed: ${reason}`);
}

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

function utcDate(seconds: unknown, what: string): string {
  const n = Number(seconds);
  if (!Number.isFinite(n)) fail(what, `time "${String(seconds)}" is not a number`);
  return new Date(n * 1000).toISOString().slice(0, 10);
}

/**
 * Interest over time; 'no_data' when no point has data for any keyword:
 * Google's zeros with hasData false, or (as measured in 2026-09) zeros with
 * hasData true for a term it has too little data on (gtrends' live tests,
 * 2026-09-09). A served series is normalised so its largest point is 100: one
 * with every point 0 carries nothing. (One keyword at 0 beside a larger one is
 * a measurement below the answer's resolution, and stays served.)
 */
export function parseMultiline(json: unknown, keywords: string[], what: string): InterestOverTime {
  const timeline = isObject(json) && isObject(json.default) ? json.default.timelineData : undefined;
  if (!Array.isArray(timeline)) fail(what, 'no default.timelineData array');
  const points = timeline.map((p: unknown) => {
    if (!isObject(p) || !Array.isArray(p.value)) fail(what, 'a timeline point has no value array');
    const values = p.value.map((v) => {
      const n = Number(v);
      if (!Number.isFinite(n) || n < 0 || n > 100) fail(what, `value ${String(v)} is outside 0–100`);
      return n;
    });
    const hasData = Array.isArray(p.hasData) ? p.hasData.map(Boolean) : values.map(() => true);
    return { date: utcDate(p.time, what), values, hasData, isPartial: p.isPartial === true };
  });
  const anyValue = points.some((p) => p.values.some((v) => v > 0));
  const anyData = anyValue && points.some((p) => p.hasData.some(Boolean));
  return { kind: 'interestOverTime', keywords, points, outcome: anyData ? 'served' : 'no_data' };
}

function rankedItems(list: unknown, what: string): RankedItem[] {
  const items = isObject(list) ? list.rankedKeyword : undefined;
  if (!Array.isArray(items)) fail(what, 'a ranked list has no rankedKeyword array');
  return items.map((item: unknown) => {
    if (!isObject(item)) fail(what, 'a ranked item is not an object');
    const topic = isObject(item.topic) ? item.topic : undefined;
    const label = typeof item.query === 'string' ? item.query : typeof topic?.title === 'string' ? topic.title : undefined;
    if (label === undefined) fail(what, 'a ranked item has neither query nor topic.title');
    const formattedValue = String(item.formattedValue ?? item.value ?? '');
    return {
      label,
      ...(topic ? { topic: { mid: String(topic.mid ?? ''), type: String(topic.type ?? '') } } : {}),
      value: Number(item.value ?? 0),
      breakout: /breakout/i.test(formattedValue),
      formattedValue,
    };
  });
}

/**
 * Related queries or topics: top and rising. Since 2024-08-20 Google answers
 * automated clients `{"default":{"rankedList":[]}}` (pytrends #628,
 * google-trends-api #174): that is 'empty', as are two empty lists.
 */
export function parseRelated(json: unknown, kind: 'relatedQueries' | 'relatedTopics', what: string): RelatedList {
  const lists = isObject(json) && isObject(json.default) ? json.default.rankedList : undefined;
  if (!Array.isArray(lists)) fail(what, 'no default.rankedList array');
  if (lists.length === 0) return { kind, top: [], rising: [], outcome: 'empty' };
  if (lists.length < 2) fail(what, `default.rankedList has ${lists.length} list where Google answers top and rising`);
  const top = rankedItems(lists[0], what);
  const rising = rankedItems(lists[1], what);
  return { kind, top, rising, outcome: top.length + rising.length === 0 ? 'empty' : 'served' };
}

/** Interest by place; `keywords` are the request's, one value per keyword in each place. 'no_data' when no place has any. */
export function parseComparedGeo(json: unknown, keywords: string[], what: string): InterestByRegion {
  const rows = isObject(json) && isObject(json.default) ? json.default.geoMapData : undefined;
  if (!Array.isArray(rows)) fail(what, 'no default.geoMapData array');
  const regions = rows.map((row: unknown) => {
    if (!isObject(row) || !Array.isArray(row.value)) fail(what, 'a place has no value array');
    if (row.value.length !== keywords.length) fail(what, `a place has ${row.value.length} values for ${keywords.length} keywords`);
    const values = row.value.map((v) => {
      const n = Number(v);
      if (!Number.isFinite(n) || n < 0 || n > 100) fail(what, `value ${String(v)} is outside 0–100`);
      return n;
    });
    const hasData: unknown[] | undefined = Array.isArray(row.hasData) ? row.hasData : undefined;
    return {
      geoCode: String(row.geoCode ?? ''),
      geoName: String(row.geoName ?? ''),
      values,
      hasData: values.map((_, i) => (hasData ? hasData[i] === true : true)),
    };
  });
  const anyData = regions.some((r) => r.hasData.some(Boolean));
  return { kind: 'interestByRegion', keywords, regions, outcome: anyData ? 'served' : 'no_data' };
}

/** Autocomplete: the Google topics for a term; 'empty' when Google knows none. */
export function parseAutocomplete(json: unknown, what: string): AutocompleteTopics {
  const topics = isObject(json) && isObject(json.default) ? json.default.topics : undefined;
  if (!Array.isArray(topics)) fail(what, 'no default.topics array');
  const parsed = topics.map((t: unknown) => {
    if (!isObject(t)) fail(what, 'a topic is not an object');
    return { mid: String(t.mid ?? ''), title: String(t.title ?? ''), type: String(t.type ?? '') };
  });
  return { kind: 'autocomplete', topics: parsed, outcome: parsed.length === 0 ? 'empty' : 'served' };
}

/** The namespace of the feed's own elements (ht:approx_traffic, ht:news_item, …). */
export const TRENDING_RSS_NAMESPACE = 'https://trends.google.com/trending/rss';
/** Bounds on what is kept of outside text: the feed lists a few dozen searches. */
const FEED_LIMITS = { items: 100, news: 10, text: 300, url: 2_000 } as const;

const clip = (text: string, max: number) => text.replace(/\s+/g, ' ').trim().slice(0, max);
const httpUrl = (text: string) => {
  try {
    const url = new URL(text.trim());
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.toString().slice(0, FEED_LIMITS.url) : '';
  } catch {
    return '';
  }
};

/**
 * The trending searches feed (`/trending/rss?geo=XX`, RSS 2.0 with Google's
 * `ht` namespace). Strict: anything that is not that feed (an HTML page, a
 * consent wall, other XML, a document type declaration) is a changed shape.
 */
export function parseTrendingFeed(xml: string, what: string): TrendingFeed {
  if (/<!DOCTYPE/i.test(xml)) fail(what, 'a document type declaration where the RSS feed has none');
  const parser = new SaxesParser({ xmlns: true, position: false });
  const path: string[] = [];
  const items: TrendingItem[] = [];
  let rootSeen = false;
  let channels = 0;
  let text = '';
  let item: TrendingItem | undefined;
  let news: { title: string; source: string; url: string } | undefined;
  let failure: Error | undefined;
  const name = (tag: SaxesTagNS) =>
    tag.uri === TRENDING_RSS_NAMESPACE ? `ht:${tag.local}` : tag.uri === '' ? tag.local : `{${tag.uri}}${tag.local}`;
  parser.on('error', (error) => {
    failure ??= error;
  });
  parser.on('opentag', (tag) => {
    const here = name(tag);
    if (!rootSeen) {
      rootSeen = true;
      if (here !== 'rss' || tag.attributes.version?.value !== '2.0') failure ??= new Error(`the document is <${tag.name}>, not RSS 2.0`);
    }
    path.push(here);
    text = '';
    const where = path.join('/');
    if (where === 'rss/channel') channels += 1;
    if (where === 'rss/channel/item') item = { query: '', approxTraffic: '', published: null, news: [] };
    if (where === 'rss/channel/item/ht:news_item') news = { title: '', source: '', url: '' };
  });
  parser.on('text', (t) => (text += t));
  parser.on('cdata', (t) => (text += t));
  parser.on('closetag', () => {
    const where = path.join('/');
    path.pop();
    if (item && where === 'rss/channel/item/title') item.query = clip(text, FEED_LIMITS.text);
    if (item && where === 'rss/channel/item/ht:approx_traffic') item.approxTraffic = clip(text, 20);
    if (item && where === 'rss/channel/item/pubDate') {
      const at = Date.parse(text.trim());
      item.published = Number.isFinite(at) ? new Date(at).toISOString() : null;
    }
    if (news && where === 'rss/channel/item/ht:news_item/ht:news_item_title') news.title = clip(text, FEED_LIMITS.text);
    if (news && where === 'rss/channel/item/ht:news_item/ht:news_item_source') news.source = clip(text, FEED_LIMITS.text);
    if (news && where === 'rss/channel/item/ht:news_item/ht:news_item_url') news.url = httpUrl(text);
    if (news && item && where === 'rss/channel/item/ht:news_item') {
      if (news.title && item.news.length < FEED_LIMITS.news) item.news.push(news);
      news = undefined;
    }
    if (item && where === 'rss/channel/item') {
      if (!item.query) failure ??= new Error('an item has no title');
      else if (items.length < FEED_LIMITS.items) items.push(item);
      item = undefined;
    }
    text = '';
  });
  try {
    parser.write(xml).close();
  } catch (error) {
    failure ??= error instanceof Error ? error : new Error(String(error));
  }
  if (failure) fail(what, `not Google's trending RSS feed (${failure.message.split('\n')[0]})`);
  if (!rootSeen) fail(what, 'an empty document where the RSS feed was expected');
  if (channels !== 1) fail(what, `the feed has ${channels} channels where it has one`);
  return { kind: 'trendingFeed', items };
}
