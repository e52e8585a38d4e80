// Who is asking, by any door that takes an API key as a bearer token (the API's guard, an MCP server):
// the token checked for shape and checksum before any lookup (garbage never costs one), resolved through
// the key cache, refused when expired or its account suspended. Lookups of keys not known to exist are
// throttled per address.
import type { ApiKeyCache, ResolvedApiKey } from '../api-keys/api-key-cache.js';
import { apiKeyFormProblem, isWellFormedApiKey } from '../domain/api-key.js';
import { Refusal } from '../domain/refusal.js';

/** The per-address budget of lookups of unknown keys (src/http/unknown-key-limiter.ts). */
export interface UnknownKeyThrottle {
  /** Takes a try from the address's budget: 0 when taken, else the seconds until one is free. */
  take(address: string): number;
  refund(address: string): void;
}

export interface IdentifyDeps {
  apiKeys: ApiKeyCache;
  failedAuth: UnknownKeyThrottle;
}

const BEARER = /^Bearer[ ]+(\S+)[ ]*$/i;

/** A key that exists but may not be used says why: expired (a rotation's overlap ended), or its account suspended. */
function admitted(apiKey: ResolvedApiKey): ResolvedApiKey {
  if (apiKey.expiresAt !== null && apiKey.expiresAt <= Date.now()) {
    throw new Refusal(
      'keyExpired',
      `This API key (${apiKey.id}) expired at ${new Date(apiKey.expiresAt).toISOString()}. Use the key that replaced it, or ask for a new one.`,
    );
  }
  if (apiKey.status === 'suspended') {
    throw new Refusal(
      'accountSuspended',
      `Account ${apiKey.accountId} is suspended: its keys are valid but may not be used until it is resumed.`,
    );
  }
  return apiKey;
}

/** A key not in the cache: looked up (throttled per address while unknown keys keep coming). */
async function lookUp(deps: IdentifyDeps, token: string, address: string): Promise<ResolvedApiKey> {
  // A lookup of a key not known to exist takes a try from the client's budget
  // first (taken now, so concurrent junk cannot all pass); a valid key gives it
  // back. Requests that would cost no lookup (the key's answer is cached, or its
  // lookup is under way, as for a burst of one new key) take nothing.
  let tookTry = false;
  if (deps.apiKeys.wouldLookUp(token) && !deps.apiKeys.isKnown(token)) {
    const wait = deps.failedAuth.take(address);
    if (wait === 0) tookTry = true;
    else if (!(await deps.apiKeys.isKnownAfterRead(token))) {
      throw new Refusal('authThrottled', `Too many requests with unknown keys from your address; retry in ${wait} s with a valid key.`, {
        retryAfterSeconds: wait,
      });
    }
  }
  const apiKey = (await deps.apiKeys.resolve(token)) ?? undefined;
  if (!apiKey) throw new Refusal('unauthorized', 'Unknown or revoked API key.');
  if (tookTry) deps.failedAuth.refund(address);
  return admitted(apiKey);
}

/**
 * The key a token is, admitted; refused (unauthorized, keyExpired, accountSuspended, authThrottled)
 * otherwise. Synchronous for a key in the cache (nearly every request): no promise to wait for.
 */
export function identifyToken(deps: IdentifyDeps, token: string, address: string): ResolvedApiKey | Promise<ResolvedApiKey> {
  // Shape and checksum first: garbage never costs a database lookup.
  if (!isWellFormedApiKey(token)) throw new Refusal('unauthorized', `That is not a valid API key: ${apiKeyFormProblem(token)}.`);
  const cached = deps.apiKeys.peek(token);
  return cached ? admitted(cached) : lookUp(deps, token, address);
}

/** The same from an Authorization header ("Bearer <key>"). */
export function identify(deps: IdentifyDeps, authorization: string | undefined, address: string): ResolvedApiKey | Promise<ResolvedApiKey> {
  if (!authorization) throw new Refusal('unauthorized', 'Send your API key as "Authorization: Bearer <key>".');
  const token = BEARER.exec(authorization)?.[1];
  if (!token) throw new Refusal('unauthorized', 'The Authorization header must be "Bearer <key>".');
  return identifyToken(deps, token, address);
}
