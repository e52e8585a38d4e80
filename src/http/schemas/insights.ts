// The /api/insights schemas (TypeBox): an insight, its list entry and list query, its series and forecast.
// They validate input, drive the fast serializer, and generate /openapi.json.
import { Type, type Static } from '@sinclair/typebox';
import { CATEGORY_VALUES, INSIGHT_SORTS, SOURCE_VALUES } from '../../domain/catalog.js';
import { CURSOR_MAX_LENGTH } from '../../domain/cursor.js';
import { RELATED_SERVED } from '../../domain/research/served-evidence.js';
import { DIMENSIONS } from '../../domain/scoring/dimensions.js';
import { MIN_COMPLETE_DIMENSIONS } from '../../domain/scoring/overall.js';
import { TREND_CLASSES } from '../../domain/scoring/trend-class.js';
import { PROVENANCE_KINDS } from '../../domain/provenance.js';
import { VERDICT_LABELS, VERDICT_RULE } from '../../domain/research/verdict.js';
import { TREND_WINDOWS } from '../../views/insight.view.js';
import { DataDate, stringEnum } from './common.js';

const EvidenceValue = Type.Union([Type.Number(), Type.String(), Type.Boolean(), Type.Null()]);

export const DimensionSchema = Type.Object({
  score: Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], {
    description: 'null when the evidence cannot support a score; the explanation then says why',
  }),
  evidence: Type.Record(Type.String(), EvidenceValue),
  explanation: Type.String(),
  strength: Type.Optional(
    Type.Number({
      minimum: 0,
      maximum: 1,
      description:
        "How much of the dimension's weight its evidence carries in the confidence; absent means all of it (below 1: thin evidence, e.g. only autocomplete topics, or a source whose numbers contradicted each other)",
    }),
  ),
  experimental: Type.Optional(
    Type.Boolean({
      description:
        'The dimension\'s evidence is not validated yet: it weighs less in the overall score (GET /api/methodology, "validation")',
    }),
  ),
});

const TrendClassValue = Type.Union([stringEnum(TREND_CLASSES), Type.Null()], {
  description: 'The shape of the interest (rules and hit rates: GET /api/methodology); null when the series has no data',
});
export const HitRate = Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], {
  description:
    "How often the class's claim about the next month held on held-out real series; null when it makes no claim the data can check",
});

