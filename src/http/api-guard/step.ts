import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * One step of the API's guard: it throws a problem to refuse the request. A
 * step with nothing to wait for answers undefined, not a promise: the guard
 * runs the steps in one hook, and waits only where there is something to wait
 * for (bench:api measured 23% fewer requests a second with a hook per step).
 */
export type GuardStep = (request: FastifyRequest, reply: FastifyReply) => Promise<void> | void;
