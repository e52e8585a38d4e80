// Everything under /api: the guard (key, quota, response cache; api-guard/api-guard.ts)
// and the route plugins, each given the same collaborators. A new API route
// plugin is one line in API_ROUTES.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { QuotaStore } from '../../accounts/quota.store.js';
import type { Db } from '../../db/connection.js';
import { registerApiGuard, type ApiGuardDeps } from '../api-guard/api-guard.js';
import { checkQuery } from '../query-rules.js';
import { catalogRoutes } from '../routes/api/catalog.routes.js';
import { insightRoutes } from '../routes/api/insights.routes.js';
import { researchRoutes, type ResearchRoutesOptions } from '../routes/api/research.routes.js';
import { comparisonRoutes } from '../routes/api/comparisons.routes.js';
import type { ComparisonService } from '../../research/comparison-service.js';
import { usageRoutes } from '../routes/api/usage.routes.js';
import { webhookRoutes, type WebhookRoutesDeps } from '../routes/api/webhooks.routes.js';

/** What every API route plugin is given. */
export interface ApiRouteOptions {
  db: Db;
  quota: QuotaStore;
  /** /api/webhooks; without it those routes answer 503. */
  webhooks?: WebhookRoutesDeps;
  /** Research on demand (POST and DELETE /api/research-runs); without it those answer 503. */
  research?: ResearchRoutesOptions['research'];
  /** POST /api/comparisons; without it, 503. */
  comparisons?: { service: ComparisonService; defaultGeo: string };
}

const API_ROUTES: ReadonlyArray<FastifyPluginAsyncTypebox<ApiRouteOptions>> = [
  insightRoutes,
  catalogRoutes,
  usageRoutes,
  researchRoutes,
  comparisonRoutes,
  webhookRoutes,
];

export async function apiPlugin(api: FastifyInstance, options: { guard: ApiGuardDeps; routes: ApiRouteOptions }): Promise<void> {
  registerApiGuard(api, options.guard);
  // Before any route's own validation: one reading of query strings for all of them.
  // A callback, not a promise: it awaits nothing, and every request passes it.
  api.addHook('preValidation', (request, _reply, done) => {
    try {
      checkQuery(request);
      done();
    } catch (error) {
      done(error as Error);
    }
  });
  for (const routes of API_ROUTES) await api.register(routes, options.routes);
}
