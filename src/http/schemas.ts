// Response and parameter schemas (TypeBox). They validate input, drive the fast
// serializer, and generate /openapi.json.
import { Type, type Static } from '@sinclair/typebox';
import { CATEGORY_VALUES, INSIGHT_SORTS, SOURCE_VALUES } from '../domain/catalog.js';
import { DIMENSIONS } from '../domain/scoring/dimensions.js';
import { PLAN_VALUES } from '../domain/quota.js';

const stringEnum = <T extends string>(values: readonly T[], options: Record<string, unknown> = {}) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], ...options });

export const ProblemSchema = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    instance: Type.Optional(Type.String()),
    invalid_params: Type.Optional(
      Type.Array(
        Type.Object({
          name: Type.String(),
          reason: Type.String(),
          allowed: Type.Optional(Type.Array(Type.Union([Type.String(), Type.Number()]))),
        }),
      ),
    ),
  },
  { $id: 'Problem', description: 'RFC 9457 problem details (application/problem+json)' },
);

const EvidenceValue = Type.Union([Type.Number(), Type.String(), Type.Boolean(), Type.Null()]);

export const DimensionSchema = Type.Object({
  score: Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], {
    description: 'null when the evidence cannot support a score; the explanation then says why',
  }),
  evidence: Type.Record(Type.String(), EvidenceValue),
  explanation: Type.String(),
});

export const InsightSchema = Type.Object(
  {
    id: Type.String({ description: 'Opaque id, prefixed ins_' }),
    title: Type.String(),
    idea: Type.String(),
    primary_keyword: Type.String(),
    keywords: Type.Array(Type.String()),
    category: stringEnum(CATEGORY_VALUES),
    source: stringEnum(SOURCE_VALUES),
    overall_score: Type.Number({ minimum: 0, maximum: 1 }),
    confidence: Type.Number({ minimum: 0, maximum: 1 }),
    dimensions: Type.Object(Object.fromEntries(DIMENSIONS.map((d) => [d, DimensionSchema]))),
    summary: Type.String(),
    status: Type.String(),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
    links: Type.Object({ self: Type.String(), trend_data: Type.String(), forecast: Type.String(), research: Type.String() }),
  },
  { $id: 'Insight' },
);
export type InsightDto = Static<typeof InsightSchema>;

export const InsightListQuery = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Page size, 1–100' }),
    min_score: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: 'Only insights scoring at least this' })),
    source: Type.Optional(stringEnum(SOURCE_VALUES)),
    category: Type.Optional(
      Type.String({ maxLength: 1000, description: `One category or a comma list of: ${CATEGORY_VALUES.join(', ')}` }),
    ),
    sort: stringEnum(INSIGHT_SORTS, { default: 'score', description: 'score (high first), newest, oldest' }),
    cursor: Type.Optional(Type.String({ maxLength: 512, description: 'next_cursor from the previous page' })),
  },
  { additionalProperties: false },
);
export type InsightListQueryT = Static<typeof InsightListQuery>;

export const InsightSummarySchema = Type.Object(
  {
    id: Type.String(),
    title: Type.String(),
    idea: Type.String(),
    primary_keyword: Type.String(),
    category: stringEnum(CATEGORY_VALUES),
    source: stringEnum(SOURCE_VALUES),
    overall_score: Type.Number({ minimum: 0, maximum: 1 }),
    confidence: Type.Number({ minimum: 0, maximum: 1 }),
    dimension_scores: Type.Object(
      Object.fromEntries(DIMENSIONS.map((d) => [d, Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()])])),
      { description: 'Each dimension\'s score (null: not enough evidence). Evidence and explanations are on the insight itself.' },
    ),
    summary: Type.String(),
    status: Type.String(),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
    links: Type.Object({ self: Type.String(), trend_data: Type.String(), forecast: Type.String(), research: Type.String() }),
  },
  { $id: 'InsightSummary' },
);
export type InsightSummaryDto = Static<typeof InsightSummarySchema>;

export const InsightListSchema = Type.Object({
  data: Type.Array(InsightSummarySchema),
  next_cursor: Type.Union([Type.String(), Type.Null()]),
});

export const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
export const NoQuery = Type.Object({}, { additionalProperties: false });

export const TrendDataSchema = Type.Object({
  data: Type.Array(
    Type.Object({
      date: Type.String({ format: 'date' }),
      value: Type.Integer({ minimum: 0, maximum: 100 }),
      is_partial: Type.Boolean(),
      fetched_at: Type.String({ format: 'date-time' }),
    }),
  ),
  next_cursor: Type.Null(),
});

export const CatalogSchema = Type.Object({
  data: Type.Array(Type.Object({ id: Type.String(), description: Type.String(), insights: Type.Integer() })),
  next_cursor: Type.Null(),
});

export const UsageSchema = Type.Object({
  data: Type.Object({
    key_id: Type.String(),
    plan: stringEnum(PLAN_VALUES),
    day: Type.String({ format: 'date' }),
    limit: Type.Union([Type.Integer(), Type.Null()], { description: 'null: unlimited (Enterprise)' }),
    used: Type.Integer(),
    remaining: Type.Union([Type.Integer(), Type.Null()]),
    resets_at: Type.String({ format: 'date-time' }),
  }),
});

export const errorResponses = (...codes: number[]) =>
  Object.fromEntries(codes.map((code) => [code, Type.Ref(ProblemSchema)]));

const nullableNumber = Type.Union([Type.Number(), Type.Null()]);

export const ForecastSchema = Type.Union(
  [
    Type.Object({
      withheld: Type.Literal(false),
      model: Type.String(),
      generated_at: Type.String({ format: 'date-time' }),
      horizon: Type.Integer(),
      points: Type.Array(
        Type.Object({
          date: Type.String({ format: 'date' }),
          value: Type.Number(),
          lower_80: Type.Number(),
          upper_80: Type.Number(),
          lower_95: Type.Number(),
          upper_95: Type.Number(),
        }),
      ),
      backtest: Type.Object({
        mase: nullableNumber,
        mase_seasonal_naive: nullableNumber,
        coverage_80: nullableNumber,
        coverage_95: nullableNumber,
      }),
    }),
    Type.Object({ withheld: Type.Literal(true), reason: Type.String(), generated_at: Type.String({ format: 'date-time' }) }),
  ],
  { $id: 'Forecast', description: '7 days ahead with 80% and 95% intervals (clipped to 0–100), with its own backtest; or withheld with the reason' },
);
