// Procfile `web`: the read-only HTTP API alone.
import { loadConfig } from './config.js';
import { startWebServer } from './http/server.js';
import { createLogger, type Logger } from './logger.js';
import { exitWithError, onShutdown } from './runtime/process.js';
import { openResources } from './runtime/resources.js';
import { buildServices } from './runtime/services.js';
import { reportBudget, reportQueueDepth } from './observability/metrics.js';

let logger: Logger | undefined;
try {
  const config = loadConfig();
  logger = createLogger(config.logLevel, undefined, { traced: config.tracing.endpoint !== undefined });
  const resources = await openResources(config, logger, { role: 'web' });
  const services = buildServices(resources, config, logger);
  // The dashboard and /metrics' queue depths need the queues (not workers).
  reportQueueDepth(Object.values(services.queues));
  reportBudget(() => services.budget());
  const web = await startWebServer(services);
  logger.info({ url: web.url }, 'web listening');
  onShutdown(
    logger,
    async () => {
      await web.close();
      await services.close();
      await resources.close();
    },
    config.worker.shutdownTimeoutMs,
  );
} catch (error) {
  exitWithError(logger, error);
}
