// Procfile `web`: the read-only HTTP API alone.
import { loadConfig } from './config.js';
import { startWebServer } from './http/server.js';
import { createLogger, type Logger } from './logger.js';
import { exitWithError, onShutdown } from './runtime/process.js';
import { openResources } from './runtime/resources.js';

let logger: Logger | undefined;
try {
  const config = loadConfig();
  logger = createLogger(config.logLevel);
  const resources = await openResources(config, logger);
  const web = await startWebServer(resources, config, logger);
  logger.info({ url: web.url }, 'web listening');
  onShutdown(logger, async () => {
    await web.close();
    await resources.close();
  });
} catch (error) {
  exitWithError(logger, error);
}
