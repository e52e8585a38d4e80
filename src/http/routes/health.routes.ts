import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Redis } from '../../redis/connection.js';
import { pingDatabase, type Db } from '../../db/connection.js';
import { errorResponses, NoQuery, ProblemSchema } from '../schemas/common.js';

const HealthSchema = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
  // Which dependency is down, never why: the backend's own text (database names,
  // driver internals) goes to the log, not to an unauthenticated caller.
  checks: Type.Optional(Type.Record(Type.String(), Type.Object({ ok: Type.Boolean() }))),
});

/** Resolves to the probe's failure (undefined when it answered in time). */
async function check(name: string, probe: () => Promise<unknown>, timeoutMs = 2_000): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      probe(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${name} did not answer within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
    return undefined;
  } catch (error) {
    return error ?? new Error(`${name} failed`);
  } finally {
    clearTimeout(timer);
  }
}

export const healthRoutes: FastifyPluginAsyncTypebox<{ db: Db; redis: Redis; draining?: () => boolean }> = async (
  app,
  { db, redis, draining },
) => {
  app.get(
    '/healthz',
    {
      schema: {
        tags: ['health'],
        operationId: 'getLiveness',
        summary: 'Liveness: the process answers',
        security: [],
        querystring: NoQuery,
        response: { 200: HealthSchema, ...errorResponses(400) },
      },
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        tags: ['health'],
        operationId: 'getReadiness',
        summary: 'Readiness: Postgres and Redis answer (503 with each check when one does not)',
        security: [],
        querystring: NoQuery,
        // 503: this route's checks, or the overload guard's problem (it answers before any route runs).
        response: { 200: HealthSchema, ...errorResponses(400), 503: Type.Union([HealthSchema, Type.Ref(ProblemSchema)]) },
      },
    },
    async (request, reply) => {
      // Shutting down: tell the load balancer to stop routing here while in-flight work finishes.
      if (draining?.()) return reply.code(503).send({ status: 'unavailable', checks: { shutdown: { ok: false } } });
      const [postgres, redisFailure] = await Promise.all([check('Postgres', () => pingDatabase(db)), check('Redis', () => redis.ping())]);
      if (postgres) request.log.warn({ err: postgres }, 'readiness: Postgres is not answering');
      if (redisFailure) request.log.warn({ err: redisFailure }, 'readiness: Redis is not answering');
      const ok = !postgres && !redisFailure;
      return reply.code(ok ? 200 : 503).send({
        status: ok ? 'ok' : 'unavailable',
        checks: { postgres: { ok: !postgres }, redis: { ok: !redisFailure } },
      });
    },
  );
};
