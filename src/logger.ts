import { pino, type Logger } from 'pino';

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
  'password',
  '*.password',
  '*.key',
  '*.apiKey',
  '*.secret',
  '*.authorization',
  // Google's cookies and the Trends API's credentials (outside review of issue 51: none is logged today; a safeguard).
  'cookie',
  '*.cookie',
  'consentCookie',
  '*.consentCookie',
  'private_key',
  '*.private_key',
  'access_token',
  '*.access_token',
];

/** The trace a log line belongs to: the span active when it is written (a step, a delivery, an API request). */
export interface LogTraceFields {
  trace_id: string;
  span_id: string;
}

/**
 * Where a traced logger reads the active span from. Set by src/observability/tracing.ts when tracing
 * starts (a floor above this one, so it plugs itself in here); none while tracing is off.
 */
let activeTraceFields: (() => LogTraceFields | undefined) | undefined;
export function logTraceFrom(source: (() => LogTraceFields | undefined) | undefined): void {
  activeTraceFields = source;
}

export interface LoggerOptions {
  /**
   * Whether the process exports traces (OTEL_EXPORTER_OTLP_ENDPOINT set): then every line written
   * inside a span carries its trace_id and span_id. Off, the logger has no mixin at all, so a line
   * costs what it cost before traces existed.
   */
  traced?: boolean;
}

// `level` is pino's own (config.ts's LOG_LEVELS are those), so the logger, which nearly every file imports,
// imports nothing of the project. Synchronous writes on purpose: a buffered destination lost lines on kill -9
// and measured no better in bench:api (p99 worse in 4 of 4 runs).
export function createLogger(level: pino.LevelWithSilent, destination?: pino.DestinationStream, options: LoggerOptions = {}): Logger {
  const loggerOptions: pino.LoggerOptions = {
    level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    // pino merges the mixin's answer into the line (the line's own fields win); a fresh object each time, as pino writes into it.
    ...(options.traced ? { mixin: () => ({ ...activeTraceFields?.() }) } : {}),
  };
  // Pretty output only for a human at a terminal; machines get JSON.
  if (!destination && process.stdout.isTTY) {
    return pino({ ...loggerOptions, transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss' } } });
  }
  return destination ? pino(loggerOptions, destination) : pino(loggerOptions);
}
