// Process concerns of the HTTP API: listen, revocation listener, graceful close.
import type { Queue } from 'bullmq';
import type { FastifyInstance } from 'fastify';
import { ApiKeyCache } from '../api-keys/api-key-cache.js';
import { ReadRouter } from '../db/read-router.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { ReadModelVersionWatcher } from '../redis/read-model-version.js';
import type { Resources } from '../runtime/resources.js';
import { QUEUES } from '../queue/queue-names.js';
import { SecretBox } from '../webhooks/secret-box.js';
import { mailerFromConfig } from '../mail/mailer.js';
import { researchSettings } from '../research/research-service.js';
import { directSeries, type SeriesSource } from '../research/comparison-service.js';
import { askWithoutWaiting } from '../research/trends-gateway.js';
import { providerGateways } from '../research/provider-gateways.js';
import { answeringProvider } from '../domain/trends/capabilities.js';
import { buildApp } from './app.js';

export interface WebServer {
  app: FastifyInstance;
  url: string;
  close(): Promise<void>;
}

export async function startWebServer(resources: Resources, config: Config, logger: Logger, queues: Queue[] = []): Promise<WebServer> {
  const apiKeys = new ApiKeyCache(resources.db);
  const readModel = new ReadModelVersionWatcher(resources.redis, resources.redisKeys, logger);
  // A subscribed connection can do nothing else, so revocations and read-model changes get their own.
  const subscriber = resources.connectRedis('worker');
  subscriber.on('error', (error) => logger.debug({ err: error }, 'subscriber error'));
  const stopRevocations = await apiKeys.listen(subscriber, resources.redisKeys.apiKeyChangesChannel);
  const stopVersions = await readModel.listen(subscriber);
  const stopListening = async () => {
    await stopVersions();
    await stopRevocations();
  };

  // The replica, when configured: read from once it has replayed what a response needs.
  const readRouter = resources.readDb ? new ReadRouter(resources.db, resources.readDb) : undefined;
  readRouter?.start();
  let draining = false;
  const webhookQueue = queues.find((q) => q.name === QUEUES.webhooks);
  const researchQueue = queues.find((q) => q.name === QUEUES.research);
  const trendsQueue = queues.find((q) => q.name === QUEUES.trends);
  // Comparisons ask Google through the trends queue, never waiting in a request; local data directly.
  const series: SeriesSource | undefined =
    answeringProvider(config.trends.providers, 'series') === 'google'
      ? trendsQueue && { fetch: (request) => askWithoutWaiting(trendsQueue, 'google', request), provider: 'google' }
      : directSeries(
          providerGateways({ config, logger, redis: resources.redis, keys: resources.redisKeys })(config.trends.provider, 'research'),
          answeringProvider(config.trends.providers, 'series'),
        );
  // Simulated insights are compared in the simulated world they came from (it needs no network), whatever the provider.
  const simulatedSeries = directSeries(
    providerGateways({ config, logger, redis: resources.redis, keys: resources.redisKeys })('synthetic', 'research'),
    'synthetic',
  );
  // Without a readable secret box the API still serves reads; /api/webhooks says it is not configured.
  let webhookBox: SecretBox | undefined;
  try {
    webhookBox = SecretBox.fromConfig(config);
  } catch (error) {
    logger.warn(
      { err: error },
      'no webhook encryption key (set WEBHOOK_ENCRYPTION_KEY, or let DATA_DIR be written): /api/webhooks answers 503',
    );
  }
  let listening = config.web.publicBaseUrl;
  const mailer = mailerFromConfig(config.mail);
  const app = await buildApp({
    draining: () => draining,
    db: resources.db,
    redis: resources.redis,
    redisKeys: resources.redisKeys,
    logger,
    apiKeys,
    readModel,
    cacheTtlSeconds: config.web.cacheTtlSeconds,
    cacheMaxBytes: config.web.cacheMaxBytes,
    usageFlushMs: config.web.usageFlushMs,
    // PORT=0 picks a free port: without PUBLIC_BASE_URL the document then names the one it got.
    publicBaseUrl: () => (config.web.publicBaseUrl.endsWith(':0') ? listening : config.web.publicBaseUrl),
    overloadMaxEventLoopDelayMs: config.web.overloadMaxEventLoopDelayMs,
    adminToken: config.admin.token,
    queues,
    http: config.web.http,
    trustProxy: config.web.trustProxy,
    pages: config.web.pages,
    ...(webhookBox
      ? {
          webhooks: {
            box: webhookBox,
            policy: { allowPrivate: config.webhooks.allowPrivate, allowedCidrs: config.webhooks.allowedCidrs },
            secretOverlapHours: config.webhooks.secretOverlapHours,
            maxSubscriptions: config.webhooks.maxSubscriptions,
            sends: config.webhooks.sends,
            ...(webhookQueue ? { queue: webhookQueue } : {}),
          },
        }
      : {}),
    ...(readRouter ? { readRouter } : {}),
    ...(mailer ? { mailer } : {}),
    research: {
      settings: researchSettings(config),
      ...(researchQueue ? { queue: researchQueue } : {}),
      ...(series ? { series } : {}),
      simulatedSeries,
    },
  });
  try {
    await app.listen({ host: config.web.host, port: config.web.port });
  } catch (error) {
    await stopListening().catch(() => {});
    subscriber.disconnect();
    const code = (error as { code?: string }).code;
    if (code === 'EADDRINUSE') {
      throw new Error(`Port ${config.web.port} on ${config.web.host} is already in use — stop the other process or set PORT`);
    }
    throw error;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.web.port;
  const host = config.web.host.includes(':') ? `[${config.web.host}]` : config.web.host;
  listening = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`;
  return {
    app,
    url: listening,
    async close() {
      // First report unready and keep serving, so a load balancer stops sending
      // traffic; then stop accepting, let in-flight requests finish, drop the subscriber.
      draining = true;
      await new Promise((r) => setTimeout(r, config.web.shutdownDrainMs));
      await app.close();
      mailer?.close();
      readRouter?.stop();
      await stopListening().catch(() => {});
      subscriber.disconnect();
    },
  };
}
