// Procfile `web`: the read-only HTTP API alone.
import { loadConfig } from './config.js';
import { startWebServer } from './http/server.js';
import { createLogger, type Logger } from './logger.js';
import { exitWithError, onShutdown } from './runtime/process.js';
import { openResources } from './runtime/resources.js';
import { budgetReport } from './runtime/budget.js';
import { egressPoolFor } from './runtime/egress.js';
import { openQueues } from './runtime/producer-queues.js';
import { reportBudget, reportQueueDepth } from './observability/metrics.js';

let logger: Logger | undefined;
try {
  const config = loadConfig();
  logger = createLogger(config.logLevel);
  const resources = await openResources(config, logger, { role: 'web' });
  // The dashboard and /metrics' queue depths need the queues (not workers).
  const { queues, close: closeQueues } = openQueues(resources);
  reportQueueDepth(Object.values(queues));
  const egress = egressPoolFor(resources, config);
  reportBudget(() => budgetReport(resources.db, egress, config));
  const web = await startWebServer(resources, config, logger, Object.values(queues));
  logger.info({ url: web.url }, 'web listening');
  onShutdown(logger, async () => {
    await web.close();
    await closeQueues();
    await resources.close();
  });
} catch (error) {
  exitWithError(logger, error);
}
