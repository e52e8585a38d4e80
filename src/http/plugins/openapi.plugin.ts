// The OpenAPI document (built from the route schemas), /openapi.json and the
// docs UI at /docs.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

export const API_VERSION = '1.1.0';
/** The API's terms: the licence of the service and its data for API clients. */
const API_LICENSE = { name: "Proprietary: use under your account's plan", identifier: 'LicenseRef-Startup-Insights' };

interface OpenApiDocument {
  servers?: Array<{ url: string; description?: string }>;
  paths?: Record<string, Record<string, { parameters?: Array<{ in: string; required?: boolean; schema?: { default?: unknown } }> }>>;
}

/**
 * What generated clients need beyond the route schemas: a parameter the API
 * fills in by default is optional to the caller (the schemas list it as
 * required, because the validator fills it in before the handler runs), and
 * the server is where clients reach this API.
 */
function finishOpenApi(document: OpenApiDocument, publicBaseUrl: string | undefined): OpenApiDocument {
  for (const operations of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(operations)) {
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in === 'query' && parameter.schema?.default !== undefined) parameter.required = false;
      }
    }
  }
  document.servers = [{ url: publicBaseUrl ?? '/', description: 'This deployment' }];
  return document;
}

export interface OpenApiOptions {
  /** Where clients reach the API: the document's server. Asked when the document is first built. */
  publicBaseUrl?: () => string;
}

// Not encapsulated: swagger must see the routes registered after it, in the app's other plugins.
export const openApiPlugin = fp(
  async (app: FastifyInstance, { publicBaseUrl }: OpenApiOptions) => {
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: {
          title: 'Startup Insights API',
          version: API_VERSION,
          description:
            'Researched startup insights (8-dimension scores with evidence, Google Trends series and forecasts), read with an insights:read key, ' +
            "and the account's own webhook subscriptions, managed with a webhooks:write key (signed Standard Webhooks deliveries when new insights match). " +
            'Every /api request, read or write, needs `Authorization: Bearer <key>` and counts against the daily quota of the plan of the account that owns the key ' +
            '(Free 100, Starter 1,000, Pro 10,000, Enterprise unlimited; per UTC day, over all its keys). POSTs take an Idempotency-Key; PATCH takes If-Match. ' +
            'Errors are RFC 9457 problem+json.',
          license: API_LICENSE,
        },
        components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'An API key: sik_…' } } },
        security: [{ bearer: [] }],
        tags: [
          { name: 'insights', description: 'Researched ideas: scores, series, forecasts, charts' },
          { name: 'research', description: 'The 40-step research runs behind the insights' },
          { name: 'catalog', description: 'Allowed filter values and the methodology' },
          { name: 'account', description: "Your account's plan and usage" },
          {
            name: 'webhooks',
            description: "Your account's webhook subscriptions, their deliveries, tests and replays (scope webhooks:write)",
          },
          { name: 'health', description: 'Liveness and readiness, without a key' },
        ],
      },
      transformObject: (document) =>
        finishOpenApi(('openapiObject' in document ? document.openapiObject : {}) as OpenApiDocument, publicBaseUrl?.()) as object,
    });
    await app.register(swaggerUi, { routePrefix: '/docs' });

    // The document does not change once the app is ready: encoded once, every answer shares the
    // one buffer (a string would be copied into each answer with its headers).
    let openApiJson: Buffer | undefined;
    app.get('/openapi.json', { schema: { hide: true } }, async (_request, reply) =>
      reply.type('application/json; charset=utf-8').send((openApiJson ??= Buffer.from(JSON.stringify(app.swagger())))),
    );
  },
  { name: 'openapi' },
);
