// DataForSEO's answers as its v3 docs describe them (docs.dataforseo.com, and
// the models of its own API clients): the envelope every endpoint answers,
// the Google Trends explore items and the Google Ads search-volume results.
// The schemas are the contract: an answer that does not match is a changed
// shape (MalformedResponseError), never read as data. Parsed into the same
// normalised answers every provider returns (domain/trends/answers.ts).
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { InterestByRegion, InterestOverTime, KeywordVolume, RankedItem, RelatedList, Timeframe } from '../../domain/trends/answers.js';
import { isShape, shapeExpecter } from '../expect-shape.js';

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** One task of an answer: its own status, cost and result (null when the task failed). */
export const TaskSchema = Type.Object({
  id: Type.String(),
  status_code: Type.Integer(),
  status_message: Type.String(),
  cost: Type.Number(),
  result_count: Type.Optional(Type.Integer()),
  path: Type.Optional(Type.Array(Type.String())),
  data: Type.Optional(Type.Unknown()),
  result: Nullable(Type.Array(Type.Unknown())),
});
export type DataForSeoTask = Static<typeof TaskSchema>;

/** Every answer: a status for the request as a whole, its cost, and one entry per task sent. */
export const EnvelopeSchema = Type.Object({
  version: Type.Optional(Type.String()),
  status_code: Type.Integer(),
  status_message: Type.String(),
  time: Type.Optional(Type.String()),
  cost: Type.Optional(Type.Number()),
  tasks_count: Type.Optional(Type.Integer()),
  tasks_error: Type.Optional(Type.Integer()),
  tasks: Type.Optional(Nullable(Type.Array(TaskSchema))),
});
export type DataForSeoEnvelope = Static<typeof EnvelopeSchema>;

/** A related list's value: a number, a numeric string, or "Breakout" in rising lists. */
const ListValue = Nullable(Type.Union([Type.Number(), Type.String()]));

export const GraphItemSchema = Type.Object({
  type: Type.Literal('google_trends_graph'),
  keywords: Type.Array(Type.String()),
  data: Type.Array(
    Type.Object({
      date_from: Type.String(),
      date_to: Type.String(),
      timestamp: Type.Optional(Type.Integer()),
      missing_data: Type.Optional(Nullable(Type.Boolean())),
      values: Type.Array(Nullable(Type.Number())),
    }),
  ),
  averages: Type.Optional(Nullable(Type.Array(Nullable(Type.Number())))),
});
export const MapItemSchema = Type.Object({
  type: Type.Literal('google_trends_map'),
  keywords: Type.Array(Type.String()),
  data: Type.Array(
    Type.Object({
      geo_id: Nullable(Type.String()),
      geo_name: Type.String(),
      values: Type.Array(Nullable(Type.Number())),
      max_value_index: Type.Optional(Nullable(Type.Integer())),
    }),
  ),
});
const listOf = <T extends TSchema>(entry: T) =>
  Nullable(Type.Object({ top: Nullable(Type.Array(entry)), rising: Nullable(Type.Array(entry)) }));
export const QueriesItemSchema = Type.Object({
  type: Type.Literal('google_trends_queries_list'),
  keywords: Type.Array(Type.String()),
  data: listOf(Type.Object({ query: Type.String(), value: ListValue })),
});
export const TopicsItemSchema = Type.Object({
  type: Type.Literal('google_trends_topics_list'),
  keywords: Type.Array(Type.String()),
  data: listOf(Type.Object({ topic_id: Type.String(), topic_title: Type.String(), topic_type: Type.String(), value: ListValue })),
});
/** One result of an explore task: its items, one per item type asked (an item type with nothing to show may be left out). */
export const ExploreResultSchema = Type.Object({
  keywords: Type.Array(Type.String()),
  location_code: Type.Optional(Nullable(Type.Integer())),
  language_code: Type.Optional(Nullable(Type.String())),
  check_url: Type.Optional(Nullable(Type.String())),
  datetime: Type.Optional(Type.String()),
  items_count: Type.Optional(Type.Integer()),
  items: Nullable(Type.Array(Type.Object({ type: Type.String() }, { additionalProperties: true }))),
});

export const MonthlySearchesSchema = Type.Object({ year: Type.Integer(), month: Type.Integer(), search_volume: Nullable(Type.Integer()) });
export const VolumeResultSchema = Type.Object({
  keyword: Type.String(),
  spell: Type.Optional(Nullable(Type.String())),
  location_code: Nullable(Type.Integer()),
  language_code: Nullable(Type.String()),
  search_partners: Type.Optional(Type.Boolean()),
  competition: Nullable(Type.Union([Type.Literal('LOW'), Type.Literal('MEDIUM'), Type.Literal('HIGH')])),
  competition_index: Nullable(Type.Integer()),
  search_volume: Nullable(Type.Integer()),
  low_top_of_page_bid: Type.Optional(Nullable(Type.Number())),
  high_top_of_page_bid: Type.Optional(Nullable(Type.Number())),
  cpc: Nullable(Type.Number()),
  monthly_searches: Nullable(Type.Array(MonthlySearchesSchema)),
});