const RelatedItemSchema = Type.Object({
  label: Type.String(),
  value: Type.Number({ description: 'Top lists: 0–100 relative to the first item. Rising lists: the rise in percent.' }),
  formatted_value: Type.String({ description: 'As Google writes it: "100", "+250%", "Breakout"' }),
  breakout: Type.Boolean({ description: 'Google says Breakout for a rise above 5000%' }),
  topic_id: Type.Optional(Type.String({ description: 'Topics only: the Google topic id' })),
});
const RelatedListsSchema = Type.Object({
  top: Type.Array(RelatedItemSchema),
  rising: Type.Array(RelatedItemSchema),
  served: Type.Optional(
    stringEnum(RELATED_SERVED, {
      description:
        'What Google served: listed; empty (its answer to automated clients since 2024-08-20); not_recorded (replay has no recording); not_available (no configured provider lists them); failed (the request failed, the research went on). Absent on insights researched before it was kept.',
    }),
  ),
});
export const RelatedSchema = Type.Union(
  [Type.Object({ keyword: Type.String(), queries: RelatedListsSchema, topics: RelatedListsSchema }), Type.Null()],
  { description: "The research run's related queries and topics (up to 25 each); null when no run researched this insight" },
);
const Money = Type.Union([Type.Number(), Type.Null()], { description: 'US dollars; null when no advertiser bid' });
export const SearchVolumeSchema = Type.Union(
  [
    Type.Object({
      provider: Type.String({ description: 'Who answered (dataforseo: Google Ads figures)' }),
      geo: Type.String({ description: "The market asked ('' worldwide)" }),
      location: Type.String({ description: "The provider's name for it, e.g. United States" }),
      language: Type.String(),
      keywords: Type.Array(
        Type.Object({
          keyword: Type.String(),
          monthly_searches: Type.Union([Type.Integer(), Type.Null()], {
            description: 'Average monthly searches over the last 12 months; null when Google Ads has too little data',
          }),
          history: Type.Array(Type.Object({ month: Type.String({ description: 'YYYY-MM' }), searches: Type.Integer() })),
          cpc_usd: Money,
          bid_low_usd: Money,
          bid_high_usd: Money,
          competition: Type.Union([Type.Literal('LOW'), Type.Literal('MEDIUM'), Type.Literal('HIGH'), Type.Null()]),
          competition_index: Type.Union([Type.Integer({ minimum: 0, maximum: 100 }), Type.Null()]),
        }),
      ),
    }),
    Type.Null(),
  ],
  {
    description:
      'Absolute demand: monthly searches, their history, cost per click and competition of the primary phrase (first) and its variants in the market, when a provider with search volume answered; null otherwise',
  },
);
export const GeographySchema = Type.Union(
  [
    Type.Object({
      keyword: Type.String(),
      map: Type.Union([Type.Literal('own'), Type.Literal('against_anchor')], {
        description:
          "own: the phrase's own map (strongest country = 100); against_anchor: its share of the searches for it and the anchor term",
      }),
      compared_with: Type.Union([Type.String(), Type.Null()]),
      reason: Type.String({ description: 'Why this map was used' }),
      countries: Type.Array(
        Type.Object({
          code: Type.String(),
          name: Type.String(),
          relative: Type.Number({ description: 'Interest relative to the strongest country, 0–100' }),
          share: Type.Union([Type.Number(), Type.Null()], { description: "against_anchor maps: the phrase's share in percent" }),
        }),
      ),
      countries_with_data: Type.Integer(),
    }),
    Type.Null(),
  ],
  { description: 'The top countries (up to 20) and the map they come from; null when no run researched this insight' },
);

const InsightLinks = Type.Object({
  self: Type.String(),
  trend_data: Type.String(),
  forecast: Type.String(),
  research: Type.String(),
  chart: Type.String(),
  methodology: Type.String(),
});

/** Sentences of the decision summary, each with the JSON Pointers into the insight it rests on. */
const DecisionSentences = Type.Array(
  Type.Object({
    text: Type.String(),
    evidence: Type.Array(Type.String(), { description: 'JSON Pointers (RFC 6901) into this insight: what the sentence rests on' }),
  }),
);

/** The verdict (domain/research/verdict.ts; the rule: docs/research.md, "The verdict"): the line a founder reads first. */
export const VerdictSchema = Type.Object(
  {
    label: stringEnum(VERDICT_LABELS, {
      description: `promising: overall at least ${VERDICT_RULE.promisingAt} with none of ${VERDICT_RULE.core.join(', ')} at or below ${VERDICT_RULE.riskAt}; weak: overall below ${VERDICT_RULE.weakBelow}; mixed: in between; unproven: fewer than ${MIN_COMPLETE_DIMENSIONS} of 8 dimensions scored or confidence below ${VERDICT_RULE.minConfidence}, whatever the score`,
    }),
    text: Type.String({
      description: 'The verdict as one sentence, with the overall score and confidence, the strongest reason and the biggest risk',
    }),
    reason: Type.String({ description: 'The strongest reason, in words, with its score' }),
    risk: Type.String({ description: 'The biggest risk, in words, with its score or the missing evidence' }),
    evidence: Type.Array(Type.String(), {
      description: 'JSON Pointers (RFC 6901) into the insight (GET /api/insights/{id}): what the verdict rests on',
    }),
  },
  { description: 'The verdict, from the scores alone: the same on a list entry and on the insight' },
);

