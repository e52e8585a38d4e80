// Child process of bench:api: our real web server (auth, quota, cache, schemas,
// request logging at info), exactly as `web` runs it.
import { loadConfig } from '../../src/config.js';
import { startWebServer } from '../../src/http/server.js';
import { createLogger } from '../../src/logger.js';
import { openResources } from '../../src/runtime/resources.js';

const config = loadConfig();
const logger = createLogger(config.logLevel, process.stdout);
const resources = await openResources(config, logger, { role: 'bench' });
const web = await startWebServer(resources, config, logger);
process.send?.({ url: web.url });
process.on('disconnect', () => {
  void web
    .close()
    .then(() => resources.close())
    .then(() => process.exit(0));
});
