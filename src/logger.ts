import { pino, type Logger } from 'pino';
import type { LogLevel } from './config.js';

export type { Logger };

/**
 * Paths that may carry credentials. API keys and webhook secrets must never
 * reach a log line, whatever object they travel in.
 */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'headers.authorization',
  'authorization',
  'key',
  'apiKey',
  'secret',
  '*.key',
  '*.apiKey',
  '*.secret',
  '*.authorization',
];

/**
 * @param options.buffered write through a 4 KB buffer instead of one write per
 *   line: the web process logs every request, and synchronous writes showed in
 *   its tail latency. The cost: a `kill -9` can lose the last buffer of lines.
 */
export function createLogger(level: LogLevel, destination?: pino.DestinationStream, options: { buffered?: boolean } = {}): Logger {
  const loggerOptions: pino.LoggerOptions = {
    level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
  };
  // Pretty output only for a human at a terminal; machines get JSON.
  if (!destination && process.stdout.isTTY) {
    return pino({ ...loggerOptions, transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss' } } });
  }
  if (destination) return pino(loggerOptions, destination);
  return options.buffered ? pino(loggerOptions, pino.destination({ dest: 1, sync: false, minLength: 4096 })) : pino(loggerOptions);
}
