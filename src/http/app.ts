// buildApp() assembles the HTTP API (reads, and the account's own webhooks) from its plugins. It never
// listens: server.ts does that, and tests use app.inject(). Nothing it starts
// outlives the app: the usage writer and the cache's /metrics report start
// when the app is ready and stop when it closes.
import type { WebhookSendLimits } from '../domain/webhooks/sends.js';
import http from 'node:http';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { LookupAddress } from 'node:dns';
import { Queue } from 'bullmq';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { ApiKeyCache } from '../api-keys/api-key-cache.js';
import { QuotaStore } from '../accounts/quota.store.js';
import { UsageRecorder } from '../accounts/usage-recorder.js';
import { HTTP_DEFAULTS, type HttpLimits, type PagesLimits } from '../config.js';
import type { Db } from '../db/connection.js';
import type { ReadRouter } from '../db/read-router.js';
import { answerClientError, closeUnreadConnections, ConnectionsPerClient } from './client-connections.js';
import { matchesAny, parseCidr, parseIp, type Cidr } from '../domain/ip.js';
import type { Logger } from '../logger.js';
import { httpDuration, reportResponseCache } from '../observability/metrics.js';
import type { Redis } from '../redis/connection.js';
import type { RedisKeys } from '../redis/keys.js';
import type { ReadModelVersionWatcher } from '../redis/read-model-version.js';
import { expectationFailed, requireHost } from './node-answers.js';
import { OutputBounds, hasBody } from './output-bounds.js';
import { adminPlugin } from './plugins/admin.plugin.js';
import { apiPlugin } from './plugins/api.plugin.js';
import { errorsPlugin } from './plugins/errors.plugin.js';
import { inputHygienePlugin } from './plugins/input-hygiene.plugin.js';
import { methodNotAllowed } from './plugins/method-not-allowed.plugin.js';
import { openApiPlugin } from './plugins/openapi.plugin.js';
import { overloadPlugin } from './plugins/overload.plugin.js';
import { problem, sendProblem } from './problem.js';
import { loggedError, OneLinePerRequest, withoutTokens } from './request-log.js';
import { ResponseCache } from './response-cache.js';
import { healthRoutes } from './routes/health.routes.js';
import { accountPages } from './pages/account.pages.js';
import type { WebhookRoutesDeps } from './routes/api/webhooks.routes.js';
import type { Plan } from '../domain/quota.js';
import type { AddressPolicy } from '../domain/webhooks/address-policy.js';
import { QUEUES } from '../queue/queue-names.js';
import type { SecretBox } from '../webhooks/secret-box.js';
import { queueDeliveries, WebhookService } from '../webhooks/webhook-service.js';
import { ResearchChain } from '../research/chain.js';
import { readLastCheck } from '../trends/egress-pool.js';
import { checkVerdict } from '../trends/google-check.js';
import { ResearchService, type ResearchSettings } from '../research/research-service.js';
import { ComparisonService, type SeriesSource } from '../research/comparison-service.js';
import type { Mailer } from '../mail/mailer.js';
import { ProblemSchema } from './schemas.js';
import { API_ERROR_HEADERS, registerSecurityHeaders } from './security-headers.js';

export interface AppDeps {
  db: Db;
  /** A fail-fast connection (see createRedis): a request must not hang on a missing Redis. */
  redis: Redis;
  redisKeys: RedisKeys;
  logger: Logger;
  apiKeys?: ApiKeyCache;
  /** Keeps the read-model version in memory (see api-guard/api-guard.ts); without it every request asks Redis. */
  readModel?: ReadModelVersionWatcher;
  /** 0 disables the response cache. */
  cacheTtlSeconds?: number;
  /** The response cache's byte budget (API_CACHE_MAX_MB). */
  cacheMaxBytes?: number;
  /** Event-loop delay (ms) above which requests are shed with 503 + Retry-After; 0 turns shedding off (tests). */
  overloadMaxEventLoopDelayMs?: number;
  /** How often the event loop is sampled for that (ms). */
  overloadSampleIntervalMs?: number;
  /** Guards /metrics and the queue dashboard; both are off when unset. */
  adminToken?: string;
  /** Queues for the dashboard (Bull Board); the web process opens them. */
  queues?: Queue[];
  /** True while the process drains before shutdown (readiness then answers 503). */
  draining?: () => boolean;
  /** Bounds on inbound connections; tests and the defaults of config.ts. */
  http?: HttpLimits;
  /** Reads from a replica when it has replayed far enough (DATABASE_READ_URL). */
  readRouter?: ReadRouter;
  /** How often counted usage is written to Postgres (USAGE_FLUSH_MS). */
  usageFlushMs?: number;
  /** Where clients reach the API (PUBLIC_BASE_URL, or where it listens): the OpenAPI document's server. Asked when the document is first built. */
  publicBaseUrl?: () => string;
  /** The account pages' bounds (password hashing, pages per session and account); default PAGES_DEFAULTS. */
  pages?: PagesLimits;
  /** TRUST_PROXY: the reverse proxies whose X-Forwarded-For names the client; empty or unset: none. */
  trustProxy?: readonly string[];
  /** What /api/webhooks needs (the web process passes its configuration); without it those routes answer 503. */
  webhooks?: AppWebhookDeps;
  /** Research on demand: the settings of ResearchService, and the research queue (else the app opens one, closed with it); with `series`, comparisons too. */
  research?: { settings: ResearchSettings; queue?: Queue; series?: SeriesSource; simulatedSeries?: SeriesSource };
  /** Mails the People page's invitations (SMTP_URL); without it owners cannot invite (the operators' CLI can). */
  mailer?: Mailer;
}

