import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { utcDay } from '../../../domain/quota.js';
import { errorResponses, NoQuery, UsageSchema } from '../../schemas.js';

export const usageRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/usage',
    {
      schema: {
        tags: ['account'],
        summary: "This key's plan and today's usage (this request included)",
        querystring: NoQuery,
        response: { 200: UsageSchema, ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => {
      // The guard has run: both are set on every request that reaches a handler.
      const key = request.apiKey!;
      const quota = request.quota!;
      const now = new Date();
      return {
        data: {
          key_id: key.id,
          plan: key.plan,
          day: utcDay(now),
          limit: quota.limit,
          used: quota.used,
          remaining: quota.remaining,
          resets_at: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1)).toISOString(),
        },
      };
    },
  );
};
