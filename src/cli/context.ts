// What every command is handed when it runs: the parsed configuration and a logger.
import type { loadConfig } from '../config.js';
import type { createLogger } from '../logger.js';

export interface CliContext {
  config: ReturnType<typeof loadConfig>;
  logger: ReturnType<typeof createLogger>;
}
