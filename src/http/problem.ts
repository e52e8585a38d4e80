// RFC 9457 problem details: every error the API returns has this shape and the
// application/problem+json media type.
import type { FastifyReply } from 'fastify';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json; charset=utf-8';

export interface InvalidParam {
  name: string;
  reason: string;
  allowed?: readonly (string | number)[];
}

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance?: string;
  invalid_params?: InvalidParam[];
}

/** Problem types, documented at /docs. Relative URIs resolve against the API's own origin. */
export const PROBLEM_TYPES = {
  invalidParameter: { type: '/problems/invalid-parameter', title: 'Invalid request parameter', status: 400 },
  badRequest: { type: '/problems/bad-request', title: 'Bad request', status: 400 },
  unauthorized: { type: '/problems/unauthorized', title: 'Missing or invalid API key', status: 401 },
  adminUnauthorized: { type: '/problems/admin-unauthorized', title: 'Missing or invalid admin token', status: 401 },
  keyExpired: { type: '/problems/api-key-expired', title: 'API key expired', status: 401 },
  accountSuspended: { type: '/problems/account-suspended', title: 'Account suspended', status: 403 },
  missingScope: { type: '/problems/missing-scope', title: 'API key lacks a scope', status: 403 },
  notFound: { type: '/problems/not-found', title: 'Not found', status: 404 },
  methodNotAllowed: { type: '/problems/method-not-allowed', title: 'Method not allowed', status: 405 },
  subscriptionLimit: { type: '/problems/subscription-limit', title: 'Webhook subscription limit reached', status: 409 },
  idempotencyKeyReused: { type: '/problems/idempotency-key-reused', title: 'Idempotency-Key reused with another request', status: 409 },
  idempotencyInProgress: {
    type: '/problems/idempotency-request-in-progress',
    title: 'A request with this Idempotency-Key is still being answered',
    status: 409,
  },
  disabledByOperator: { type: '/problems/disabled-by-operator', title: 'Disabled by an operator', status: 409 },
  subscriptionDisabled: { type: '/problems/subscription-disabled', title: 'Subscription disabled', status: 409 },
  preconditionFailed: { type: '/problems/precondition-failed', title: 'Precondition failed', status: 412 },
  payloadTooLarge: { type: '/problems/payload-too-large', title: 'Request body too large', status: 413 },
  notAcceptable: { type: '/problems/not-acceptable', title: 'Not acceptable', status: 406 },
  unsupportedMediaType: { type: '/problems/unsupported-media-type', title: 'Unsupported media type', status: 415 },
  quotaExceeded: { type: '/problems/quota-exceeded', title: 'Daily quota exceeded', status: 429 },
  webhookSendsExceeded: { type: '/problems/webhook-sends-exceeded', title: 'Replays and pings exceeded', status: 429 },
  researchAllowanceExceeded: { type: '/problems/research-allowance-exceeded', title: 'Research allowance spent for today', status: 429 },
  runNotCancellable: { type: '/problems/run-not-cancellable', title: 'Research run already finished', status: 409 },
  notAnswerable: { type: '/problems/not-answerable', title: 'The data this service answers from cannot answer this', status: 422 },
  notResearched: { type: '/problems/not-researched', title: 'Idea not researched for this market', status: 409 },
  tooManyStreams: { type: '/problems/too-many-event-streams', title: 'Too many event streams open', status: 429 },
  authThrottled: { type: '/problems/too-many-failed-authentications', title: 'Too many failed authentications', status: 429 },
  requestTimeout: { type: '/problems/request-timeout', title: 'Request timeout', status: 408 },
  headersTooLarge: { type: '/problems/request-headers-too-large', title: 'Request headers too large', status: 431 },
  tooManyPipelined: { type: '/problems/too-many-pipelined-requests', title: 'Too many pipelined requests', status: 429 },
  searchDataUnavailable: { type: '/problems/search-data-unavailable', title: 'Search data could not be read', status: 502 },
  unavailable: { type: '/problems/unavailable', title: 'Service unavailable', status: 503 },
  internal: { type: '/problems/internal', title: 'Internal error', status: 500 },
} as const;
export type ProblemKind = keyof typeof PROBLEM_TYPES;

export function problem(kind: ProblemKind, detail: string, extra: Partial<Problem> = {}): Problem {
  const { type, title, status } = PROBLEM_TYPES[kind];
  return { type, title, status, detail, ...extra };
}

export function sendProblem(reply: FastifyReply, body: Problem): FastifyReply {
  return reply
    .code(body.status)
    .header('content-type', PROBLEM_CONTENT_TYPE)
    .send({ ...body, instance: body.instance ?? reply.request.url });
}

/** Thrown by handlers and hooks; the error handler turns it into its problem. */
export class ProblemError extends Error {
  constructor(
    readonly body: Problem,
    readonly headers: Record<string, string> = {},
  ) {
    super(body.detail);
  }
}

export function invalidParam(name: string, reason: string, allowed?: readonly (string | number)[]): ProblemError {
  const allowedText = allowed ? ` (allowed: ${allowed.join(', ')})` : '';
  return new ProblemError(
    problem('invalidParameter', `${name} ${reason}${allowedText}`, {
      invalid_params: [{ name, reason, ...(allowed ? { allowed } : {}) }],
    }),
  );
}
