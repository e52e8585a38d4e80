// 405 instead of 404 when the path exists under another method, with an Allow
// header; and no request body is ever read. Two plugins share what they know:
// `collect` (registered first) records every route as it is added, `answer`
// (registered last) answers the other methods of each path.
import type { FastifyInstance, HTTPMethods } from 'fastify';
import fp from 'fastify-plugin';
import { problem, sendProblem } from '../problem.js';

const ALL_METHODS: HTTPMethods[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

export function methodNotAllowed() {
  const methodsByUrl = new Map<string, Set<string>>();
  let collecting = true;

  const collect = fp(async (app: FastifyInstance) => {
    app.addHook('onRoute', (route) => {
      // The docs UI and the dashboard manage their own routes (and their trailing-slash twins).
      if (!collecting || route.url.startsWith('/docs') || route.url.startsWith('/admin')) return;
      const methods = methodsByUrl.get(route.url) ?? new Set<string>();
      for (const m of [route.method].flat()) methods.add(m);
      methodsByUrl.set(route.url, methods);
    });

    // The API is read-only: no route takes a body, so none is ever read. A request
    // that carries one is answered before anything reads it, and its connection
    // closes after the answer, so a client trickling a body cannot hold it open.
    app.addHook('onRequest', async (request, reply) => {
      const length = request.headers['content-length'];
      if (request.headers['transfer-encoding'] === undefined && (length === undefined || length === '0')) return;
      reply.header('connection', 'close');
      if (request.method === 'GET' || request.method === 'HEAD') return; // answered as usual; the body is never parsed
      const methods = request.routeOptions.url === undefined ? undefined : methodsByUrl.get(request.routeOptions.url);
      if (methods && !methods.has(request.method)) {
        const allow = [...methods].sort().join(', ');
        reply.header('allow', allow);
        return sendProblem(reply, problem('methodNotAllowed', `${request.method} is not allowed here; use ${allow}.`));
      }
      return sendProblem(reply, problem('notFound', `No route ${request.method} ${request.url.split('?')[0]}. This API is read-only; see /docs.`));
    });
  }, { name: 'method-not-allowed-collect' });

  const answer = async (app: FastifyInstance) => {
    collecting = false;
    for (const [url, methods] of methodsByUrl) {
      const others = ALL_METHODS.filter((m) => !methods.has(m));
      if (others.length === 0) continue;
      const allow = [...methods].sort().join(', ');
      app.route({
        method: others,
        url,
        schema: { hide: true },
        handler: async (request, reply) => {
          reply.header('allow', allow);
          return sendProblem(reply, problem('methodNotAllowed', `${request.method} is not allowed here; use ${allow}.`));
        },
      });
    }
  };

  return { collect, answer };
}
