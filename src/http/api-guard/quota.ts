// The account's daily quota and its usage. Limited plans wait for one Redis
// script per request (check and count atomically; it also returns the
// read-model version and its position in Postgres' log). A plan without a
// limit has nothing to decide, so on a cached route it is counted without
// waiting and the version comes from the in-process watcher: a cache hit then
// costs no round trip at all (counts are summed per event-loop turn and sent
// without waiting).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GuardStep } from './step.js';
import type { QuotaDecision, QuotaStore } from '../../accounts/quota.store.js';
import type { UsageRecorder } from '../../accounts/usage-recorder.js';
import { PLANS, rateLimitHeaders } from '../../domain/quota.js';
import { quotaRejections } from '../../observability/metrics.js';
import type { Redis } from '../../redis/connection.js';
import type { ReadModelVersionWatcher } from '../../redis/read-model-version.js';
import { problem, ProblemError } from '../problem.js';

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

export interface QuotaDeps {
  redis: Redis;
  quota: QuotaStore;
  usage: UsageRecorder;
  /** Without it (or while it is not in sync) every request asks Redis. */
  readModel?: ReadModelVersionWatcher;
}

/** Step 3 of the guard: the account's quota and usage. */
export function enforceQuota(deps: QuotaDeps): GuardStep {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const apiKey = request.apiKey!;
    const cacheable = request.routeOptions.config.cacheable === true && request.method === 'GET';
    const knownVersion =
      cacheable && PLANS[apiKey.plan].dailyLimit === null && deps.redis.status === 'ready' ? deps.readModel?.current() : undefined;
    let lsn = '';
    if (knownVersion !== undefined) {
      deps.quota.countUnlimited(apiKey);
      request.readModelVersion = knownVersion;
      lsn = deps.readModel?.currentLsn() ?? '';
    } else {
      const decision = await deps.quota.consume(apiKey);
      request.quota = decision;
      request.readModelVersion = decision.readModelVersion;
      lsn = decision.readModelLsn;
      reply.headers(rateLimitHeaders(decision));
      if (!decision.allowed && request.routeOptions.config.answersWhenSpent === true) {
        // Not counted (the script counts only what it allows), and not recorded as used.
        request.readModelLsn = lsn;
        return;
      }
      if (!decision.allowed) {
        quotaRejections.inc({ plan: decision.plan });
        throw new ProblemError(
          problem(
            'quotaExceeded',
            `The ${decision.plan} plan of account ${apiKey.accountId} allows ${decision.limit} requests per UTC day, over all its keys; they have been used. The quota resets at the next UTC midnight.`,
          ),
          { 'retry-after': String(decision.resetSeconds) },
        );
      }
    }
    deps.usage.record(apiKey);
    request.readModelLsn = lsn;
  };
}
