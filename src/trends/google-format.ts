// Parsers for Google Trends' raw widget JSON (what its HTTP API answers, after
// the `)]}'` guard). Anything else — an HTML page, a changed format — is a
// MalformedResponseError, except the "sorry" pages of a rate-limited client.
import {
  MalformedResponseError,
  RateLimitedError,
  type AutocompleteTopics,
  type DailyTrends,
  type InterestByRegion,
  type InterestOverTime,
  type RankedItem,
  type RelatedList,
} from './types.js';

const RATE_LIMIT_MARKERS = [/google\.com\/sorry\//i, /captcha-form/i, /unusual traffic/i, /429 Too Many Requests/i];

/** Throws RateLimitedError for Google's throttling pages, MalformedResponseError for any other non-JSON. */
export function classifyNonJson(body: string, what: string): never {
  if (RATE_LIMIT_MARKERS.some((marker) => marker.test(body))) {
    throw new RateLimitedError(`Google Trends is rate limiting us (redirect to its "sorry" page) while fetching ${what}`);
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

function fail(what: string, reason: string): never {
  throw new MalformedResponseError(`Google Trends answer for ${what} is malformed: ${reason}`);
}

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

function utcDate(seconds: unknown, what: string): string {
  const n = Number(seconds);
  if (!Number.isFinite(n)) fail(what, `time "${String(seconds)}" is not a number`);
  return new Date(n * 1000).toISOString().slice(0, 10);
}

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
  return { kind: 'interestOverTime', keywords, points };
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

export function parseRelated(json: unknown, kind: 'relatedQueries' | 'relatedTopics', what: string): RelatedList {
  const lists = isObject(json) && isObject(json.default) ? json.default.rankedList : undefined;
  if (!Array.isArray(lists) || lists.length < 2) fail(what, 'no default.rankedList with top and rising lists');
  return { kind, top: rankedItems(lists[0], what), rising: rankedItems(lists[1], what) };
}

/** Interest by place; `keywords` are the request's, one value per keyword in each place. */
export function parseComparedGeo(json: unknown, keywords: string[], what: string): InterestByRegion {
  const rows = isObject(json) && isObject(json.default) ? json.default.geoMapData : undefined;
  if (!Array.isArray(rows)) fail(what, 'no default.geoMapData array');
  return {
    kind: 'interestByRegion',
    keywords,
    regions: rows.map((row: unknown) => {
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
    }),
  };
}

export function parseAutocomplete(json: unknown, what: string): AutocompleteTopics {
  const topics = isObject(json) && isObject(json.default) ? json.default.topics : undefined;
  if (!Array.isArray(topics)) fail(what, 'no default.topics array');
  return {
    kind: 'autocomplete',
    topics: topics.map((t: unknown) => {
      if (!isObject(t)) fail(what, 'a topic is not an object');
      return { mid: String(t.mid ?? ''), title: String(t.title ?? ''), type: String(t.type ?? '') };
    }),
  };
}

export function parseDailyTrends(json: unknown, what: string): DailyTrends {
  const days = isObject(json) && isObject(json.default) ? json.default.trendingSearchesDays : undefined;
  if (!Array.isArray(days)) fail(what, 'no default.trendingSearchesDays array');
  const searches: DailyTrends['searches'] = [];
  for (const day of days) {
    if (!isObject(day) || !Array.isArray(day.trendingSearches)) continue;
    for (const s of day.trendingSearches) {
      if (!isObject(s) || !isObject(s.title)) continue;
      searches.push({ query: String(s.title.query ?? ''), traffic: String(s.formattedTraffic ?? ''), date: String(day.date ?? '') });
    }
  }
  return { kind: 'dailyTrends', searches };
}
