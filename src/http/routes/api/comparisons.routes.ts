// POST /api/comparisons: 2 to 5 researched ideas on one scale (see
// research/comparison-service.ts): one series per idea from one Google Trends
// request, beside each idea's 8 dimension scores (src/views/comparison.view.ts).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { TSchema } from '@sinclair/typebox';
import { ComparisonUnavailableError, type ComparisonService } from '../../../research/comparison-service.js';
import { comparisonView } from '../../../views/comparison.view.js';
import { strictJsonValidator } from '../../json-body.js';
import { problem, ProblemError } from '../../problem.js';
import { errorResponses } from '../../schemas/common.js';
import { CompareBody, ComparisonSchema } from '../../schemas/comparisons.js';

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
      // The service's refusals are Refusals (domain/refusal.ts): errors.plugin answers each with its problem.
      const comparison = await comparisons.service
        .compare({ accountId: key.accountId, plan: key.plan }, request.body.ideas, request.body.geo, comparisons.defaultGeo)
        .catch((error: unknown) => {
          // What the provider said stays in the operator's log; the client reads the refusal.
          if (error instanceof ComparisonUnavailableError)
            request.log.warn({ err: error.cause }, 'comparison: the search-data provider refused the series');
          throw error;
        });
      const geo = (request.body.geo ?? comparisons.defaultGeo).toUpperCase();
      if (comparison.kind === 'pending') reply.code(202).header('retry-after', String(Math.ceil(comparison.retryAfterMs / 1000)));
      return comparisonView(comparison, geo);
    },
  );
};
