// A refusal of the views, the access decisions or the webhook services (src/domain/refusal.ts) as HTTP answers
// it: the API with its problem, the account pages with its status; both with the headers HTTP adds (Retry-After,
// the current ETag, the Bearer challenge of RFC 6750 on a 401).
import type { Refusal, RefusalKind } from '../../domain/refusal.js';
import { problem, PROBLEM_TYPES, ProblemError, type ProblemKind } from '../problem.js';

// Every kind of refusal is a problem type of the catalogue (the compiler checks it here).
const KIND: { [K in RefusalKind]: K & ProblemKind } = {
  invalidParameter: 'invalidParameter',
  unauthorized: 'unauthorized',
  keyExpired: 'keyExpired',
  accountSuspended: 'accountSuspended',
  missingScope: 'missingScope',
  notFound: 'notFound',
  quotaExceeded: 'quotaExceeded',
  researchAllowanceExceeded: 'researchAllowanceExceeded',
  authThrottled: 'authThrottled',
  subscriptionLimit: 'subscriptionLimit',
  idempotencyKeyReused: 'idempotencyKeyReused',
  disabledByOperator: 'disabledByOperator',
  subscriptionDisabled: 'subscriptionDisabled',
  preconditionFailed: 'preconditionFailed',
  webhookSendsExceeded: 'webhookSendsExceeded',
  notAnswerable: 'notAnswerable',
  notResearched: 'notResearched',
  runNotCancellable: 'runNotCancellable',
  searchDataUnavailable: 'searchDataUnavailable',
};

const CHALLENGES: Partial<Record<RefusalKind, string>> = {
  unauthorized: 'Bearer realm="api"',
  keyExpired: 'Bearer realm="api", error="invalid_token", error_description="expired"',
};

/** The HTTP status of a refusal: its problem type's (the account pages answer with it too). */
export const statusOfRefusal = (refusal: Refusal): number => PROBLEM_TYPES[KIND[refusal.kind]].status;

/** The headers HTTP adds to a refusal, whichever door answers it: Retry-After, the current ETag, the Bearer challenge. */
export function headersOfRefusal(refusal: Refusal): Record<string, string> {
  const { retryAfterSeconds, etag } = refusal.facts;
  const headers: Record<string, string> = {};
  const challenge = CHALLENGES[refusal.kind];
  if (challenge) headers['www-authenticate'] = challenge;
  if (retryAfterSeconds !== undefined) headers['retry-after'] = String(retryAfterSeconds);
  if (etag !== undefined) headers.etag = etag;
  return headers;
}

export function problemOfRefusal(refusal: Refusal): ProblemError {
  const { param, params } = refusal.facts;
  const invalid = params ?? (param ? [param] : undefined);
  return new ProblemError(
    problem(KIND[refusal.kind], refusal.message, invalid ? { invalid_params: [...invalid] } : {}),
    headersOfRefusal(refusal),
  );
}