/** What an insight rests on (issue 47): live research, recorded real answers or a simulation, and the days of its data. */
export const ProvenanceSchema = Type.Object(
  {
    kind: stringEnum(PROVENANCE_KINDS, {
      description:
        'live: asked of live Google Trends or DataForSEO; recorded: real Google answers recorded in the past (replay, or a recorded series); simulated: the synthetic provider, never real data',
    }),
    label: Type.String({
      description: 'What the title carries: "simulated", "recorded 2017-10-29 to 2022-10-23"; empty for live research',
    }),
    source: Type.String({ description: 'The source in words, with its dates' }),
  },
  { description: 'What the insight rests on' },
);

export const InsightSchema = Type.Object(
  {
    id: Type.String({ description: 'Opaque id, prefixed ins_' }),
    title: Type.String({
      description: 'The idea as a person reads it: a simulated insight says "(simulated)", a recorded one "(recorded FIRST to LAST)"',
    }),
    idea: Type.String(),
    primary_keyword: Type.String(),
    keywords: Type.Array(Type.String()),
    category: stringEnum(CATEGORY_VALUES),
    source: stringEnum(SOURCE_VALUES),
    overall_score: Type.Number({ minimum: 0, maximum: 1 }),
    confidence: Type.Number({ minimum: 0, maximum: 1 }),
    rank_score: Type.Number({
      minimum: 0,
      maximum: 1,
      description:
        'overall_score × confidence: a conservative score (every unscored dimension counted as 0, thin evidence and gappy series discounting it); the default order',
    }),
    partial: Type.Boolean({
      description: `Fewer than ${MIN_COMPLETE_DIMENSIONS} of the 8 dimensions scored: listed after complete insights by default`,
    }),
    provider: Type.Union([Type.String(), Type.Null()], {
      description:
        'The providers it was researched with (google, google+dataforseo, replay, synthetic); null for a recorded series. The refresh asks only that kind of source.',
    }),
    provenance: ProvenanceSchema,
    verdict: VerdictSchema,
    data_from: DataDate('The first day of the data it rests on (every series it keeps); null before any series was stored'),
    data_as_of: DataDate('The last day of the data it rests on: the last date of its series; null before any series was stored'),
    dimensions: Type.Object(Object.fromEntries(DIMENSIONS.map((d) => [d, DimensionSchema]))),
    trend_class: TrendClassValue,
    trend_class_hit_rate: HitRate,
    trend_class_evidence: Type.Union([
      Type.Object({
        rule: Type.String(),
        reason: Type.Union([Type.String(), Type.Null()], { description: 'The rule as it held for this insight' }),
        claim: Type.String(),
        hit_rate: HitRate,
        base_rate: Type.Union([Type.Number(), Type.Null()], { description: 'The same claim over all windows, whatever their class' }),
        methodology: Type.String(),
      }),
      Type.Null(),
    ]),
    related: RelatedSchema,
    geography: GeographySchema,
    search_volume: SearchVolumeSchema,
    primary_choice: Type.Union(
      [
        Type.Object({
          primary: Type.String(),
          reason: Type.String(),
          candidates: Type.Array(
            Type.Object({
              phrase: Type.String(),
              coverage: Type.Number({ description: "Share of the idea's weighted words the phrase holds (0-1)" }),
              names_product: Type.Boolean({ description: "The product part's first two words (its subject)" }),
              mean: Type.Union([Type.Number(), Type.Null()], {
                description: 'Mean 12-month interest in the comparison; null: not measured',
              }),
              popularity: Type.Union([Type.Number(), Type.Null()], { description: '0-1, log scale against the most searched candidate' }),
              score: Type.Number(),
            }),
          ),
          measured: Type.Union([
            Type.Object({ timeframe: Type.Literal('12m'), anchor: Type.String(), anchor_mean: Type.Number() }),
            Type.Null(),
          ]),
        }),
        Type.Null(),
      ],
      { description: 'How the researched phrase was chosen (step choose_primary); null for insights researched before 2026-11-27' },
    ),
    outlook: Type.Union([Type.Object({ withheld: Type.Boolean() }, { additionalProperties: true }), Type.Null()], {
      description:
        'The 3-12 month outlook from the 5-year series (docs/forecasts.md): horizons of 3, 6 and 12 months, each served with bands and its backtest or withheld with the reason; null before 2026-11-27',
    }),
    decision: Type.Object(
      { signals: DecisionSentences, risks: DecisionSentences, validate_first: DecisionSentences, why_now: DecisionSentences },
      { description: 'Strongest signals, main risks, what to validate first and why now; every sentence names its evidence' },
    ),
    summary: Type.String(),
    status: Type.String(),
    geo: Type.String({
      description: "The market the insight describes: a country code such as US (or a region, US-CA), or '' for worldwide",
    }),
    visibility: Type.Union([Type.Literal('public'), Type.Literal('private')], {
      description: "private: researched for your account and seen by no other; public: the catalogue's",
    }),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
    links: InsightLinks,
  },
  { $id: 'Insight' },
);
export type InsightDto = Static<typeof InsightSchema>;

