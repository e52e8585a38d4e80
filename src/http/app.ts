// buildApp() assembles the read-only HTTP API. It never listens: server.ts does
// that, and tests use app.inject().
import http from 'node:http';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import underPressure from '@fastify/under-pressure';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyError, type FastifyInstance, type HTTPMethods } from 'fastify';
import type { Redis } from '../redis/connection.js';
import { ApiKeyCache } from '../api-keys/api-key-cache.js';
import { defineQuotaCommands, QuotaStore } from '../accounts/quota.store.js';
import { UsageRecorder } from '../accounts/usage-recorder.js';
import type { Db } from '../db/connection.js';
import type { ReadRouter } from '../db/read-router.js';
import type { HttpLimits } from '../config.js';
import type { Logger } from '../logger.js';
import { classifyOutage } from '../outage.js';
import { controlCharacterProblem, escapeForTerminal } from '../domain/text.js';
import type { RedisKeys } from '../redis/keys.js';
import { registerApiGuard } from './api-guard.js';
import { ConnectionGuard } from './connection-guard.js';
import { answerClientError, ConnectionsPerClient } from './client-connections.js';
import { registerSecurityHeaders } from './security-headers.js';
import { matchesAny, parseCidr, parseIp, type Cidr } from '../domain/ip.js';
import type { ReadModelVersionWatcher } from '../redis/read-model-version.js';
import { invalidParam, problem, ProblemError, sendProblem, type InvalidParam } from './problem.js';
import { OneLinePerRequest } from './request-log.js';
import { ResponseCache } from './response-cache.js';
import { httpDuration, isAdmin, registry, reportResponseCache } from '../observability/metrics.js';
import type { Queue } from 'bullmq';
import { catalogRoutes } from './routes/api/catalog.routes.js';
import { insightRoutes } from './routes/api/insights.routes.js';
import { usageRoutes } from './routes/api/usage.routes.js';
import { researchRoutes } from './routes/api/research.routes.js';
import { healthRoutes } from './routes/health.routes.js';
import { ProblemSchema } from './schemas.js';

export interface AppDeps {
  db: Db;
  /** A fail-fast connection (see createRedis): a request must not hang on a missing Redis. */
  redis: Redis;
  redisKeys: RedisKeys;
  logger: Logger;
  apiKeys?: ApiKeyCache;
  /** Keeps the read-model version in memory (see api-guard.ts); without it every request asks Redis. */
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
  /** TRUST_PROXY: the reverse proxies whose X-Forwarded-For names the client; empty or unset: none. */
  trustProxy?: readonly string[];
}

const DEFAULT_HTTP_LIMITS: HttpLimits = {
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 10_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 2_000,
  maxConnectionsPerClient: 256,
  maxPipelined: 16,
  maxQueuedBytes: 1024 * 1024,
  maxQueuedTotalBytes: 64 * 1024 * 1024,
};

