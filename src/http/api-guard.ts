// The gate in front of every /api route: API key, daily quota, rate-limit
// headers, then the response cache (a hit never reaches the handler).
//
// Limited plans wait for one Redis script per request (check and count
// atomically; it also returns the read-model version). A plan without a limit
// has nothing to decide, so on a cached route it is counted without waiting
// and the version comes from the in-process watcher: a cache hit then costs no
// round trip at all (counts are summed per event-loop turn and sent without waiting).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../db/connection.js';
import type { ReadRouter } from '../db/read-router.js';
import type { Redis } from '../redis/connection.js';
import { ApiKeyCache, type ResolvedApiKey } from '../api-keys/api-key-cache.js';
import type { QuotaDecision, QuotaStore } from '../accounts/quota.store.js';
import type { UsageRecorder } from '../accounts/usage-recorder.js';
import { apiKeyFormProblem, hasScope, isWellFormedApiKey, type ApiKeyScope } from '../domain/api-key.js';
import { PLANS, rateLimitHeaders } from '../domain/quota.js';
import type { ReadModelVersionWatcher } from '../redis/read-model-version.js';
import type { RedisKeys } from '../redis/keys.js';
import { FailedAuthLimiter } from './failed-auth-limiter.js';
import { problem, ProblemError } from './problem.js';
import { canonicalKey, etagOf, matchesIfNoneMatch, ResponseCache } from './response-cache.js';
import { quotaRejections } from '../observability/metrics.js';

declare module 'fastify' {
  interface FastifyRequest {
    apiKey?: ResolvedApiKey;
    /** Set when the quota script ran: always for limited plans and for uncached routes (e.g. /api/usage). */
    quota?: QuotaDecision;
    /** The read-model version this request's response is cached under. */
    readModelVersion?: string;
    /** The response cache's key for this request (route and validated parameters). */
    cacheKey?: string;
    /** Where this request's reads go: the replica once it has replayed this version's writes, else the primary. */
    readDb?: Db;
  }
  interface FastifyContextConfig {
    /** The response depends only on the URL and the read model: cache it and give it an ETag. */
    cacheable?: boolean;
    /** The scope a key needs for this route: unset means insights:read; null, any valid key (e.g. /api/usage). */
    requiredScope?: ApiKeyScope | null;
  }
}

export interface ApiGuardDeps {
  redis: Redis;
  redisKeys: RedisKeys;
  apiKeys: ApiKeyCache;
  quota: QuotaStore;
  usage: UsageRecorder;
  responseCache: ResponseCache;
  /** Without it (or while it is not in sync) every request asks Redis. */
  readModel?: ReadModelVersionWatcher;
  failedAuth?: FailedAuthLimiter;
  /** Reads from a replica when it is far enough along (DATABASE_READ_URL); without it, handlers read their own db. */
  readRouter?: ReadRouter;
}

const BEARER = /^Bearer[ ]+(\S+)[ ]*$/i;

function unauthorized(detail: string): ProblemError {
  return new ProblemError(problem('unauthorized', detail), { 'www-authenticate': 'Bearer realm="api"' });
}

