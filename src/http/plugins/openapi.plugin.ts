// The OpenAPI document (built from the route schemas), /openapi.json and the
// docs UI at /docs.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

export const API_VERSION = '1.1.0';
/** The API's terms: the licence of the service and its data for API clients. */
const API_LICENSE = { name: "Proprietary: use under your account's plan", identifier: 'LicenseRef-Startup-Insights' };

interface MediaTypes {
  [mediaType: string]: { schema?: unknown };
}

interface OpenApiResponse {
  description?: string;
  content?: MediaTypes;
  headers?: Record<string, { description: string; schema: { type: string } }>;
}

interface OpenApiOperation {
  parameters?: Array<{ in: string; name: string; required?: boolean; schema?: { default?: unknown }; example?: unknown }>;
  requestBody?: { required?: boolean; content?: Record<string, { schema?: { properties?: object; required?: string[] } }> };
  responses?: Record<string, OpenApiResponse>;
}

interface OpenApiDocument {
  servers?: Array<{ url: string; description?: string }>;
  paths?: Record<string, Record<string, OpenApiOperation>>;
}

const header = (description: string, type = 'string') => ({ description, schema: { type } });
const HEADERS = {
  rateLimit: header('Limited plans: what is left of the account\'s daily quota and when it resets, e.g. "free";r=57;t=3600'),
  rateLimitPolicy: header('Limited plans: the daily quota, e.g. "free";q=100;w=86400'),
  retryAfter: header('Seconds to wait before asking again', 'integer'),
  etag: header("The answer's version: send it as If-None-Match for a 304 (or, on a subscription, as If-Match)"),
  location: header('Where the thing just made is read'),
  replayed: header('"true": the answer to an earlier request with this Idempotency-Key, sent again'),
};

/** The id a path parameter takes, by the route it is in (an example for each). */
function idExample(path: string, name: string): string | undefined {
  if (name === 'deliveryId') return 'dlv_0123456789abcdefghjk';
  if (name !== 'id') return undefined;
  if (path.startsWith('/api/insights')) return 'ins_0123456789abcdefghjk';
  if (path.startsWith('/api/research-runs')) return 'run_0123456789abcdefghjk';
  if (path.startsWith('/api/webhooks')) return 'sub_0123456789abcdefghjk';
  return undefined;
}

/**
 * What the route schemas cannot say and the document must, so that it tells
 * the truth (an outside contract test found each of these):
 * - a parameter the API fills in by default is optional to the caller (the
 *   schemas list it as required: the validator fills it in before the handler);
 * - every error is application/problem+json, whatever the route answers when it succeeds;
 * - a body the API does not need (a test, a rotation, a replay) is not required;
 * - the headers the API sends: RateLimit and RateLimit-Policy, Retry-After on
 *   429 and 503, ETag, Location, Idempotent-Replayed;
 * - each id in a path has an example;
 * and the server is where clients reach this API.
 */
function finishOpenApi(document: OpenApiDocument, publicBaseUrl: string | undefined): OpenApiDocument {
  for (const [path, operations] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(operations)) {
      const api = path.startsWith('/api/');
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in === 'query' && parameter.schema?.default !== undefined) parameter.required = false;
        const example = parameter.in === 'path' ? idExample(path, parameter.name) : undefined;
        if (example) parameter.example = example;
      }
      // A POST whose fields are all optional takes no body at all (read as {}): a test, a rotation, a replay.
      const bodySchema = operation.requestBody?.content?.['application/json']?.schema;
      if (method === 'post' && operation.requestBody && bodySchema && (bodySchema.required ?? []).length === 0) {
        operation.requestBody.required = false;
      }
      const idempotent = operation.parameters?.some((p) => p.in === 'header' && p.name === 'idempotency-key') ?? false;
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const code = Number(status);
        if (code >= 400 && response.content) {
          const schema = Object.values(response.content)[0]?.schema;
          response.content = { 'application/problem+json': { schema } };
        }
        const headers: OpenApiResponse['headers'] = {};
        if (api && (code < 300 || code === 429)) {
          headers.RateLimit = HEADERS.rateLimit;
          headers['RateLimit-Policy'] = HEADERS.rateLimitPolicy;
        }
        if (code === 429 || code === 503) headers['Retry-After'] = HEADERS.retryAfter;
        if (code === 200 && method === 'get' && api) headers.ETag = HEADERS.etag;
        if (code === 201 || code === 202) headers.Location = HEADERS.location;
        if (idempotent && code < 300) headers['Idempotent-Replayed'] = HEADERS.replayed;
        if (Object.keys(headers).length > 0) response.headers = { ...response.headers, ...headers };
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
