// One log line per request instead of Fastify's two (incoming + completed):
// half the logging cost on the hot path, and every field ops need is in it.
import { LogController } from 'fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { pino } from 'pino';

/** The URL as logged: an invitation link's token is a password-setting secret and never reaches a log. */
export const loggedUrl = (url: string): string => {
  // Decoded and case-folded first: "/account/%69nvite/<token>" and "/Account/invite//<token>" reach the
  // same handler (or a 404) and must not carry a live token into the log either.
  let path = url;
  try {
    path = decodeURIComponent(url);
  } catch {
    // Not decodable: judged as it is.
  }
  const tokenless = /\/invite\//i.test(path) ? path.replace(/(\/invite\/+)(?:\.?\/)*[^?#]*/gi, '$1[token]') : url;
  // A client that puts its API key or a webhook secret in the query string (`?api_key=sik_…`) is refused,
  // but its request is still logged: the secret must not be, however it was spelled.
  return SECRET_SHAPED.test(path) ? redactSecrets(tokenless === url ? path : tokenless) : tokenless;
};

/** An API key (`sik_…`) or a webhook secret (`whsec_…`) anywhere in a text. */
const SECRET_SHAPED = /(?:sik|whsec)_[A-Za-z0-9+/=_-]{4,}/i;
const redactSecrets = (text: string): string => text.replace(/((?:sik|whsec)_)[A-Za-z0-9+/=_-]{4,}/gi, '$1[redacted]');

/** Free text (an error's message or stack) as logged: any invitation token in a URL it quotes is replaced. */
export const loggedText = (text: string): string => {
  let decoded = text;
  try {
    decoded = decodeURIComponent(text);
  } catch {
    // Not decodable: judged as it is.
  }
  return /\/invite\//i.test(decoded) ? decoded.replace(/(\/invite\/+)(?:\.?\/)*[^\s"'?#]*/gi, '$1[token]') : text;
};

/**
 * The request logger's `err` serializer: pino's, with the URL Fastify quotes in its own messages ("Reply was
 * already sent, did you forget to "return reply" in the "<url>" (GET) route?") kept free of invitation tokens.
 */
export function loggedError(error: unknown): unknown {
  const serialized = error instanceof Error ? (pino.stdSerializers.err(error) as unknown as Record<string, unknown>) : error;
  if (!serialized || typeof serialized !== 'object') return serialized;
  const out: Record<string, unknown> = { ...serialized };
  for (const field of ['message', 'stack'] as const) if (typeof out[field] === 'string') out[field] = loggedText(out[field]);
  return out;
}

type LogMethod = (this: unknown, ...args: unknown[]) => void;
const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;

/**
 * A request's logger whose lines never carry an invitation token in their message either: pino takes an
 * error's message as the line's `msg` when none is given (as in Fastify's own warnings), past any serializer.
 */
export function withoutTokens<L extends object>(logger: L): L {
  const methods = logger as unknown as Record<(typeof LEVELS)[number], LogMethod>;
  for (const level of LEVELS) {
    const original = methods[level];
    if (typeof original !== 'function') continue;
    methods[level] = function (this: unknown, ...args: unknown[]) {
      const [first, second] = args;
      if (typeof first === 'string') args[0] = loggedText(first);
      else if (typeof second === 'string') args[1] = loggedText(second);
      else if (first instanceof Error) args.splice(1, 0, loggedText(first.message));
      else if (first && typeof first === 'object' && (first as { err?: unknown }).err instanceof Error)
        args.splice(1, 0, loggedText((first as { err: Error }).err.message));
      original.apply(this, args);
    };
  }
  return logger;
}

export class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}

  override routeNotFound(request: FastifyRequest): void {
    request.log.info(`Route ${request.raw.method}:${loggedUrl(request.raw.url ?? '')} not found`);
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const line = {
      method: request.method,
      url: loggedUrl(request.url),
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
      // The key's id, never the key: `key` itself is a redacted path.
      key_id: request.apiKey?.id,
    };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request');
  }
}
