// Where a request's reads go: the replica once it has replayed the writes of
// the read-model version the request is answered under, else the primary.
// `request.db` is always set: routes read from it and never choose. A route
// whose data the read-model version does not cover (a research run moves on
// step by step without it) says `readsPrimary`: no LSN could tell how far a
// replica must be for it, so it reads the primary. Without that, a run just
// submitted was a 404 at its own Location from a replica that had replayed
// the latest version but not the submission (the cluster chaos soak, 2026-11-28).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../../db/connection.js';
import type { ReadRouter } from '../../db/read-router.js';
import type { GuardStep } from './step.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Where this request's reads go (the primary, or a replica far enough along). */
    db: Db;
  }
  interface FastifyContextConfig {
    /** What the route reads is not in the read model (no version bump when it changes): read the primary. */
    readsPrimary?: boolean;
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
    if (request.routeOptions.config.readsPrimary) {
      request.db = deps.db;
      reply.header('x-read-from', 'primary');
      return;
    }
    const choice = await router.choose(request.readModelLsn ?? '');
    request.db = choice.db;
    reply.header('x-read-from', choice.from);
  };
}
