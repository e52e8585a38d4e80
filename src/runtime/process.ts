// Signal handling shared by every long-running entry point: the first
// SIGTERM/SIGINT closes gracefully, a second one exits at once.
import type { Logger } from '../logger.js';

/**
 * Runs `close`, but for no longer than `deadlineMs`: 'timed-out' when it has not finished by then
 * (it is left running; the caller exits).
 */
export async function closeWithin(close: () => Promise<void>, deadlineMs: number): Promise<'closed' | 'timed-out'> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'timed-out'>((resolve) => {
    timer = setTimeout(() => resolve('timed-out'), deadlineMs);
    timer.unref();
  });
  try {
    return await Promise.race([close().then(() => 'closed' as const), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * On the first SIGTERM/SIGINT, closes gracefully within `deadlineMs` (SHUTDOWN_TIMEOUT_MS) and exits;
 * past the deadline it exits 1 with what was unfinished left to redelivery.
 */
export function onShutdown(
  logger: Logger,
  close: () => Promise<void>,
  deadlineMs: number,
  /** What is still closing (a phase, the jobs in flight), logged when the deadline passes: a hung close names its culprit. */
  unfinished?: () => Record<string, unknown>,
): void {
  let closing = false;
  const handler = (signal: NodeJS.Signals) => {
    if (closing) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(130);
    }
    closing = true;
    logger.info({ signal }, 'shutting down gracefully (send again to force)');
    closeWithin(close, deadlineMs).then(
      (outcome) => {
        if (outcome === 'timed-out') {
          logger.error(
            { deadlineMs, ...unfinished?.() },
            'shutdown did not finish in time: exiting; unfinished jobs will be delivered again',
          );
          logger.flush();
          process.exit(1);
        }
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
