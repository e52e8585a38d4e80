// The API's requests as spans, with @fastify/otel (Fastify's own OpenTelemetry
// instrumentation), loaded only when tracing is on. It names a request by its
// method and records `url.path` as the request's URL, query string included;
// the hook below puts the route's template there instead (`/api/research/:id`),
// since a path or query can carry an invitation token or a key.
import type { FastifyPluginCallback } from 'fastify';
import { tracingEnabled } from './tracing.js';

/** The plugin to register first in buildApp, or undefined when tracing is off. */
export async function requestTracingPlugin(): Promise<FastifyPluginCallback | undefined> {
  if (!tracingEnabled()) return undefined;
  const { FastifyOtelInstrumentation } = await import('@fastify/otel');
  const instrumentation = new FastifyOtelInstrumentation({
    registerOnInitialization: false,
    requestHook: (span, request) => span.setAttribute('url.path', request.routeOptions.url ?? 'unmatched'),
  });
  return instrumentation.plugin() as FastifyPluginCallback;
}
