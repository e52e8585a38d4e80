// One log line per request instead of Fastify's two (incoming + completed):
// half the logging cost on the hot path, and every field ops need is in it.
import { LogController } from 'fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { pino } from 'pino';

/** An API key (`sik_…`) or a webhook secret (`whsec_…`) anywhere in a text. */
const SECRET_SHAPED = /(?:sik|whsec)_[A-Za-z0-9+/=_-]{4,}/i;
const redactSecrets = (text: string): string => text.replace(/((?:sik|whsec)_)[A-Za-z0-9+/=_-]{4,}/gi, '$1[redacted]');

/**
 * The URL as logged: its path, and its query's parameter names without their values. A query carries what
 * a client searched for (a private idea's words), a cursor, and now and then a key it should not have put
 * there (outside reviews of 2026-11-28): a log needs to know which parameters came, not what they said.
 * An invitation link's token (a password-setting secret in the path) never reaches a log either.
 */
export const loggedUrl = (url: string): string => {
  const end = url.search(/[?#]/);
  const path = end < 0 ? url : url.slice(0, end);
  const query = end >= 0 && url[end] === '?' ? url.slice(end + 1).split('#')[0]! : '';
  return `${loggedPath(path)}${query ? `?${queryNames(query)}` : ''}`;
};

/** A path as logged: no invitation token, API key or webhook secret, however the client spelled it. */
const loggedPath = (raw: string): string => {
  // Decoded and case-folded first: "/account/%69nvite/<token>" and "/Account/invite//<token>" reach the
  // same handler (or a 404) and must not carry a live token into the log either.
  let path = raw;
  try {
    path = decodeURIComponent(raw);
  } catch {
    // Not decodable: judged as it is.
  }
  const tokenless = /\/invite\//i.test(path) ? path.replace(/(\/invite\/+)(?:\.?\/)*.*/gi, '$1[token]') : raw;
  return SECRET_SHAPED.test(path) ? redactSecrets(tokenless === raw ? path : tokenless) : tokenless;
};

/** A parameter name worth logging: short, plain, and no secret (`?sik_…` alone is a key, not a name). */
const PLAIN_NAME = /^[A-Za-z0-9_.[\]-]{1,64}$/;

/** A query as logged: each parameter's name, its value (if it had one) replaced. */
const queryNames = (query: string): string =>
  query
    .split('&')
    .filter((pair) => pair !== '')
    .map((pair) => {
      const equals = pair.indexOf('=');
      let name = equals < 0 ? pair : pair.slice(0, equals);
      try {
        name = decodeURIComponent(name.replace(/\+/g, ' '));
      } catch {
        // Not decodable: judged as it is.
      }
      const shown = PLAIN_NAME.test(name) && !SECRET_SHAPED.test(name) ? name : '[redacted]';
      return equals < 0 || equals === pair.length - 1 ? `${shown}${equals < 0 ? '' : '='}` : `${shown}=[redacted]`;
    })
    .join('&');

/** Free text (an error's message or stack) as logged: a URL it quotes has no invitation token and no query values. */
export const loggedText = (text: string): string => {
  let decoded = text;
  try {
    decoded = decodeURIComponent(text);
  } catch {
    // Not decodable: judged as it is.
  }
  const tokenless = /\/invite\//i.test(decoded) ? decoded.replace(/(\/invite\/+)(?:\.?\/)*[^\s"'?#]*/gi, '$1[token]') : text;
  // A URL it quotes keeps its query's names only, as loggedUrl writes them.
  return tokenless.replace(/(\/[^\s"'?#]*)\?([^\s"'#]*)/g, (_match, path: string, query: string) => `${path}?${queryNames(query)}`);
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
