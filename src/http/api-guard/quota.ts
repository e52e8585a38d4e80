// Step 3 of the guard: the account's quota and usage (src/api-access/quota.ts decides), as Fastify
// sees it: the decision on the request, RateLimit headers on the reply.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GuardStep } from './step.js';
import type { QuotaDecision } from '../../accounts/quota.store.js';
import { spendQuota, type QuotaDeps, type QuotaSpent } from '../../api-access/quota.js';
import { rateLimitHeaders } from '../../domain/quota.js';

export type { QuotaDeps } from '../../api-access/quota.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set when the quota script ran: always for limited plans and for uncached routes (e.g. /api/usage). */
    quota?: QuotaDecision;
    /** The read-model version this request's response is cached under. */
    readModelVersion?: string;
    /** Where in Postgres' log that version's writes end (read-routing.ts waits for a replica to pass it). */
    readModelLsn?: string;
  }
  interface FastifyContextConfig {
    /** The response depends only on the URL and the read model: cache it and give it an ETag. */
    cacheable?: boolean;
    /**
     * Answered even when the day's quota is spent (uncounted): /api/usage, the
     * route a client asks to learn when the quota resets.
     */
    answersWhenSpent?: boolean;
  }
}

/** Step 3 of the guard: the account's quota and usage (synchronous when there is nothing to decide). */
export function enforceQuota(deps: QuotaDeps): GuardStep {
  return (request: FastifyRequest, reply: FastifyReply) => {
    const config = request.routeOptions.config;
    const ask = { cacheable: config.cacheable === true && request.method === 'GET', answersWhenSpent: config.answersWhenSpent === true };
    // Set before a refusal too: the 429 carries the RateLimit headers.
    const decided = (decision: QuotaDecision) => {
      request.quota = decision;
      request.readModelVersion = decision.readModelVersion;
      reply.headers(rateLimitHeaders(decision));
    };
    const spent = spendQuota(deps, request.apiKey!, ask, decided);
    const apply = (s: QuotaSpent) => {
      request.readModelVersion = s.readModelVersion;
      request.readModelLsn = s.readModelLsn;
    };
    if (spent instanceof Promise) return spent.then(apply);
    apply(spent);
    return undefined;
  };
}
