import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { QuotaStore } from '../../../accounts/quota.store.js';
import { accountUsage } from '../../../accounts/account-usage.js';
import type { Db } from '../../../db/connection.js';
import { utcDay } from '../../../domain/quota.js';
import type { ResearchService } from '../../../research/research-service.js';
import { errorResponses } from '../../schemas/common.js';
import { UsageQuery, UsageSchema } from '../../schemas/usage.js';

export const usageRoutes: FastifyPluginAsyncTypebox<{ db: Db; quota: QuotaStore; research?: { service: ResearchService } }> = async (
  app,
  { db, quota, research },
) => {
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
    async (request) => {
      // The guard has run: both are set on every request that reaches a handler.
      const key = request.apiKey!;
      const decision = request.quota!;
      const now = new Date();
      const allowance = research ? await research.service.allowance(key.accountId, key.plan) : undefined;
      const days = await accountUsage(db, quota, key.accountId, request.query.days, now, { keyId: key.id, requests: decision.used });
      return {
        data: {
          account_id: key.accountId,
          account_name: key.accountName,
          key_id: key.id,
          plan: key.plan,
          day: utcDay(now),
          limit: decision.limit,
          used: decision.used,
          remaining: decision.remaining,
          resets_at: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1)).toISOString(),
          research: allowance
            ? {
                limit: allowance.limit,
                used: allowance.used,
                remaining: allowance.remaining,
                refunded: allowance.refunded,
                resets_at: allowance.resetsAt.toISOString(),
              }
            : null,
          days,
        },
      };
    },
  );
};
