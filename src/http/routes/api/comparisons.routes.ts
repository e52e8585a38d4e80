// POST /api/comparisons: 2 to 5 researched ideas on one scale (see
// research/comparison-service.ts): one series per idea from one Google Trends
// request, beside each idea's 8 dimension scores.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type TSchema } from '@sinclair/typebox';
import { strictJsonValidator } from '../../json-body.js';
import { DIMENSIONS } from '../../../domain/scoring/dimensions.js';
import { InvalidIdeaError } from '../../../research/chain.js';
import {
  MAX_COMPARED,
  MIN_COMPARED,
  NotResearchedError,
  type ComparisonService,
  type Comparison,
} from '../../../research/comparison-service.js';
import { ResearchAllowanceSpentError } from '../../../research/research-service.js';
import { TrendsFailedError } from '../../../research/trends-gateway.js';
import { invalidParam, problem, ProblemError } from '../../problem.js';
import { DataDate, errorResponses, stringEnum } from '../../schemas.js';
import { PROVENANCE_KINDS, provenanceKind } from '../../../domain/provenance.js';
import { allowanceProblem } from './research.routes.js';

const CompareBody = Type.Object(
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

const ComparisonSchema = Type.Object(
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

function dto(comparison: Comparison, geo: string) {
  const series = comparison.kind === 'done' ? comparison.series.points : [];
  return {
    data: {
      status: comparison.kind,
      geo,
      provider: comparison.provider,
      provenance: comparison.provider ? provenanceKind({ source: '', provider: comparison.provider }) : null,
      timeframe: '12m' as const,
      ideas: comparison.ideas.map((c, i) => {
        const values = series.map((p) => p.values[i] ?? 0);
        return {
          idea: c.idea,
          insight_id: c.insight.id,
          phrase: c.phrase,
          researched_at: c.insight.updated_at.toISOString(),
          provider: c.insight.provider,
          provenance: provenanceKind(c.insight),
          data_as_of: c.insight.data_as_of,
          overall_score: c.insight.overall_score,
          confidence: c.insight.confidence,
          dimension_scores: c.insight.dimension_scores,
          mean: values.length > 0 ? Math.round((values.reduce((a, b) => a + b, 0) / values.length) * 10) / 10 : null,
          peak: values.length > 0 ? Math.max(...values) : null,
        };
      }),
      series: series.map((p) => ({ date: p.date, values: p.values, is_partial: p.isPartial })),
    },
  };
}

export const comparisonRoutes: FastifyPluginAsyncTypebox<{ comparisons?: { service: ComparisonService; defaultGeo: string } }> = async (
  app,
  { comparisons },
) => {
  // As /api/research-runs reads bodies: JSON only, each field of its own type.
  app.removeContentTypeParser('text/plain');
  app.setValidatorCompiler<TSchema>(strictJsonValidator);

  app.post(
    '/comparisons',
    {
      config: { requiredScope: 'research:write' as const, acceptsBody: true },
      bodyLimit: 8 * 1024,
      schema: {
        tags: ['research'],
        operationId: 'compareIdeas',
        summary:
          "2 to 5 researched ideas on one scale: their search interest from one Google Trends request, and each one's 8 dimensions; 202 while Google has not answered (ask again after Retry-After)",
        body: CompareBody,
        response: { 200: ComparisonSchema, 202: ComparisonSchema, ...errorResponses(401, 403, 409, 413, 415, 429, 502) },
      },
    },
    async (request, reply) => {
      if (!comparisons) throw new ProblemError(problem('unavailable', 'Comparisons are not configured on this web process.'));
      const key = request.apiKey!;
      const comparison = await comparisons.service
        .compare({ accountId: key.accountId, plan: key.plan }, request.body.ideas, request.body.geo, comparisons.defaultGeo)
        .catch((error: unknown) => {
          if (error instanceof InvalidIdeaError) throw invalidParam('ideas', error.message);
          if (error instanceof NotResearchedError) throw new ProblemError(problem('notResearched', error.message));
          if (error instanceof ResearchAllowanceSpentError) throw allowanceProblem(error);
          // The provider refused the request for good (what it said stays in the operator's log): not the client's fault, nor a bug.
          if (error instanceof TrendsFailedError) {
            request.log.warn({ err: error }, 'comparison: the search-data provider refused the series');
            throw new ProblemError(
              problem(
                'searchDataUnavailable',
                'The search-data provider could not answer this comparison; it was not charged to your research allowance.',
              ),
            );
          }
          throw error;
        });
      const geo = (request.body.geo ?? comparisons.defaultGeo).toUpperCase();
      if (comparison.kind === 'pending') reply.code(202).header('retry-after', String(Math.ceil(comparison.retryAfterMs / 1000)));
      return dto(comparison, geo);
    },
  );
};
