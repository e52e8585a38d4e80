// The /api/comparisons schemas (TypeBox): 2 to 5 ideas asked, and their series on one scale.
import { Type } from '@sinclair/typebox';
import { PROVENANCE_KINDS } from '../../domain/provenance.js';
import { DIMENSIONS } from '../../domain/scoring/dimensions.js';
import { MAX_COMPARED, MIN_COMPARED } from '../../research/comparison-service.js';
import { DataDate, stringEnum } from './common.js';

export const CompareBody = Type.Object(
  {
    ideas: Type.Array(Type.String({ minLength: 1, maxLength: 500 }), {
      minItems: MIN_COMPARED,
      maxItems: MAX_COMPARED,
      description: 'The ideas, each researched for the market before (as submitted to POST /api/research-runs)',
    }),
    geo: Type.Optional(
      Type.String({ maxLength: 6, pattern: '^([A-Za-z]{2}(-[A-Za-z0-9]{1,3})?)?$', description: "The market; default the service's" }),
    ),
  },
  { additionalProperties: false },
);

const ComparedSchema = Type.Object({
  idea: Type.String(),
  insight_id: Type.String(),
  phrase: Type.String({ description: 'The primary search phrase its research chose: what is asked' }),
  researched_at: Type.String({ format: 'date-time' }),
  provider: Type.Union([Type.String(), Type.Null()], {
    description: 'The providers its insight was researched with (as the insight says)',
  }),
  provenance: stringEnum(PROVENANCE_KINDS, { description: "live, recorded or simulated: what its insight's dimensions rest on" }),
  data_as_of: DataDate("The last day of the data its insight's dimensions rest on"),
  overall_score: Type.Number(),
  confidence: Type.Number(),
  dimension_scores: Type.Object(Object.fromEntries(DIMENSIONS.map((d) => [d, Type.Union([Type.Number(), Type.Null()])]))),
  mean: Type.Union([Type.Number(), Type.Null()], { description: 'Mean interest over the 12 months, on the shared 0–100 scale' }),
  peak: Type.Union([Type.Number(), Type.Null()]),
});

export const ComparisonSchema = Type.Object(
  {
    data: Type.Object({
      status: Type.Union([Type.Literal('done'), Type.Literal('pending')], {
        description: 'pending: Google has not answered yet; ask again with the same body after Retry-After (it is not charged again)',
      }),
      geo: Type.String(),
      provider: Type.Union([Type.String(), Type.Null()], {
        description:
          'Who answers the shared series (google, dataforseo, replay, synthetic): a replayed or simulated comparison is not live data',
      }),
      provenance: Type.Union([stringEnum(PROVENANCE_KINDS), Type.Null()], {
        description: 'What the shared series is: live, recorded or simulated',
      }),
      timeframe: Type.Literal('12m'),
      ideas: Type.Array(ComparedSchema),
      series: Type.Array(
        Type.Object({ date: Type.String({ format: 'date' }), values: Type.Array(Type.Number()), is_partial: Type.Boolean() }),
        { description: 'One point a week; values in the order of ideas, all on one 0–100 scale (100: the highest of any of them)' },
      ),
    }),
  },
  { $id: 'Comparison' },
);
