// Is this error a backing service being away (Postgres or Redis restarting,
// failing over, refusing connections), rather than a bad request or a bug?
// The HTTP layer answers such errors with 503 + Retry-After, and jobs retry
// them without spending an attempt. Classified by SQLSTATE class, Node's
// socket error codes and ioredis's error types, never by message alone,
// except where the driver gives nothing else (pg's own connection messages).

/** 'network' when only a socket error is known, not which service it was. */
export type Dependency = 'postgres' | 'redis' | 'network';

export interface Outage {
  dependency: Dependency;
  /** A short, safe reason for logs and metrics: never the server's text. */
  reason: string;
}

// SQLSTATE classes and codes that mean "the server cannot serve now", not "your statement is wrong".
const POSTGRES_OUTAGE_CLASSES: Record<string, string> = {
  '08': 'connection exception',
  '53': 'insufficient resources',
  '57': 'operator intervention (shutdown, restart, cancel)',
  '58': 'system error',
};
const POSTGRES_OUTAGE_CODES: Record<string, string> = {
  '3D000': 'database does not exist',
  '28000': 'authentication failed',
  '28P01': 'authentication failed',
  '40001': 'serialization failure',
  '40P01': 'deadlock detected',
  '25006': 'read-only transaction (a replica or a failover in progress)',
};
// pg and pg-pool raise these without a SQLSTATE.
const PG_CLIENT_MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error and is not queryable|Client was closed and is not queryable|Query read timeout|Cannot use a pool after calling end on the pool)/;

const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ENOTFOUND',
  'ECONNABORTED',
]);

// ioredis: its connection errors, and server replies that mean "not now".
const IOREDIS_ERROR_NAMES = new Set(['MaxRetriesPerRequestError', 'ClusterAllFailedError']);
// "Cluster isn't ready": a cluster client between a failover or slot move and its next slot map (a 500 in the cluster chaos soak).
const IOREDIS_MESSAGES =
  /^(Connection is closed|Stream isn't writeable and enableOfflineQueue options is false|Cluster isn't ready and enableOfflineQueue options is false|Reached the max retries per request limit|None of startup nodes is available|Failed to refresh slots cache|Command timed out)/;
// NOSCRIPT: a Redis that lost its script cache (restarted, or a replica just promoted) where a client's
// fallback to EVAL did not happen; transactions.ts keeps our clients from meeting it, and should one
// escape (another library's client), it is the failover's, answered 503, never 500.
const REDIS_REPLY_PREFIXES = /^(LOADING|READONLY|MASTERDOWN|CLUSTERDOWN|TRYAGAIN|BUSY|NOREPLICAS|MOVED|ASK|NOSCRIPT)\b/;

interface ErrorLike {
  name?: unknown;
  code?: unknown;
  message?: unknown;
  errors?: unknown;
  previousErrors?: unknown;
  cause?: unknown;
}

/** The outage behind `error`, or undefined when it is something else (a bug, a bad request). */
export function classifyOutage(error: unknown, depth = 0): Outage | undefined {
  if (depth > 4 || typeof error !== 'object' || error === null) return undefined;
  const e = error as ErrorLike;
  const code = typeof e.code === 'string' ? e.code : '';
  const message = typeof e.message === 'string' ? e.message : '';
  const name = typeof e.name === 'string' ? e.name : '';

  // pg's DatabaseError carries a five-character SQLSTATE.
  if (/^[0-9A-Z]{5}$/.test(code) && name !== 'ReplyError') {
    const reason = POSTGRES_OUTAGE_CODES[code] ?? POSTGRES_OUTAGE_CLASSES[code.slice(0, 2)];
    return reason ? { dependency: 'postgres', reason: `${reason} (${code})` } : undefined;
  }
  if (PG_CLIENT_MESSAGES.test(message)) return { dependency: 'postgres', reason: 'connection lost or refused' };
  if (IOREDIS_ERROR_NAMES.has(name) || IOREDIS_MESSAGES.test(message)) return { dependency: 'redis', reason: 'connection lost or refused' };
  if (name === 'ReplyError' && REDIS_REPLY_PREFIXES.test(message)) {
    return { dependency: 'redis', reason: `server busy or failing over (${message.split(' ')[0]})` };
  }
  if (SOCKET_CODES.has(code)) {
    return { dependency: 'network', reason: `network error (${code})` };
  }
  // AggregateError (dual-stack connect); ioredis's EXECABORT carries the errors that aborted the MULTI
  // (a CLUSTERDOWN while its commands were queued); wrapped causes.
  const inners = [...(Array.isArray(e.errors) ? e.errors : []), ...(Array.isArray(e.previousErrors) ? e.previousErrors : [])];
  for (const inner of inners) {
    const found = classifyOutage(inner, depth + 1);
    if (found) return found;
  }
  return e.cause === undefined ? undefined : classifyOutage(e.cause, depth + 1);
}

export function isOutage(error: unknown): boolean {
  return classifyOutage(error) !== undefined;
}