const ALL_METHODS: HTTPMethods[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** A bounded number's whole range ("from 1 to 90"), read from the route's schema, where the validator names one bound. */
function rangeOf(schema: unknown, where: string, name: string): string | undefined {
  const property = (schema as Record<string, { properties?: Record<string, { type?: string; minimum?: number; maximum?: number }> } | undefined>)?.[where]?.properties?.[name];
  if (property?.minimum === undefined || property.maximum === undefined) return undefined;
  return `must be ${property.type === 'integer' ? 'a whole number' : 'a number'} from ${property.minimum} to ${property.maximum}`;
}

function validationProblem(error: FastifyError, routeSchema: unknown) {
  const where = error.validationContext ?? 'request';
  const params: InvalidParam[] = (error.validation ?? []).map((v) => {
    const name =
      (v.params as { additionalProperty?: string }).additionalProperty ??
      (v.params as { missingProperty?: string }).missingProperty ??
      (v.instancePath.replace(/^\//, '').split('/')[0] || where);
    const allowed = (v.params as { allowedValues?: string[] }).allowedValues;
    const bounded = ['minimum', 'maximum', 'type'].includes(v.keyword) ? rangeOf(routeSchema, where, name) : undefined;
    const reason = v.keyword === 'additionalProperties' ? 'is not a known parameter' : (bounded ?? v.message ?? 'is invalid');
    return { name, reason, ...(allowed ? { allowed } : {}) };
  });
  const first = params[0];
  const detail = first
    ? `${first.name} ${first.reason}${first.allowed ? ` (allowed: ${first.allowed.join(', ')})` : ''}`
    : error.message;
  return problem('invalidParameter', detail, { invalid_params: params });
}

function isTrustedProxy(address: string, trusted: readonly Cidr[]): boolean {
  const ip = parseIp(address);
  return ip !== null && matchesAny(ip, trusted);
}

export const API_VERSION = '1.1.0';
/** The API's terms: the licence of the service and its data for API clients. */
const API_LICENSE = { name: 'Proprietary: use under your account\'s plan', identifier: 'LicenseRef-Startup-Insights' };

interface OpenApiDocument {
  servers?: Array<{ url: string; description?: string }>;
  paths?: Record<string, Record<string, { parameters?: Array<{ in: string; required?: boolean; schema?: { default?: unknown } }> }>>;
}

/**
 * What generated clients need beyond the route schemas: a parameter the API
 * fills in by default is optional to the caller (the schemas list it as
 * required, because the validator fills it in before the handler runs), and
 * the server is where clients reach this API.
 */
function finishOpenApi(document: OpenApiDocument, publicBaseUrl: string | undefined): OpenApiDocument {
  for (const operations of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(operations)) {
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in === 'query' && parameter.schema?.default !== undefined) parameter.required = false;
      }
    }
  }
  document.servers = [{ url: publicBaseUrl ?? '/', description: 'This deployment' }];
  return document;
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  defineQuotaCommands(deps.redis);
  const apiKeys = deps.apiKeys ?? new ApiKeyCache(deps.db);
  const quota = new QuotaStore(deps.redis, deps.redisKeys, deps.db, (error) =>
    deps.logger.warn({ err: error }, 'requests of an unlimited plan could not be counted for /api/usage'),
  );
  const usage = new UsageRecorder(deps.db, (error) => deps.logger.warn({ err: error }, 'usage could not be written to Postgres; kept for the next write'), deps.usageFlushMs);
  usage.start();
  const responseCache = new ResponseCache((deps.cacheTtlSeconds ?? 60) * 1000, deps.cacheMaxBytes);
  reportResponseCache(() => ({ bytes: responseCache.bytes, entries: responseCache.size }));

  const limits = deps.http ?? DEFAULT_HTTP_LIMITS;
  const trusted = (deps.trustProxy ?? []).map((cidr) => parseCidr(cidr));
  // What a connection may make the process hold for a client that does not read (see connection-guard.ts).
  const connections = new ConnectionGuard(
    { maxPipelined: limits.maxPipelined, maxQueuedBytes: limits.maxQueuedBytes, maxQueuedTotalBytes: limits.maxQueuedTotalBytes, stallTimeoutMs: limits.requestTimeoutMs },
    (event) => deps.logger.warn({ connection: event }, 'closing a connection that does not read its answers'),
  );
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    // Every inbound wait has a deadline. Fastify leaves requestTimeout at 0, which
    // also turns off Node's own limit: a client sending its body a byte at a time
    // would hold the connection forever. Node checks these on an interval, so
    // make it short enough for the bounds to bite near their value. The server is
    // made here (not by Fastify) so that every request passes the connection guard.
    serverFactory: (handler) => {
      const server = http.createServer(
        { headersTimeout: limits.headersTimeoutMs, requestTimeout: limits.requestTimeoutMs, connectionsCheckingInterval: Math.min(1_000, limits.headersTimeoutMs / 2) },
        connections.wrap(handler),
      );
      server.keepAliveTimeout = limits.keepAliveTimeoutMs;
      server.setTimeout(limits.requestTimeoutMs);
      server.maxConnections = limits.maxConnections;
      connections.attach(server);
      new ConnectionsPerClient(limits.maxConnections, limits.maxConnectionsPerClient, (address) => isTrustedProxy(address, trusted), (event) =>
        deps.logger.warn({ connection: event }, 'refusing connections past HTTP_MAX_CONNECTIONS_PER_CLIENT'),
      ).attach(server);
      return server;
    },
    requestIdHeader: 'x-request-id',
    clientErrorHandler: answerClientError,
    // X-Forwarded-For is believed only from the listed proxies, judged by the same parser as every other address.
    ...(trusted.length > 0 ? { trustProxy: (address: string) => isTrustedProxy(address, trusted) } : {}),
    logController: new OneLinePerRequest(),
    // Report every invalid parameter, and never silently drop unknown ones.
    ajv: { customOptions: { allErrors: true, removeAdditional: false, coerceTypes: true } },
    routerOptions: { maxParamLength: 200 },
    return503OnClosing: true,
    frameworkErrors: (error, request, reply) => {
      sendProblem(reply, problem('badRequest', error.message, { instance: request.url }));
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  await registerSecurityHeaders(app);
  // Counted usage goes to Postgres before the process lets go of it.
  app.addHook('onClose', async () => usage.close());
  app.addSchema(ProblemSchema);

  // 405 instead of 404 when the path exists under another method: collect every
  // route, then (in the last plugin) answer the other methods with an Allow header.
  const methodsByUrl = new Map<string, Set<string>>();
  let collecting = true;
  app.addHook('onRoute', (route) => {
    // The docs UI manages its own routes (and their trailing-slash twins).
    if (!collecting || route.url.startsWith('/docs') || route.url.startsWith('/admin')) return;
    const methods = methodsByUrl.get(route.url) ?? new Set<string>();
    for (const m of [route.method].flat()) methods.add(m);
    methodsByUrl.set(route.url, methods);
  });

  // The API is read-only: no route takes a body, so none is ever read. A request
  // that carries one is answered before anything reads it, and its connection
  // closes after the answer, so a client trickling a body cannot hold it open.
  app.addHook('onRequest', async (request, reply) => {
    const length = request.headers['content-length'];
    if (request.headers['transfer-encoding'] === undefined && (length === undefined || length === '0')) return;
    reply.header('connection', 'close');
    if (request.method === 'GET' || request.method === 'HEAD') return; // answered as usual; the body is never parsed
    const methods = request.routeOptions.url === undefined ? undefined : methodsByUrl.get(request.routeOptions.url);
    if (methods && !methods.has(request.method)) {
      const allow = [...methods].sort().join(', ');
      reply.header('allow', allow);
      return sendProblem(reply, problem('methodNotAllowed', `${request.method} is not allowed here; use ${allow}.`));
    }
    return sendProblem(reply, problem('notFound', `No route ${request.method} ${request.url.split('?')[0]}. This API is read-only; see /docs.`));
  });


  // Shed load instead of letting latency grow without bound: when the event loop
  // lags, answer 503 + Retry-After at once (health checks included: a lagging
  // process should look unready).
  await app.register(underPressure, {
    maxEventLoopDelay: deps.overloadMaxEventLoopDelayMs ?? 500,
    sampleInterval: deps.overloadSampleIntervalMs ?? 250,
    retryAfter: 5,
    pressureHandler: (_request, reply, type, value) => {
      reply.header('retry-after', '5');
      void sendProblem(reply, problem('unavailable', `The service is overloaded (${type}: ${Math.round(Number(value))}); retry in a few seconds.`));
    },
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof ProblemError) {
      reply.headers(error.headers);
      return sendProblem(reply, error.body);
    }
    if (error.validation) return sendProblem(reply, validationProblem(error, request.routeOptions.schema));
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      return sendProblem(reply, { ...problem('badRequest', error.message), status: error.statusCode, title: error.name });
    }
    const outage = classifyOutage(error);
    if (outage) {
      request.log.warn({ err: error, dependency: outage.dependency, reason: outage.reason }, 'dependency unavailable');
      reply.header('retry-after', '5');
      return sendProblem(reply, problem('unavailable', 'A backing service (Postgres or Redis) is not answering. Retry shortly.'));
    }
    request.log.error({ err: error }, 'unhandled error');
    return sendProblem(reply, problem('internal', 'Something went wrong on our side. It has been logged.'));
  });

  // No text parameter may hold a control character: Postgres refuses NUL
  // outright, and the others have no place in any parameter and end up in logs
  // and terminals. Checked as sent, before any route trims or splits it.
  app.addHook('preValidation', async (request) => {
    for (const part of [request.query, request.params] as unknown[]) {
      if (typeof part !== 'object' || part === null) continue;
      for (const [name, value] of Object.entries(part)) {
        const badName = controlCharacterProblem(name);
        if (badName) throw invalidParam(escapeForTerminal(name), `is a parameter name that ${badName}`);
        for (const text of [value].flat()) {
          const control = typeof text === 'string' ? controlCharacterProblem(text) : null;
          if (control) throw invalidParam(name, control);
        }
      }
    }
  });

  // Ajv coerces "Infinity" and "1e400" to Infinity and then skips minimum and
  // maximum for non-finite numbers, so a validated number can still be one
  // Postgres rejects. Every number that passed validation must also be finite.
  app.addHook('preHandler', async (request) => {
    for (const part of [request.query, request.params] as unknown[]) {
      if (typeof part !== 'object' || part === null) continue;
      for (const [name, value] of Object.entries(part)) {
        if (typeof value === 'number' && !Number.isFinite(value)) throw invalidParam(name, 'must be a finite number');
      }
    }
  });

  app.addHook('onResponse', async (request, reply) => {
    httpDuration.observe(
      { method: request.method, route: request.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
  });

  if (deps.adminToken && deps.queues && deps.queues.length > 0) {
    // Bull Board: every queue, with retry and remove, behind the admin token.
    const token = deps.adminToken;
    const board = new FastifyAdapter();
    board.setBasePath('/admin/queues');
    createBullBoard({ queues: deps.queues.map((q) => new BullMQAdapter(q)), serverAdapter: board });
    await app.register(async (admin) => {
      admin.addHook('onRequest', async (request, reply) => {
        if (!isAdmin(request.headers.authorization, token)) {
          reply.header('www-authenticate', 'Basic realm="admin"');
          return sendProblem(reply, problem('unauthorized', 'The queue dashboard needs ADMIN_TOKEN (HTTP Basic with it as password, or Bearer).'));
        }
      });
      await admin.register(board.registerPlugin(), { prefix: '/admin/queues' });
    });
  }

  if (deps.adminToken) {
    const token = deps.adminToken;
    app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
      if (!isAdmin(request.headers.authorization, token)) {
        reply.header('www-authenticate', 'Basic realm="admin", Bearer');
        return sendProblem(reply, problem('unauthorized', 'The metrics need ADMIN_TOKEN (Bearer, or Basic with it as password).'));
      }
      reply.header('content-type', registry.contentType);
      return registry.metrics();
    });
  }

  app.setNotFoundHandler((request, reply) =>
    sendProblem(reply, problem('notFound', `No route ${request.method} ${request.url.split('?')[0]}. See /docs.`)),
  );

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Startup Insights API',
        version: API_VERSION,
        description:
          'Read-only access to researched startup insights: 8-dimension scores with evidence, Google Trends series and forecasts. ' +
          'Every /api request needs `Authorization: Bearer <key>` and counts against the daily quota of the plan of the account that owns the key ' +
          '(Free 100, Starter 1,000, Pro 10,000, Enterprise unlimited; per UTC day, over all its keys). Errors are RFC 9457 problem+json.',
        license: API_LICENSE,
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'An API key: sik_…' } } },
      security: [{ bearer: [] }],
      tags: [
        { name: 'insights', description: 'Researched ideas: scores, series, forecasts, charts' },
        { name: 'research', description: 'The 40-step research runs behind the insights' },
        { name: 'catalog', description: 'Allowed filter values and the methodology' },
        { name: 'account', description: "Your account's plan and usage" },
        { name: 'health', description: 'Liveness and readiness, without a key' },
      ],
    },
    transformObject: (document) => finishOpenApi(('openapiObject' in document ? document.openapiObject : {}) as OpenApiDocument, deps.publicBaseUrl?.()) as object,
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });

  // The document does not change once the app is ready: encoded once, every answer shares the
  // one buffer (a string would be copied into each answer with its headers).
  let openApiJson: Buffer | undefined;
  app.get('/openapi.json', { schema: { hide: true } }, async (_request, reply) =>
    reply.type('application/json; charset=utf-8').send((openApiJson ??= Buffer.from(JSON.stringify(app.swagger())))),
  );
  await app.register(healthRoutes, { db: deps.db, redis: deps.redis, draining: deps.draining });

  await app.register(
    async (api) => {
      registerApiGuard(api, { redis: deps.redis, redisKeys: deps.redisKeys, apiKeys, quota, usage, responseCache, readModel: deps.readModel, readRouter: deps.readRouter });
      await api.register(insightRoutes, { db: deps.db });
      await api.register(catalogRoutes, { db: deps.db });
      await api.register(usageRoutes, { db: deps.db, quota });
      await api.register(researchRoutes, { db: deps.db });
    },
    { prefix: '/api' },
  );

  await app.register(async (last) => {
    collecting = false;
    for (const [url, methods] of methodsByUrl) {
      const others = ALL_METHODS.filter((m) => !methods.has(m));
      if (others.length === 0) continue;
      const allow = [...methods].sort().join(', ');
      last.route({
        method: others,
        url,
        schema: { hide: true },
        handler: async (request, reply) => {
          reply.header('allow', allow);
          return sendProblem(reply, problem('methodNotAllowed', `${request.method} is not allowed here; use ${allow}.`));
        },
      });
    }
  });

  return app;
}
