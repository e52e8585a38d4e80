// Why a request is refused, whichever door it came through (the API, the account pages, an MCP server):
// its kind is the API's problem type (src/http/problem.ts names each one's URI, title and status), so every
// door refuses the same request for the same reason in its own terms. Thrown by src/views/, src/api-access/, the
// webhook services (src/webhooks/webhook-errors.ts) and the research and comparison services (src/research/), so
// each door maps a refusal to its answer once.

/** The problem types a view or an access decision refuses with (each a key of the API's problem catalogue). */
export type RefusalKind =
  | 'invalidParameter'
  | 'unauthorized'
  | 'keyExpired'
  | 'accountSuspended'
  | 'missingScope'
  | 'notFound'
  | 'quotaExceeded'
  | 'researchAllowanceExceeded'
  | 'authThrottled'
  | 'subscriptionLimit'
  | 'idempotencyKeyReused'
  | 'disabledByOperator'
  | 'subscriptionDisabled'
  | 'preconditionFailed'
  | 'webhookSendsExceeded'
  | 'notAnswerable'
  | 'notResearched'
  | 'runNotCancellable'
  | 'searchDataUnavailable';

/** A parameter refused: its name as the request spelled it, why, and what it allows. */
export interface RefusedParam {
  name: string;
  reason: string;
  allowed?: readonly (string | number)[];
}

export interface RefusalFacts {
  /** For invalidParameter: which parameter and why. */
  param?: RefusedParam;
  /** For notAnswerable: each parameter the data cannot answer (none, one or several), with what it can. */
  params?: readonly RefusedParam[];
  /** When asking again may succeed (a spent quota or allowance, a throttle). */
  retryAfterSeconds?: number;
  /** For preconditionFailed: the thing's current version, to ask again with. */
  etag?: string;
}

export class Refusal extends Error {
  constructor(
    readonly kind: RefusalKind,
    detail: string,
    readonly facts: RefusalFacts = {},
  ) {
    super(detail);
  }
}

/** A parameter refused, its detail in the API's words: "<name> <reason> (allowed: …)". */
export function invalidParameter(name: string, reason: string, allowed?: readonly (string | number)[]): Refusal {
  const allowedText = allowed ? ` (allowed: ${allowed.join(', ')})` : '';
  return new Refusal('invalidParameter', `${name} ${reason}${allowedText}`, { param: { name, reason, ...(allowed ? { allowed } : {}) } });
}

/** Seconds until a moment, at least 1: what Retry-After says. */
export const secondsUntil = (at: Date, now = Date.now()): number => Math.max(1, Math.ceil((at.getTime() - now) / 1000));