export const InsightListQuery = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Page size, 1–100' }),
    min_score: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: 'Only insights scoring at least this' })),
    source: Type.Optional(stringEnum(SOURCE_VALUES)),
    geo: Type.Optional(
      Type.String({
        pattern: '^([A-Za-z]{2}(-[A-Za-z0-9]{1,3})?)?$',
        maxLength: 6,
        description: "Only insights of this market (US, US-CA); '' for worldwide ones",
      }),
    ),
    category: Type.Optional(
      Type.String({ maxLength: 1000, description: `One category or a comma list of: ${CATEGORY_VALUES.join(', ')}` }),
    ),
    trend_class: Type.Optional(
      Type.String({ maxLength: 200, description: `One trend class or a comma list of: ${TREND_CLASSES.join(', ')}` }),
    ),
    q: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description:
          'Full-text search over title, idea and keywords (English stemming; "quoted phrases", -excluded, or). Combines with every filter, sort and cursor.',
      }),
    ),
    sort: stringEnum(INSIGHT_SORTS, {
      default: 'score',
      description: `score (the default: research on live data first, then on recorded answers, then simulated, then recorded series; within each, complete insights first, each by rank_score = overall × confidence, then partial ones), overall (the overall score alone), newest, oldest, or a dimension (${DIMENSIONS.join(', ')}): its score high first, unscored last`,
    }),
    cursor: Type.Optional(Type.String({ maxLength: CURSOR_MAX_LENGTH, description: 'next_cursor from the previous page' })),
  },
  { additionalProperties: false },
);
export type InsightListQueryT = Static<typeof InsightListQuery>;

/** A list entry: the insight without its evidence (keywords, related, geography, the trend class's rule), and each dimension's score alone. */
export const InsightSummarySchema = Type.Object(
  {
    ...Type.Omit(InsightSchema, [
      'keywords',
      'dimensions',
      'trend_class_evidence',
      'related',
      'geography',
      'search_volume',
      'primary_choice',
      'outlook',
      'decision',
    ]).properties,
    dimension_scores: Type.Object(
      Object.fromEntries(DIMENSIONS.map((d) => [d, Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()])])),
      { description: "Each dimension's score (null: not enough evidence). Evidence and explanations are on the insight itself." },
    ),
  },
  { $id: 'InsightSummary' },
);
export type InsightSummaryDto = Static<typeof InsightSummarySchema>;

export const InsightListSchema = Type.Object({
  data: Type.Array(InsightSummarySchema),
  next_cursor: Type.Union([Type.String(), Type.Null()]),
});

export const TrendWindowQuery = Type.Object(
  {
    window: stringEnum(TREND_WINDOWS, {
      default: '30d',
      description:
        '30d: the last 30 days (refreshed daily); 90d: daily (refreshed daily); 12m and 5y: weekly, as the research run fetched them',
    }),
  },
  { additionalProperties: false },
);

export const TrendDataSchema = Type.Object({
  window: stringEnum(TREND_WINDOWS),
  interval: Type.Union([Type.Literal('day'), Type.Literal('week')]),
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
  {
    $id: 'Forecast',
    description: '7 days ahead with 80% and 95% intervals (clipped to 0–100), with its own backtest; or withheld with the reason',
  },
);
