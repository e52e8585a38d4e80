// Process concerns of the HTTP API: listen, revocation listener, graceful close.
// The services come from the composition root (src/runtime/services.ts).
import type { FastifyInstance } from 'fastify';
import type { Services } from '../runtime/services.js';
import { buildApp } from './app.js';

export interface WebServer {
  app: FastifyInstance;
  url: string;
  close(): Promise<void>;
}

export async function startWebServer(services: Services): Promise<WebServer> {
  const { config, logger, resources, apiKeys, readModel } = services;
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
  services.readRouter?.start();
  let draining = false;
  let listening = config.web.publicBaseUrl;
  const app = await buildApp({
    services,
    draining: () => draining,
    cacheTtlSeconds: config.web.cacheTtlSeconds,
    cacheMaxBytes: config.web.cacheMaxBytes,
    usageFlushMs: config.web.usageFlushMs,
    // PORT=0 picks a free port: without PUBLIC_BASE_URL the document then names the one it got.
    publicBaseUrl: () => (config.web.publicBaseUrl.endsWith(':0') ? listening : config.web.publicBaseUrl),
    overloadMaxEventLoopDelayMs: config.web.overloadMaxEventLoopDelayMs,
    adminToken: config.admin.token,
    http: config.web.http,
    trustProxy: config.web.trustProxy,
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
      await stopListening().catch(() => {});
      subscriber.disconnect();
    },
  };
}