export interface AppWebhookDeps {
  /** Seals subscription secrets (and the Idempotency-Key answers that hold one). */
  box: SecretBox;
  policy: AddressPolicy;
  secretOverlapHours: number;
  maxSubscriptions: Readonly<Record<Plan, number>>;
  /** What an account may have sent on request (WEBHOOK_SENDS_PER_DAY_*, …); default DEFAULT_WEBHOOK_SENDS. */
  sends?: WebhookSendLimits;
  /** The webhooks queue pings and replays go to; without it the app opens one on its Redis connection (closed with the app). */
  queue?: Queue;
  /** How host names are resolved for the address guard (tests stand in for DNS). */
  resolve?: (host: string) => Promise<LookupAddress[]>;
}

/** What the router's refusals say (Fastify's own messages quote the URL back). */
const ROUTER_ERRORS: Readonly<Record<string, string>> = {
  FST_ERR_BAD_URL: 'The URL is not valid: a broken percent-encoding, or one that decodes to no text.',
  FST_ERR_MAX_PARAM_LENGTH: 'A path parameter is longer than 200 characters; no id here is that long.',
};

/** The request announced a body that has not been read to its end. */
function hasUnreadBody(req: http.IncomingMessage): boolean {
  return hasBody(req) && !req.readableEnded;
}

function isTrustedProxy(address: string, trusted: readonly Cidr[]): boolean {
  const ip = parseIp(address);
  return ip !== null && matchesAny(ip, trusted);
}

/** The collaborators of the API, built once; none of them starts anything. */
function collaborators(deps: AppDeps) {
  const limits = deps.http ?? HTTP_DEFAULTS;
  return {
    limits,
    apiKeys: deps.apiKeys ?? new ApiKeyCache(deps.db),
    quota: new QuotaStore(deps.redis, deps.redisKeys, deps.db, (error) =>
      deps.logger.warn({ err: error }, 'requests of an unlimited plan could not be counted for /api/usage'),
    ),
    usage: new UsageRecorder(
      deps.db,
      (error) => deps.logger.warn({ err: error }, 'usage could not be written to Postgres; kept for the next write'),
      deps.usageFlushMs,
    ),
    responseCache: new ResponseCache((deps.cacheTtlSeconds ?? 60) * 1000, deps.cacheMaxBytes),
    trustedProxies: (deps.trustProxy ?? []).map((cidr) => parseCidr(cidr)),
    // What a connection may make the process hold for a client that does not read (see output-bounds.ts).
    connections: new OutputBounds(
      {
        maxPipelined: limits.maxPipelined,
        maxQueuedBytes: limits.maxQueuedBytes,
        maxQueuedTotalBytes: limits.maxQueuedTotalBytes,
        stallTimeoutMs: limits.requestTimeoutMs,
      },
      (event) => deps.logger.warn({ connection: event }, 'closing a connection that does not read its answers'),
    ),
  };
}

