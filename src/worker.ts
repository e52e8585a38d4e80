// Procfile `worker`: the BullMQ workers for every queue. Scale out by running more.
import { loadConfig } from './config.js';
import { createLogger, type Logger } from './logger.js';
import { exitWithError, onShutdown } from './runtime/process.js';
import { openResources } from './runtime/resources.js';
import { buildServices } from './runtime/services.js';
import { startWorkers } from './runtime/workers.js';
import { reportBudget } from './observability/metrics.js';
import { serveMetrics } from './observability/metrics-server.js';

let logger: Logger | undefined;
try {
  const config = loadConfig();
  logger = createLogger(config.logLevel, undefined, { traced: config.tracing.endpoint !== undefined });
  const resources = await openResources(config, logger, { role: 'worker' });
  const services = buildServices(resources, config, logger);
  const pipeline = await startWorkers(services, { keepSchedulers: true });
  reportBudget(() => services.budget());
  // A worker has no web server: it can serve its own /metrics for Prometheus.
  const metricsServer =
    config.admin.metricsPort && config.admin.token
      ? await serveMetrics(config.admin.metricsPort, config.admin.token, config.web.host)
      : undefined;
  logger.info({ provider: config.trends.provider, concurrency: config.worker.researchConcurrency }, 'workers started');
  let phase = 'workers';
  onShutdown(
    logger,
    async () => {
      metricsServer?.close();
      await pipeline.close();
      phase = 'services';
      await services.close();
      phase = 'resources';
      await resources.close();
    },
    config.worker.shutdownTimeoutMs,
    () => ({ phase, ...(phase === 'workers' ? pipeline.closing() : {}) }),
  );
} catch (error) {
  exitWithError(logger, error);
}
