// Child process of bench:api: our real web server (auth, quota, cache, schemas,
// request logging at info), exactly as `web` runs it.
import { loadConfig } from '../../src/config.js';
import { startWebServer } from '../../src/http/server.js';
import { createLogger } from '../../src/logger.js';
import { openResources } from '../../src/runtime/resources.js';
import { buildServices } from '../../src/runtime/services.js';

const config = loadConfig();
const logger = createLogger(config.logLevel, process.stdout);
const resources = await openResources(config, logger, { role: 'bench' });
const services = buildServices(resources, config, logger);
const web = await startWebServer(services);
process.send?.({ url: web.url });
process.on('disconnect', () => {
  void web
    .close()
    .then(() => services.close())
    .then(() => resources.close())
    .then(() => process.exit(0));
});
