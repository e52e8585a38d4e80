// Who is asking: the Bearer key, checked for shape and checksum before any
// lookup (garbage never costs one), resolved through the key cache, refused
// when expired or its account suspended. Lookups of keys not known to exist
// are throttled per address (unknown-key-limiter.ts).
import type { FastifyRequest } from 'fastify';
import type { GuardStep } from './step.js';
import type { ApiKeyCache, ResolvedApiKey } from '../../api-keys/api-key-cache.js';
import { apiKeyFormProblem, isWellFormedApiKey } from '../../domain/api-key.js';
import { UnknownKeyLimiter } from '../unknown-key-limiter.js';
import { problem, ProblemError } from '../problem.js';

declare module 'fastify' {
  interface FastifyRequest {
    apiKey?: ResolvedApiKey;
  }
}

const BEARER = /^Bearer[ ]+(\S+)[ ]*$/i;

function unauthorized(detail: string): ProblemError {
  return new ProblemError(problem('unauthorized', detail), { 'www-authenticate': 'Bearer realm="api"' });
}

/** Step 1 of the guard: who is asking. */
export function authenticate(deps: { apiKeys: ApiKeyCache; failedAuth?: UnknownKeyLimiter }): GuardStep {
  const failedAuth = deps.failedAuth ?? new UnknownKeyLimiter();
  /** A key that exists but may not be used says why: expired (a rotation's overlap ended), or its account suspended. */
  const admit = (request: FastifyRequest, apiKey: ResolvedApiKey): void => {
    if (apiKey.expiresAt !== null && apiKey.expiresAt <= Date.now()) {
      throw new ProblemError(
        problem(
          'keyExpired',
          `This API key (${apiKey.id}) expired at ${new Date(apiKey.expiresAt).toISOString()}. Use the key that replaced it, or ask for a new one.`,
        ),
        {
          'www-authenticate': 'Bearer realm="api", error="invalid_token", error_description="expired"',
        },
      );
    }
    if (apiKey.status === 'suspended') {
      throw new ProblemError(
        problem(
          'accountSuspended',
          `Account ${apiKey.accountId} is suspended: its keys are valid but may not be used until it is resumed.`,
        ),
      );
    }
    request.apiKey = apiKey;
  };

  /** A key not in the cache: looked up (throttled per address while unknown keys keep coming). */
  const lookUp = async (request: FastifyRequest, token: string): Promise<void> => {
    // A lookup of a key not known to exist takes a try from the client's budget
    // first (taken now, so concurrent junk cannot all pass); a valid key gives it
    // back. Requests that would cost no lookup (the key's answer is cached, or its
    // lookup is under way, as for a burst of one new key) take nothing.
    let tookTry = false;
    if (deps.apiKeys.wouldLookUp(token) && !deps.apiKeys.isKnown(token)) {
      const wait = failedAuth.take(request.ip);
      if (wait === 0) tookTry = true;
      else if (!(await deps.apiKeys.isKnownAfterRead(token))) {
        throw new ProblemError(
          problem('authThrottled', `Too many requests with unknown keys from your address; retry in ${wait} s with a valid key.`),
          {
            'retry-after': String(wait),
          },
        );
      }
    }
    const apiKey = (await deps.apiKeys.resolve(token)) ?? undefined;
    if (!apiKey) throw unauthorized('Unknown or revoked API key.');
    if (tookTry) failedAuth.refund(request.ip);
    admit(request, apiKey);
  };

  // Synchronous for a key in the cache (nearly every request): no promise to wait for.
  return (request: FastifyRequest) => {
    const header = request.headers.authorization;
    if (!header) throw unauthorized('Send your API key as "Authorization: Bearer <key>".');
    const token = BEARER.exec(header)?.[1];
    if (!token) throw unauthorized('The Authorization header must be "Bearer <key>".');
    // Shape and checksum first: garbage never costs a database lookup.
    if (!isWellFormedApiKey(token)) throw unauthorized(`That is not a valid API key: ${apiKeyFormProblem(token)}.`);
    const cached = deps.apiKeys.peek(token);
    if (!cached) return lookUp(request, token);
    admit(request, cached);
    return undefined;
  };
}
