import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Redis } from 'ioredis';
import { sql } from 'kysely';
import type { Db } from '../../db/connection.js';

const HealthSchema = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
  checks: Type.Optional(Type.Record(Type.String(), Type.Object({ ok: Type.Boolean(), error: Type.Optional(Type.String()) }))),
});

async function check(name: string, probe: () => Promise<unknown>, timeoutMs = 2_000) {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      probe(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${name} did not answer within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
    return { ok: true };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  } finally {
    clearTimeout(timer);
  }
}

export const healthRoutes: FastifyPluginAsyncTypebox<{ db: Db; redis: Redis; draining?: () => boolean }> = async (app, { db, redis, draining }) => {
  app.get(
    '/healthz',
    { schema: { tags: ['health'], summary: 'Liveness: the process answers', response: { 200: HealthSchema } } },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        tags: ['health'],
        summary: 'Readiness: Postgres and Redis answer',
        response: { 200: HealthSchema, 503: HealthSchema },
      },
    },
    async (_request, reply) => {
      // Shutting down: tell the load balancer to stop routing here while in-flight work finishes.
      if (draining?.()) return reply.code(503).send({ status: 'unavailable', checks: { shutdown: { ok: false, error: 'draining before shutdown' } } });
      const [postgres, redisCheck] = await Promise.all([
        check('Postgres', () => sql`select 1`.execute(db)),
        check('Redis', () => redis.ping()),
      ]);
      const ok = postgres.ok && redisCheck.ok;
      return reply.code(ok ? 200 : 503).send({
        status: ok ? 'ok' : 'unavailable',
        checks: { postgres, redis: redisCheck },
      });
    },
  );
};
