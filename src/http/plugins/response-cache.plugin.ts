// The response cache of cacheable GET routes: keyed by the read-model version,
// the account asking (an answer may hold its private insights), the request's
// meaning (route and validated parameters, so its spelling does not matter)
// and, on a route that offers more than one media type, the one negotiated
// (negotiate.ts: a CSV page is never served for JSON, nor the other way
// round), with ETags and 304s. A hit never reaches the handler.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { canonicalKey, etagOf, matchesIfNoneMatch, type ResponseCache } from '../response-cache.js';

/** Headers of an answer that belong to its body and are kept with it (a page's Link to the next one). */
const KEPT_HEADERS = ['link'] as const;

declare module 'fastify' {
  interface FastifyRequest {
    /** The response cache's key for this request (route and validated parameters). */
    cacheKey?: string;
  }
}

export function responseCachePlugin(app: FastifyInstance, deps: { responseCache: ResponseCache }): void {
  // The cache is consulted once the parameters are parsed and validated, so its
  // key is the request's meaning, not its spelling.
  app.addHook('preHandler', async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.routeOptions.config.cacheable !== true || request.method !== 'GET' || request.readModelVersion === undefined) return;
    // Per account: an answer may hold the account's private insights and runs, which no other account may be served.
    request.cacheKey = `${request.apiKey?.accountId ?? '-'}|${canonicalKey(request.routeOptions.url ?? '', request.params, request.query)}`;
    if (request.representation !== undefined) request.cacheKey += `|${request.representation}`;
    const hit = deps.responseCache.get(request.readModelVersion, request.cacheKey);
    if (hit) {
      reply.header('etag', hit.etag).header('x-cache', 'hit');
      if (hit.headers) reply.headers(hit.headers);
      if (matchesIfNoneMatch(request.headers['if-none-match'], hit.etag)) return reply.code(304).send();
      return reply.code(hit.statusCode).header('content-type', hit.contentType).send(hit.body);
    }
  });

  app.addHook('onSend', async (request, reply, payload) => {
    if (
      !request.routeOptions.config.cacheable ||
      request.method !== 'GET' ||
      reply.statusCode !== 200 ||
      typeof payload !== 'string' ||
      request.readModelVersion === undefined ||
      request.cacheKey === undefined ||
      reply.getHeader('x-cache') === 'hit'
    ) {
      return payload;
    }
    const etag = etagOf(payload);
    const kept = KEPT_HEADERS.filter((name) => reply.hasHeader(name));
    deps.responseCache.set(request.readModelVersion, request.cacheKey, {
      body: Buffer.from(payload),
      etag,
      statusCode: 200,
      contentType: String(reply.getHeader('content-type') ?? 'application/json; charset=utf-8'),
      ...(kept.length ? { headers: Object.fromEntries(kept.map((name) => [name, String(reply.getHeader(name))])) } : {}),
    });
    reply.header('etag', etag).header('x-cache', 'miss');
    if (matchesIfNoneMatch(request.headers['if-none-match'], etag)) {
      reply.code(304);
      return '';
    }
    return payload;
  });
}
