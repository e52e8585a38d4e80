// What the key may do: each route names the scope it needs (insights:read
// unless it says otherwise; null: any valid key). The decision is
// src/api-access/scope.ts's, which an MCP server's tools take too.
import type { FastifyRequest } from 'fastify';
import type { GuardStep } from './step.js';
import { requireScope } from '../../api-access/scope.js';
import type { ApiKeyScope } from '../../domain/api-key.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The scope a key needs for this route: unset means insights:read; null, any valid key (e.g. /api/usage). */
    requiredScope?: ApiKeyScope | null;
  }
}

/** Step 2 of the guard: what the key may do (synchronous: no promise to wait for). */
export function authorize(): GuardStep {
  return (request: FastifyRequest) => {
    const needed = request.routeOptions.config.requiredScope;
    // The action named as the route is ("GET /api/insights/:id"), so the refusal says which.
    requireScope(
      request.apiKey!,
      needed === undefined ? 'insights:read' : needed,
      `${request.method} ${request.routeOptions.url ?? request.url.split('?')[0]}`,
    );
  };
}
