// buildApp() assembles the HTTP API (reads, and the account's own webhooks) from its plugins. It never
// listens: server.ts does that, and tests use app.inject(). Nothing it starts
// outlives the app: the usage writer and the cache's /metrics report start
// when the app is ready and stop when it closes.
import http from 'node:http';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { UsageRecorder } from '../accounts/usage-recorder.js';
import { HTTP_DEFAULTS, type HttpLimits } from '../config.js';
import { answerClientError, closeUnreadConnections, ConnectionsPerClient } from './client-connections.js';
import { matchesAny, parseCidr, parseIp, type Cidr } from '../domain/ip.js';
import { httpDuration, reportResponseCache } from '../observability/metrics.js';
import { expectationFailed, requireHost } from './node-answers.js';
import { OutputBounds, hasBody } from './output-bounds.js';
import { adminPlugin } from './plugins/admin.plugin.js';
import { apiPlugin } from './plugins/api.plugin.js';
import { errorsPlugin } from './plugins/errors.plugin.js';
import { inputHygienePlugin } from './plugins/input-hygiene.plugin.js';
import { mcpPlugin } from './mcp/mcp.plugin.js';
import { methodNotAllowed } from './plugins/method-not-allowed.plugin.js';
import { openApiPlugin } from './plugins/openapi.plugin.js';
import { overloadPlugin } from './plugins/overload.plugin.js';
import { problem, sendProblem } from './problem.js';
import { loggedError, OneLinePerRequest, withoutTokens } from './request-log.js';
import { ResponseCache } from './response-cache.js';
import { UnknownKeyLimiter } from './unknown-key-limiter.js';
import { healthRoutes } from './routes/health.routes.js';
import { accountPages } from './pages/account.pages.js';
import type { WebhookRoutesDeps } from './routes/api/webhooks.routes.js';
import type { Services } from '../runtime/services.js';
import { ProblemSchema } from './schemas/common.js';
import { API_ERROR_HEADERS, registerSecurityHeaders } from './security-headers.js';
import { requestTracingPlugin } from '../observability/tracing-http.js';

/** What the app takes from the composition root (src/runtime/services.ts); tests build it there too. */
export type AppServices = Pick<
  Services,
  | 'db'
  | 'redis'
  | 'redisKeys'
  | 'logger'
  | 'apiKeys'
  | 'quota'
  | 'readModel'
  | 'readRouter'
  | 'secretBox'
  | 'webhooks'
  | 'research'
  | 'researchSettings'
  | 'comparisons'
  | 'mailer'
  | 'queues'
  | 'signInLimiter'
  | 'knownDevices'
  | 'hashGate'
  | 'pageLimiter'
>;