/** The webhook service the API's writes go through (the CLI builds the same one), and the queue it sends with. */
function webhookCollaborators(deps: AppDeps): { routes: WebhookRoutesDeps; ownQueue: Queue | undefined } | undefined {
  const settings = deps.webhooks;
  if (!settings) return undefined;
  const ownQueue = settings.queue
    ? undefined
    : new Queue(QUEUES.webhooks, { connection: deps.redis, prefix: deps.redisKeys.queuePrefix(QUEUES.webhooks) });
  const service = new WebhookService({
    db: deps.db,
    redis: deps.redis,
    subscriptionsVersionKey: deps.redisKeys.subscriptionsVersion,
    box: settings.box,
    enqueue: queueDeliveries((settings.queue ?? ownQueue)!),
    policy: settings.policy,
    secretOverlapHours: settings.secretOverlapHours,
    maxSubscriptions: settings.maxSubscriptions,
    ...(settings.sends ? { sends: settings.sends } : {}),
    pingRateKey: deps.redisKeys.webhookPings,
    ...(settings.resolve ? { resolve: settings.resolve } : {}),
    onVersionBumpError: (error) =>
      deps.logger.warn({ err: error }, 'webhook subscriptions changed, but workers could not be told (they reload within 30 s)'),
  });
  return { routes: { service, idempotency: { redis: deps.redis, keyOf: deps.redisKeys.idempotency, box: settings.box } }, ownQueue };
}