export function registerApiGuard(app: FastifyInstance, deps: ApiGuardDeps): void {
  const failedAuth = deps.failedAuth ?? new FailedAuthLimiter();
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const header = request.headers.authorization;
    if (!header) throw unauthorized('Send your API key as "Authorization: Bearer <key>".');
    const token = BEARER.exec(header)?.[1];
    if (!token) throw unauthorized('The Authorization header must be "Bearer <key>".');
    // Shape and checksum first: garbage never costs a database lookup.
    if (!isWellFormedApiKey(token)) throw unauthorized(`That is not a valid API key: ${apiKeyFormProblem(token)}.`);
    let apiKey = deps.apiKeys.peek(token);
    if (!apiKey) {
      // A lookup of a key not known to exist takes a try from the client's budget
      // first (taken now, so concurrent junk cannot all pass); a valid key gives it
      // back. Requests that would cost no lookup (the key's answer is cached, or its
      // lookup is under way, as for a burst of one new key) take nothing.
      let tookTry = false;
      if (deps.apiKeys.wouldLookUp(token) && !deps.apiKeys.isKnown(token)) {
        const wait = failedAuth.take(request.ip);
        if (wait === 0) tookTry = true;
        else if (!(await deps.apiKeys.isKnownAfterRead(token))) {
          throw new ProblemError(
            problem('authThrottled', `Too many requests with unknown keys from your address; retry in ${wait} s with a valid key.`),
            {
              'retry-after': String(wait),
            },
          );
        }
      }
      apiKey = (await deps.apiKeys.resolve(token)) ?? undefined;
      if (!apiKey) throw unauthorized('Unknown or revoked API key.');
      if (tookTry) failedAuth.refund(request.ip);
    }
    // A key that exists but may not be used says why: expired (a rotation's overlap ended), or its account suspended.
    if (apiKey.expiresAt !== null && apiKey.expiresAt <= Date.now()) {
      throw new ProblemError(
        problem(
          'keyExpired',
          `This API key (${apiKey.id}) expired at ${new Date(apiKey.expiresAt).toISOString()}. Use the key that replaced it, or ask for a new one.`,
        ),
        {
          'www-authenticate': 'Bearer realm="api", error="invalid_token", error_description="expired"',
        },
      );
    }
    if (apiKey.status === 'suspended') {
      throw new ProblemError(
        problem(
          'accountSuspended',
          `Account ${apiKey.accountId} is suspended: its keys are valid but may not be used until it is resumed.`,
        ),
      );
    }
    // Checked before the quota: a request the key may not make is not counted.
    const needed = request.routeOptions.config.requiredScope === undefined ? 'insights:read' : request.routeOptions.config.requiredScope;
    if (needed !== null && !hasScope(apiKey.scopes, needed)) {
      throw new ProblemError(
        problem(
          'missingScope',
          `This API key (${apiKey.id}) lacks the scope ${needed} that ${request.method} ${request.routeOptions.url ?? request.url.split('?')[0]} needs; it has ${apiKey.scopes.join(', ') || 'none'}. Ask for a key created with --scope ${needed}.`,
        ),
      );
    }
    request.apiKey = apiKey;

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
    if (deps.readRouter) {
      const choice = await deps.readRouter.choose(lsn);
      request.readDb = choice.db;
      reply.header('x-read-from', choice.from);
    }
  });

  // The cache is consulted once the parameters are parsed and validated, so its
  // key is the request's meaning, not its spelling.
  app.addHook('preHandler', async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.routeOptions.config.cacheable !== true || request.method !== 'GET' || request.readModelVersion === undefined) return;
    request.cacheKey = canonicalKey(request.routeOptions.url ?? '', request.params, request.query);
    const hit = deps.responseCache.get(request.readModelVersion, request.cacheKey);
    if (hit) {
      reply.header('etag', hit.etag).header('x-cache', 'hit');
      if (matchesIfNoneMatch(request.headers['if-none-match'], hit.etag)) return reply.code(304).send();
      return reply.code(hit.statusCode).header('content-type', hit.contentType).send(hit.body);
    }
  });

  app.addHook('onSend', async (request, reply, payload) => {
    if (
      !request.routeOptions.config.cacheable ||
      request.method !== 'GET' ||
      reply.statusCode !== 200 ||
      typeof payload !== 'string' ||
      request.readModelVersion === undefined ||
      request.cacheKey === undefined ||
      reply.getHeader('x-cache') === 'hit'
    ) {
      return payload;
    }
    const etag = etagOf(payload);
    deps.responseCache.set(request.readModelVersion, request.cacheKey, {
      body: Buffer.from(payload),
      etag,
      statusCode: 200,
      contentType: String(reply.getHeader('content-type') ?? 'application/json; charset=utf-8'),
    });
    reply.header('etag', etag).header('x-cache', 'miss');
    if (matchesIfNoneMatch(request.headers['if-none-match'], etag)) {
      reply.code(304);
      return '';
    }
    return payload;
  });
}
