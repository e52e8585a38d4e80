// Who is asking: the Bearer key of the Authorization header, identified by
// src/api-access/identify.ts (shape and checksum before any lookup, the key
// cache, expiry and suspension, the per-address throttle of unknown keys).
import type { FastifyRequest } from 'fastify';
import type { GuardStep } from './step.js';
import type { ApiKeyCache, ResolvedApiKey } from '../../api-keys/api-key-cache.js';
import { identify, type IdentifyDeps } from '../../api-access/identify.js';
import { UnknownKeyLimiter } from '../unknown-key-limiter.js';

declare module 'fastify' {
  interface FastifyRequest {
    apiKey?: ResolvedApiKey;
  }
}

/** Step 1 of the guard: who is asking (synchronous for a key in the cache). */
export function authenticate(deps: { apiKeys: ApiKeyCache; failedAuth?: UnknownKeyLimiter }): GuardStep {
  const identifyDeps: IdentifyDeps = { apiKeys: deps.apiKeys, failedAuth: deps.failedAuth ?? new UnknownKeyLimiter() };
  return (request: FastifyRequest) => {
    const found = identify(identifyDeps, request.headers.authorization, request.ip);
    if (found instanceof Promise) {
      return found.then((apiKey) => {
        request.apiKey = apiKey;
      });
    }
    request.apiKey = found;
    return undefined;
  };
}
