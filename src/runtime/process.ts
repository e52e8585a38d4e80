// Signal handling shared by every long-running entry point: the first
// SIGTERM/SIGINT closes gracefully, a second one exits at once.
import type { Logger } from '../logger.js';

export function onShutdown(logger: Logger, close: () => Promise<void>): void {
  let closing = false;
  const handler = (signal: NodeJS.Signals) => {
    if (closing) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(130);
    }
    closing = true;
    logger.info({ signal }, 'shutting down gracefully (send again to force)');
    close().then(
      () => {
        logger.flush();
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'error during shutdown');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', handler);
  process.on('SIGINT', handler);
}

/** Prints a fatal startup error as a sentence, not a stack trace, and exits 1. */
export function exitWithError(logger: Logger | undefined, error: unknown): never {
  const message = error instanceof Error ? error.message : String(error);
  if (logger) logger.fatal({ err: error }, message);
  process.stderr.write(`\n${message}\n`);
  process.exit(1);
}
