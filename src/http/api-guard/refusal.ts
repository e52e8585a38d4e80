// A refusal of the views or the access decisions (src/domain/refusal.ts) as the API answers it: its
// problem, with the headers HTTP adds (Retry-After; the Bearer challenge of RFC 6750 on a 401).
import type { Refusal, RefusalKind } from '../../domain/refusal.js';
import { problem, ProblemError, type ProblemKind } from '../problem.js';

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
};

const CHALLENGES: Partial<Record<RefusalKind, string>> = {
  unauthorized: 'Bearer realm="api"',
  keyExpired: 'Bearer realm="api", error="invalid_token", error_description="expired"',
};

export function problemOfRefusal(refusal: Refusal): ProblemError {
  const { param, retryAfterSeconds } = refusal.facts;
  const headers: Record<string, string> = {};
  const challenge = CHALLENGES[refusal.kind];
  if (challenge) headers['www-authenticate'] = challenge;
  if (retryAfterSeconds !== undefined) headers['retry-after'] = String(retryAfterSeconds);
  return new ProblemError(problem(KIND[refusal.kind], refusal.message, param ? { invalid_params: [param] } : {}), headers);
}
