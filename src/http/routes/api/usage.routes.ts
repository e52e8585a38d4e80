import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { QuotaStore } from '../../../accounts/quota.store.js';
import { usageByDay } from '../../../accounts/usage.repository.js';
import type { Db } from '../../../db/connection.js';
import { utcDay } from '../../../domain/quota.js';
import { errorResponses, UsageQuery, UsageSchema } from '../../schemas.js';

const DAY_MS = 86_400_000;

export const usageRoutes: FastifyPluginAsyncTypebox<{ db: Db; quota: QuotaStore }> = async (app, { db, quota }) => {
  app.get(
    '/usage',
    {
      schema: {
        tags: ['account'],
        operationId: 'getUsage',
        summary: "Your account's plan and usage: today (this request included) and, with ?days=N, the days before, each with its keys' shares",
        querystring: UsageQuery,
        response: { 200: UsageSchema, ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request) => {
      // The guard has run: both are set on every request that reaches a handler.
      const key = request.apiKey!;
      const decision = request.quota!;
      const now = new Date();
      const today = utcDay(now);
      const from = utcDay(new Date(now.getTime() - (request.query.days - 1) * DAY_MS));
      const [stored, live, names] = await Promise.all([
        request.query.days > 1 ? usageByDay(db, key.accountId, from) : Promise.resolve([]),
        quota.today(key.accountId, now),
        db.selectFrom('api_keys').select(['id', 'name']).where('account_id', '=', key.accountId).execute(),
      ]);
      const nameOf = new Map(names.map((k) => [k.id, k.name]));
      // Today comes from the live counter (exact); Postgres holds it only as of the last write.
      const todayShares = [...(live?.byKey ?? new Map([[key.id, decision.used]]))]
        .map(([keyId, requests]) => ({ key_id: keyId, name: nameOf.get(keyId) ?? null, requests }))
        .sort((a, b) => b.requests - a.requests);
      const days = [{ day: today, requests: live?.total ?? decision.used, keys: todayShares }, ...stored.filter((d) => d.day !== today)];
      return {
        data: {
          account_id: key.accountId,
          account_name: key.accountName,
          key_id: key.id,
          plan: key.plan,
          day: today,
          limit: decision.limit,
          used: decision.used,
          remaining: decision.remaining,
          resets_at: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1)).toISOString(),
          days,
        },
      };
    },
  );
};
