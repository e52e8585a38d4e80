import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { QuotaStore } from '../../../accounts/quota.store.js';
import type { Db } from '../../../db/connection.js';
import type { ResearchService } from '../../../research/research-service.js';
import { usageView } from '../../../views/usage.view.js';
import { errorResponses } from '../../schemas/common.js';
import { UsageQuery, UsageSchema } from '../../schemas/usage.js';

export const usageRoutes: FastifyPluginAsyncTypebox<{ db: Db; quota: QuotaStore; research?: { service: ResearchService } }> = async (
  app,
  { db, quota, research },
) => {
  const sources = { db, quota, ...(research ? { research: research.service } : {}) };
  app.get(
    '/usage',
    {
      // Any key may see its own account's usage, whatever it is for, and even with the day's quota spent: it is how a client learns when it resets.
      config: { requiredScope: null, answersWhenSpent: true },
      schema: {
        tags: ['account'],
        operationId: 'getUsage',
        summary:
          "Your account's plan and usage: today (this request included) and, with ?days=N, the days before, each with its keys' shares",
        querystring: UsageQuery,
        response: { 200: UsageSchema, ...errorResponses(400, 401, 403, 429) },
      },
    },
    // The guard has run: the key and the quota's decision are set on every request that reaches a handler.
    async (request) => usageView(sources, request.apiKey!, request.quota!, request.query.days),
  );
};
