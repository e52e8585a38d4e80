// 405 instead of 404 when the path exists under another method, with an Allow
// header; and no request body is read except by a route that declares it takes
// one (config.acceptsBody, with its own small bodyLimit: the /api/webhooks
// writes). Two plugins share what they know:
// `collect` (registered first) records every route as it is added, `answer`
// (registered last) answers the other methods of each path.
import type { FastifyInstance, HTTPMethods } from 'fastify';
import fp from 'fastify-plugin';
import { problem, sendProblem } from '../problem.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route reads a JSON body (bounded by its bodyLimit); every other route answers a body unread. */
    acceptsBody?: boolean;
  }
}

const ALL_METHODS: HTTPMethods[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

export function methodNotAllowed() {
  const methodsByUrl = new Map<string, Set<string>>();
  let collecting = true;

  const collect = fp(
    async (app: FastifyInstance) => {
      app.addHook('onRoute', (route) => {
        // The docs UI and the dashboard manage their own routes (and their trailing-slash twins).
        if (!collecting || route.url.startsWith('/docs') || route.url.startsWith('/admin')) return;
        const methods = methodsByUrl.get(route.url) ?? new Set<string>();
        for (const m of [route.method].flat()) methods.add(m);
        methodsByUrl.set(route.url, methods);
      });

      // Only the routes that declare a body read one (bounded by their bodyLimit and
      // the server's request timeout). Any other request that carries one is answered
      // before anything reads it, and its connection closes after the answer, so a
      // client trickling a body cannot hold it open.
      app.addHook('onRequest', async (request, reply) => {
        const length = request.headers['content-length'];
        if (request.headers['transfer-encoding'] === undefined && (length === undefined || length === '0')) return;
        if (request.routeOptions.config?.acceptsBody === true) return;
        reply.header('connection', 'close');
        if (request.method === 'GET' || request.method === 'HEAD') return; // answered as usual; the body is never parsed
        const methods = request.routeOptions.url === undefined ? undefined : methodsByUrl.get(request.routeOptions.url);
        if (methods && !methods.has(request.method)) {
          const allow = [...methods].sort().join(', ');
          reply.header('allow', allow);
          return sendProblem(reply, problem('methodNotAllowed', `${request.method} is not allowed here; use ${allow}.`));
        }
        if (methods)
          return sendProblem(
            reply,
            problem('badRequest', `${request.method} ${request.routeOptions.url} takes no request body; send none.`),
          );
        return sendProblem(reply, problem('notFound', `No route ${request.method} ${request.url.split('?')[0]}. See /docs.`));
      });
    },
    { name: 'method-not-allowed-collect' },
  );

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