/** The services, and what only the web process has: its HTTP bounds, its lifecycle, its address. */
export interface AppDeps {
  services: AppServices;
  /** 0 disables the response cache. */
  cacheTtlSeconds?: number;
  /** The response cache's byte budget (API_CACHE_MAX_MB). */
  cacheMaxBytes?: number;
  /** Event-loop delay (ms) above which requests are shed with 503 + Retry-After; 0 turns shedding off (tests). */
  overloadMaxEventLoopDelayMs?: number;
  /** How often the event loop is sampled for that (ms). */
  overloadSampleIntervalMs?: number;
  /** Guards /metrics and the queue dashboard; both are off when unset (and then no queue is opened for the dashboard). */
  adminToken?: string;
  /** True while the process drains before shutdown (readiness then answers 503). */
  draining?: () => boolean;
  /** Bounds on inbound connections; tests and the defaults of config.ts. */
  http?: HttpLimits;
  /** How often counted usage is written to Postgres (USAGE_FLUSH_MS). */
  usageFlushMs?: number;
  /** Where clients reach the API (PUBLIC_BASE_URL, or where it listens): the OpenAPI document's server. Asked when the document is first built. */
  publicBaseUrl?: () => string;
  /** TRUST_PROXY: the reverse proxies whose X-Forwarded-For names the client; empty or unset: none. */
  trustProxy?: readonly string[];
  /** Turns the services' webhook management or research off (tests of a web process without them: those routes answer 503). */
  without?: ReadonlyArray<'webhooks' | 'research'>;
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

/** What the HTTP layer itself holds (the cache, the connection guard, the usage writer): built with the app, gone with it. */
function collaborators(deps: AppDeps) {
  const { logger } = deps.services;
  const limits = deps.http ?? HTTP_DEFAULTS;
  return {
    limits,
    usage: new UsageRecorder(
      deps.services.db,
      (error) => logger.warn({ err: error }, 'usage could not be written to Postgres; kept for the next write'),
      deps.usageFlushMs,
    ),
    responseCache: new ResponseCache((deps.cacheTtlSeconds ?? 60) * 1000, deps.cacheMaxBytes),
    trustedProxies: (deps.trustProxy ?? []).map((cidr) => parseCidr(cidr)),
    // One budget of unknown-key lookups per client, whichever door takes its keys (/api, /mcp): a client
    // guessing keys must not earn a fresh budget by changing doors (outside review of 2026-11-28).
    failedAuth: new UnknownKeyLimiter(),
    // What a connection may make the process hold for a client that does not read (see output-bounds.ts).
    connections: new OutputBounds(
      {
        maxPipelined: limits.maxPipelined,
        maxQueuedBytes: limits.maxQueuedBytes,
        maxQueuedTotalBytes: limits.maxQueuedTotalBytes,
        stallTimeoutMs: limits.requestTimeoutMs,
      },
      (event) => logger.warn({ connection: event }, 'closing a connection that does not read its answers'),
    ),
  };
}

/** The root's webhook service (the CLI's too), and how Idempotency-Key answers are kept; undefined: /api/webhooks answers 503. */
function webhookRoutes(deps: AppDeps): WebhookRoutesDeps | undefined {
  const { services } = deps;
  if (deps.without?.includes('webhooks')) return undefined;
  const service = services.webhooks;
  if (!service) return undefined;
  return { service, idempotency: { redis: services.redis, keyOf: services.redisKeys.idempotency, box: services.secretBox } };
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { services } = deps;
  const { limits, usage, responseCache, trustedProxies, connections, failedAuth } = collaborators(deps);
  const { apiKeys, quota } = services;
  const webhooks = webhookRoutes(deps);
  const research = deps.without?.includes('research')
    ? undefined
    : { service: services.research, comparisons: services.comparisons, settings: services.researchSettings };
  const app = Fastify({
    loggerInstance: services.logger as FastifyBaseLogger,
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
        (event) => services.logger.warn({ connection: event }, 'refusing connections past HTTP_MAX_CONNECTIONS_PER_CLIENT'),
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
  });

  // Requests as spans when tracing is on (docs/operations.md, "Traces"); first, so every route is traced.
  const tracing = await requestTracingPlugin();
  if (tracing) await app.register(tracing);
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
  await app.register(adminPlugin, { adminToken: deps.adminToken, ...(deps.adminToken ? { queues: Object.values(services.queues) } : {}) });
  await app.register(openApiPlugin, { publicBaseUrl: deps.publicBaseUrl });
  await app.register(healthRoutes, { db: services.db, redis: services.redis, draining: deps.draining });
  await app.register(apiPlugin, {
    prefix: '/api',
    guard: {
      db: services.db,
      redis: services.redis,
      redisKeys: services.redisKeys,
      apiKeys,
      failedAuth,
      quota,
      usage,
      responseCache,
      readModel: services.readModel,
      readRouter: services.readRouter,
    },
    routes: {
      db: services.db,
      quota,
      ...(webhooks ? { webhooks } : {}),
      ...(research ? { research: { service: research.service } } : {}),
      ...(research?.comparisons ? { comparisons: { service: research.comparisons, defaultGeo: research.settings.defaultGeo } } : {}),
    },
  });
  // The MCP server for AI assistants (docs/mcp.md): each tool one request of the API above, with the caller's key.
  await app.register(mcpPlugin, { apiKeys, failedAuth });
  // The account's own pages (sign-in sessions, never Bearer keys): see pages/account.pages.ts.
  await app.register(accountPages, {
    db: services.db,
    redis: services.redis,
    redisKeys: services.redisKeys,
    logger: services.logger,
    quota,
    forgetKey: (keyId) => apiKeys.forget(keyId),
    ...(webhooks ? { webhooks: webhooks.service } : {}),
    ...(research ? { research: research.service } : {}),
    ...(research?.comparisons ? { comparisons: { service: research.comparisons, defaultGeo: research.settings.defaultGeo } } : {}),
    ...(research ? { researchAllowance: research.settings.allowance } : {}),
    ...(deps.publicBaseUrl ? { publicBaseUrl: deps.publicBaseUrl } : {}),
    ...(services.mailer ? { mailer: services.mailer } : {}),
    signInLimiter: services.signInLimiter,
    knownDevices: services.knownDevices,
    hashGate: services.hashGate,
    pageLimiter: services.pageLimiter,
  });
  await app.register(otherMethods.answer);
  return app;
}