/** Whether a body is DataForSEO's envelope at all (a proxy's error page is not). */
export const isEnvelope = (value: unknown) => isShape(EnvelopeSchema, value);

/** The value as the schema says, or a MalformedResponseError naming where it differs. */
export const expectShape = shapeExpecter(
  (what, where) => `DataForSEO answered ${what} in a shape its docs do not describe (${where}): its API may have changed`,
);

/** Our windows as its `time_range` values. */
export const TIME_RANGES: Record<Timeframe, string> = {
  '30d': 'past_30_days',
  '90d': 'past_90_days',
  '12m': 'past_12_months',
  '5y': 'past_5_years',
};

/** The item types an explore task asks for, by the part of ours each answers. */
export const ITEM_TYPES = {
  series: 'google_trends_graph',
  mapCountry: 'google_trends_map',
  relatedQueries: 'google_trends_queries_list',
  relatedTopics: 'google_trends_topics_list',
} as const;

type Item = { type: string };
const itemOf = <T extends TSchema>(items: Item[], schema: T & { properties: { type: { const: string } } }, what: string) => {
  const item = items.find((i) => i.type === schema.properties.type.const);
  return item === undefined ? undefined : expectShape(schema, item, what);
};

export function parseGraph(items: Item[], keywords: string[], what: string, today: string): InterestOverTime {
  const graph = itemOf(items, GraphItemSchema, what);
  const points = (graph?.data ?? []).map((d) => ({
    date: d.date_from,
    values: keywords.map((_, i) => d.values[i] ?? 0),
    hasData: keywords.map((_, i) => d.missing_data !== true && d.values[i] !== null && d.values[i] !== undefined),
    // A period that ends today or later is not over: its value will still move.
    isPartial: d.date_to >= today,
  }));
  const noData = points.length === 0 || points.every((p) => p.hasData.every((h) => !h));
  return { kind: 'interestOverTime', keywords, points, ...(noData ? { outcome: 'no_data' as const } : {}) };
}

export function parseMap(items: Item[], keywords: string[], what: string): InterestByRegion {
  const map = itemOf(items, MapItemSchema, what);
  const regions = (map?.data ?? []).map((d) => ({
    geoCode: d.geo_id ?? '',
    geoName: d.geo_name,
    values: keywords.map((_, i) => d.values[i] ?? 0),
    hasData: keywords.map((_, i) => d.values[i] !== null && d.values[i] !== undefined && d.values[i]! > 0),
  }));
  const noData = regions.every((r) => r.hasData.every((h) => !h));
  return { kind: 'interestByRegion', keywords, regions, ...(noData ? { outcome: 'no_data' as const } : {}) };
}

function ranked(label: string, value: number | string | null, rising: boolean, topic?: RankedItem['topic']): RankedItem {
  const breakout = typeof value === 'string' && /breakout/i.test(value);
  const number = typeof value === 'number' ? value : Number.parseFloat(String(value ?? '').replace(/[+%,]/g, ''));
  // Google says Breakout above a 5000 % rise; the value is then not a number.
  const v = breakout ? 5000 : Number.isFinite(number) ? number : 0;
  return {
    label,
    value: v,
    breakout: breakout || (rising && v >= 5000),
    formattedValue: breakout ? 'Breakout' : rising ? `+${v}%` : String(v),
    ...(topic ? { topic } : {}),
  };
}

export function parseRelated(items: Item[], kind: 'relatedQueries' | 'relatedTopics', what: string): RelatedList {
  if (kind === 'relatedQueries') {
    const data = itemOf(items, QueriesItemSchema, what)?.data;
    const top = (data?.top ?? []).map((q) => ranked(q.query, q.value, false));
    const rising = (data?.rising ?? []).map((q) => ranked(q.query, q.value, true));
    return { kind, top, rising, ...(top.length + rising.length === 0 ? { outcome: 'empty' as const } : {}) };
  }
  const data = itemOf(items, TopicsItemSchema, what)?.data;
  const topic = (t: { topic_id: string; topic_title: string; topic_type: string; value: number | string | null }, rising: boolean) =>
    ranked(t.topic_title, t.value, rising, { mid: t.topic_id, type: t.topic_type });
  const top = (data?.top ?? []).map((t) => topic(t, false));
  const rising = (data?.rising ?? []).map((t) => topic(t, true));
  return { kind, top, rising, ...(top.length + rising.length === 0 ? { outcome: 'empty' as const } : {}) };
}

export function parseVolume(results: unknown[], what: string): KeywordVolume[] {
  return results.map((raw) => {
    const r = expectShape(VolumeResultSchema, raw, what);
    return {
      keyword: r.keyword,
      monthlySearches: r.search_volume,
      history: (r.monthly_searches ?? [])
        .filter((m) => m.search_volume !== null)
        .map((m) => ({ month: `${m.year}-${String(m.month).padStart(2, '0')}`, searches: m.search_volume! }))
        .sort((a, b) => a.month.localeCompare(b.month)),
      cpcUsd: r.cpc,
      bidLowUsd: r.low_top_of_page_bid ?? null,
      bidHighUsd: r.high_top_of_page_bid ?? null,
      competition: r.competition,
      competitionIndex: r.competition_index,
    };
  });
}
