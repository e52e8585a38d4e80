// What the key may do: each route names the scope it needs (insights:read
// unless it says otherwise; null: any valid key). Checked before the quota: a
// request the key may not make is not counted.
import type { FastifyRequest } from 'fastify';
import type { GuardStep } from './step.js';
import { hasScope, type ApiKeyScope } from '../../domain/api-key.js';
import { problem, ProblemError } from '../problem.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The scope a key needs for this route: unset means insights:read; null, any valid key (e.g. /api/usage). */
    requiredScope?: ApiKeyScope | null;
  }
}

/** Step 2 of the guard: what the key may do (synchronous: no promise to wait for). */
export function authorize(): GuardStep {
  return (request: FastifyRequest) => {
    const apiKey = request.apiKey!;
    const needed = request.routeOptions.config.requiredScope === undefined ? 'insights:read' : request.routeOptions.config.requiredScope;
    if (needed !== null && !hasScope(apiKey.scopes, needed)) {
      throw new ProblemError(
        problem(
          'missingScope',
          `This API key (${apiKey.id}) lacks the scope ${needed} that ${request.method} ${request.routeOptions.url ?? request.url.split('?')[0]} needs; it has ${apiKey.scopes.join(', ') || 'none'}. Use a key with the scope ${needed}: an owner of the account can create one on the API Keys page (/account/keys).`,
        ),
      );
    }
  };
}