/** The research service the API's submissions go through (the CLI builds the same one), and the queue it enqueues on. */
function researchCollaborators(
  deps: AppDeps,
): { service: ResearchService; comparisons: ComparisonService | undefined; ownQueue: Queue | undefined } | undefined {
  const research = deps.research;
  if (!research) return undefined;
  const ownQueue = research.queue
    ? undefined
    : new Queue(QUEUES.research, { connection: deps.redis, prefix: deps.redisKeys.queuePrefix(QUEUES.research) });
  const comparisons = research.series
    ? new ComparisonService(deps.db, research.series, research.settings.allowance, undefined, research.simulatedSeries)
    : undefined;
  return {
    service: new ResearchService(deps.db, new ResearchChain((research.queue ?? ownQueue)!), research.settings, undefined, async () => {
      const check = await readLastCheck(deps.redis, deps.redisKeys.trendsPool);
      if (!check) return null;
      const { verdict, detail } = checkVerdict(check);
      return { checkedAt: new Date(check.checkedAt), verdict, detail };
    }),
    comparisons,
    ownQueue,
  };
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { limits, apiKeys, quota, usage, responseCache, trustedProxies, connections } = collaborators(deps);
  const webhooks = webhookCollaborators(deps);
  const research = researchCollaborators(deps);
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    // Every inbound wait has a deadline. Fastify leaves requestTimeout at 0, which
    // also turns off Node's own limit: a client sending its body a byte at a time
    // would hold the connection forever. Node checks these on an interval, so
    // make it short enough for the bounds to bite near their value. The server is
    // made here (not by Fastify) so that every request passes the connection guard.
    serverFactory: (handler) => {
      const server = http.createServer(
        {
          headersTimeout: limits.headersTimeoutMs,
          requestTimeout: limits.requestTimeoutMs,
          connectionsCheckingInterval: Math.min(1_000, limits.headersTimeoutMs / 2),
          // Node's own answers would bypass the guard (node-answers.ts): they are made here instead.
          requireHostHeader: false,
        },
        connections.wrap(requireHost(handler)),
      );
      server.on('checkExpectation', connections.wrap(expectationFailed));
      server.keepAliveTimeout = limits.keepAliveTimeoutMs;
      server.setTimeout(limits.requestTimeoutMs);
      server.maxConnections = limits.maxConnections;
      connections.attach(server);
      closeUnreadConnections(server, limits.unreadTimeoutMs);
      new ConnectionsPerClient(
        limits.maxConnections,
        limits.maxConnectionsPerClient,
        (address) => isTrustedProxy(address, trustedProxies),
        (event) => deps.logger.warn({ connection: event }, 'refusing connections past HTTP_MAX_CONNECTIONS_PER_CLIENT'),
      ).attach(server);
      return server;
    },
    requestIdHeader: 'x-request-id',
    clientErrorHandler: answerClientError,
    // X-Forwarded-For is believed only from the listed proxies, judged by the same parser as every other address.
    ...(trustedProxies.length > 0 ? { trustProxy: (address: string) => isTrustedProxy(address, trustedProxies) } : {}),
    logController: new OneLinePerRequest(),
    // Every request's logger: an error's message may quote the URL (Fastify's own warnings do), never an invitation token.
    childLoggerFactory: (logger, bindings, options) =>
      withoutTokens(logger.child(bindings, { ...options, serializers: { ...options.serializers, err: loggedError } })),
    // Report every invalid parameter, and never silently drop unknown ones.
    ajv: { customOptions: { allErrors: true, removeAdditional: false, coerceTypes: true } },
    routerOptions: { maxParamLength: 200 },
    return503OnClosing: true,
    // The router's refusals come before any hook (helmet's included) runs, so
    // they carry the security headers themselves, and never echo the URL.
    frameworkErrors: (error, _request, reply) => {
      reply.headers(API_ERROR_HEADERS);
      sendProblem(reply, problem('badRequest', ROUTER_ERRORS[error.code] ?? `The request could not be routed (${error.code}).`));
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  let stopReportingCache: (() => void) | undefined;
  app.addHook('onReady', async () => {
    usage.start();
    stopReportingCache = reportResponseCache(() => ({ bytes: responseCache.bytes, entries: responseCache.size }));
  });
  // Counted usage goes to Postgres before the process lets go of it.
  app.addHook('onClose', async () => {
    stopReportingCache?.();
    await usage.close();
    await webhooks?.ownQueue?.close();
    await research?.ownQueue?.close();
  });

  await registerSecurityHeaders(app);
  app.addSchema(ProblemSchema);
  const otherMethods = methodNotAllowed();
  await app.register(otherMethods.collect);
  await app.register(overloadPlugin, {
    maxEventLoopDelayMs: deps.overloadMaxEventLoopDelayMs,
    sampleIntervalMs: deps.overloadSampleIntervalMs,
  });
  await app.register(errorsPlugin);
  await app.register(inputHygienePlugin);
  // A request refused before its body was read closes its connection. Node reads the next
  // request of a connection only once this one's body is taken, and a refusal never takes
  // it: pipelined requests with bodies were answered one by one, each answer ten times
  // the request, and none of them met the pipelining bound (the third outside review: 829
  // answers for one 64 KB write, 600,000 for 200 connections, and a heap run out).
  // (A callback hook: an async one costs every answer a promise.)
  app.addHook('onSend', (request, reply, payload, done) => {
    if (reply.statusCode >= 400 && hasUnreadBody(request.raw)) {
      reply.header('connection', 'close');
      connections.closeAfterAnswer(request.raw.socket);
    }
    done(null, payload);
  });
  app.addHook('onResponse', async (request, reply) => {
    httpDuration.observe(
      { method: request.method, route: request.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
  });
  await app.register(adminPlugin, { adminToken: deps.adminToken, queues: deps.queues });
  await app.register(openApiPlugin, { publicBaseUrl: deps.publicBaseUrl });
  await app.register(healthRoutes, { db: deps.db, redis: deps.redis, draining: deps.draining });
  await app.register(apiPlugin, {
    prefix: '/api',
    guard: {
      db: deps.db,
      redis: deps.redis,
      redisKeys: deps.redisKeys,
      apiKeys,
      quota,
      usage,
      responseCache,
      readModel: deps.readModel,
      readRouter: deps.readRouter,
    },
    routes: {
      db: deps.db,
      quota,
      ...(webhooks ? { webhooks: webhooks.routes } : {}),
      ...(research ? { research: { service: research.service } } : {}),
      ...(research?.comparisons ? { comparisons: { service: research.comparisons, defaultGeo: deps.research!.settings.defaultGeo } } : {}),
    },
  });
  // The account's own pages (sign-in sessions, never Bearer keys): see pages/account.pages.ts.
  await app.register(accountPages, {
    db: deps.db,
    redis: deps.redis,
    redisKeys: deps.redisKeys,
    logger: deps.logger,
    quota,
    forgetKey: (keyId) => apiKeys.forget(keyId),
    ...(webhooks ? { webhooks: webhooks.routes.service } : {}),
    ...(research ? { research: research.service } : {}),
    ...(research?.comparisons ? { comparisons: { service: research.comparisons, defaultGeo: deps.research!.settings.defaultGeo } } : {}),
    ...(deps.research ? { researchAllowance: deps.research.settings.allowance } : {}),
    ...(deps.publicBaseUrl ? { publicBaseUrl: deps.publicBaseUrl } : {}),
    ...(deps.mailer ? { mailer: deps.mailer } : {}),
    ...(deps.pages ? { limits: deps.pages } : {}),
  });
  await app.register(otherMethods.answer);
  return app;
}
