// POST /mcp: the MCP server (src/mcp/) over streamable HTTP, stateless: each POST is one exchange with a
// server of its own, so any web process answers any request and nothing is kept between them (GET and
// DELETE, which only a session would use, answer 405). The caller's API key is its bearer token, checked
// here as the API's guard checks it (src/api-access/identify.ts), and each tool is answered by the API's
// own route through inject with that key: its scopes, quota and research allowance apply exactly.
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { identify, type UnknownKeyThrottle } from '../../api-access/identify.js';
import type { ApiKeyCache } from '../../api-keys/api-key-cache.js';
import { urlOf, serverSentEvents, type ApiCaller, type ApiRequest } from '../../mcp/api-caller.js';
import { FOLLOW_MAX_MS } from '../../mcp/follow-run.js';
import { createInsightsMcpServer } from '../../mcp/server.js';
import { problem, PROBLEM_CONTENT_TYPE } from '../problem.js';

export interface McpPluginOptions {
  apiKeys: ApiKeyCache;
  /** The API guard's own budget of unknown-key lookups (app.ts): guesses at /mcp and at /api count together. */
  failedAuth: UnknownKeyThrottle;
}

/** The API answering in this process, as the client who sent the /mcp request (its key, its address). */
function injectedApi(app: FastifyInstance, request: FastifyRequest): ApiCaller {
  const asked = (call: ApiRequest, signal?: AbortSignal, payloadAsStream = false) =>
    app.inject({
      method: call.method,
      url: urlOf(call),
      remoteAddress: request.ip,
      headers: {
        authorization: request.headers.authorization!,
        accept: call.accept ?? 'application/json',
        'x-request-id': String(request.id),
        ...(call.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(call.body === undefined ? {} : { payload: JSON.stringify(call.body) }),
      ...(signal ? { signal } : {}),
      payloadAsStream,
    });
  const headOf = (answer: { statusCode: number; headers: Record<string, unknown> }) => {
    const retryAfter = answer.headers['retry-after'];
    return {
      status: answer.statusCode,
      contentType: String(answer.headers['content-type'] ?? ''),
      ...(retryAfter === undefined ? {} : { retryAfter: String(retryAfter) }),
    };
  };
  return {
    async call(call, signal) {
      const answer = await asked(call, signal);
      return { ...headOf(answer), text: answer.body };
    },
    async stream(call, signal) {
      const answer = await asked(call, signal, true);
      // The event stream notices a follower gone by its response closing: an abandoned follow must not hold one of
      // the account's streams (research-events.ts) until the run ends.
      signal?.addEventListener('abort', () => answer.raw.res.destroy(), { once: true });
      const head = headOf(answer);
      const body = answer.stream();
      if (!head.contentType.startsWith('text/event-stream')) {
        let text = '';
        for await (const chunk of body) text += String(chunk);
        return { ...head, text };
      }
      return { answer: head, events: serverSentEvents(body) };
    },
  };
}

/** Whether a message asks to follow a research run (research_idea with a progressToken): only that one may sit silent for minutes. */
function followsRun(body: unknown): boolean {
  const message = body as { method?: unknown; params?: { name?: unknown; _meta?: { progressToken?: unknown } } } | null;
  return message?.method === 'tools/call' && message.params?.name === 'research_idea' && message.params._meta?.progressToken !== undefined;
}

export async function mcpPlugin(app: FastifyInstance, options: McpPluginOptions): Promise<void> {
  const identifyDeps = { apiKeys: options.apiKeys, failedAuth: options.failedAuth };
  app.post('/mcp', { schema: { hide: true }, bodyLimit: 64 * 1024, config: { acceptsBody: true } }, async (request, reply) => {
    // A refusal here is the API's problem+json (401 with its Bearer challenge), before any MCP is spoken.
    await identify(identifyDeps, request.headers.authorization, request.ip);
    const server = createInsightsMcpServer(injectedApi(app, request));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    // A research followed to its end sends nothing while the run waits: the socket's idle bound must outlast the follow.
    // (An injected request's socket is a stand-in without timeouts.)
    const socket = followsRun(request.body) ? (request.raw.socket as Partial<Socket> | undefined) : undefined;
    const idleBound = socket?.timeout;
    socket?.setTimeout?.(FOLLOW_MAX_MS + 60_000);
    reply.hijack();
    // What the hooks set (the security headers) goes out with the transport's answer.
    for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) reply.raw.setHeader(name, value as string);
    reply.raw.once('close', () => {
      socket?.setTimeout?.(idleBound ?? 0);
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(request.raw, reply.raw, request.body);
    } catch (error) {
      // Past hijack() Fastify answers nothing: an error of ours is answered here, as the errors plugin would.
      request.log.error({ err: error }, 'the MCP transport failed');
      if (!reply.raw.headersSent) {
        const body = problem('internal', 'Something went wrong on our side. It has been logged.', { instance: '/mcp' });
        reply.raw.writeHead(500, { 'content-type': PROBLEM_CONTENT_TYPE }).end(JSON.stringify(body));
      } else reply.raw.destroy();
    }
  });
}
