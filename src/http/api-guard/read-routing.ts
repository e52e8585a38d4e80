// Where a request's reads go: the replica once it has replayed the writes of
// the read-model version the request is answered under, else the primary.
// `request.db` is always set: routes read from it and never choose.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../../db/connection.js';
import type { ReadRouter } from '../../db/read-router.js';
import type { GuardStep } from './step.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Where this request's reads go (the primary, or a replica far enough along). */
    db: Db;
  }
}

/** Step 4 of the guard: where the request's reads go (synchronous without a replica). */
export function routeReads(app: FastifyInstance, deps: { db: Db; readRouter?: ReadRouter }): GuardStep {
  app.decorateRequest('db', null as unknown as Db);
  const router = deps.readRouter;
  if (!router) {
    return (request: FastifyRequest) => {
      request.db = deps.db;
    };
  }
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const choice = await router.choose(request.readModelLsn ?? '');
    request.db = choice.db;
    reply.header('x-read-from', choice.from);
  };
}
