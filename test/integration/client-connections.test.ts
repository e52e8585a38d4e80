// Before a request reaches the app. An outside review held 2,000 idle sockets
// from one address (reopening each as the headers deadline closed it) and every
// other client, with or without a key, was refused: the process's connection
// cap was one pool for everybody. And errors of Node's HTTP parser were
// answered with Fastify's own JSON, without the API's problem type or headers.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceProcess } from '../../scripts/lib/service-process.js';
import { createTestStack, type TestStack } from '../support/stack.js';

const MAX_CONNECTIONS = 30;
const PER_CLIENT = 20;
const TRUSTED_PROXY = '127.0.0.3';

describe('connection slots per client, and errors of the HTTP parser', () => {
  let stack: TestStack;
  let crowded: ServiceProcess;
  let proxied: ServiceProcess;
  let roomy: ServiceProcess;
  const ports = { crowded: 0, proxied: 0, roomy: 0 };
  const opened: net.Socket[] = [];

  beforeAll(async () => {
    stack = await createTestStack();
    const env = {
      ...stack.env,
      PORT: '0',
      HTTP_MAX_CONNECTIONS_PER_CLIENT: String(PER_CLIENT),
      // Idle sockets stay for the whole test unless refused: the deadlines are not what is tested here.
      HTTP_HEADERS_TIMEOUT_MS: '120000',
      HTTP_REQUEST_TIMEOUT_MS: '120000',
      OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
      TRUST_PROXY: TRUSTED_PROXY,
    };
    // Two processes whose slots one address could fill (one for an attacker, one for a proxy), one with room to spare.
    crowded = new ServiceProcess('web', { ...env, HTTP_MAX_CONNECTIONS: String(MAX_CONNECTIONS) });
    proxied = new ServiceProcess('web', { ...env, HTTP_MAX_CONNECTIONS: String(MAX_CONNECTIONS) });
    roomy = new ServiceProcess('web', env);
    ports.crowded = Number(new URL((await crowded.ready).url!).port);
    ports.proxied = Number(new URL((await proxied.ready).url!).port);
    ports.roomy = Number(new URL((await roomy.ready).url!).port);
  });
  afterAll(async () => {
    for (const socket of opened) socket.destroy();
    await Promise.all([crowded.kill('SIGTERM'), proxied.kill('SIGTERM'), roomy.kill('SIGTERM')]);
    await stack?.close();
  });

  /** Opens `count` idle connections from `localAddress`; resolves once all are connected, with a promise per socket that settles when the server closes it. */
  async function idle(port: number, count: number, localAddress: string) {
    const sockets = Array.from({ length: count }, () => net.connect({ port, host: '127.0.0.1', localAddress }));
    opened.push(...sockets);
    const closed = sockets.map((socket) => new Promise<void>((resolve) => socket.once('close', () => resolve())));
    for (const socket of sockets) socket.on('error', () => {});
    await Promise.all(
      sockets.map(
        (socket) => new Promise<void>((resolve) => (socket.readyState === 'open' ? resolve() : socket.once('connect', () => resolve()))),
      ),
    );
    return { sockets, closed };
  }

  /** Sends one request on `socket` and resolves with the raw answer once the server has sent it and closed. */
  function ask(socket: net.Socket, request: string): Promise<string> {
    return new Promise((resolve) => {
      let answer = '';
      socket.on('data', (d) => (answer += d.toString()));
      socket.once('close', () => resolve(answer));
      socket.write(request);
    });
  }

  it('one address holding idle connections gets at most its share; everyone else is still served', async () => {
    const attacker = await idle(ports.crowded, MAX_CONNECTIONS, '127.0.0.2');
    // Past half the slots, those beyond the client's share are closed at accept (before, all 30 were held: every slot).
    let refused = 0;
    await Promise.all(attacker.closed.slice(PER_CLIENT).map((closed) => closed.then(() => (refused += 1))));
    expect(refused).toBe(MAX_CONNECTIONS - PER_CLIENT);
    // Another client, no key needed to be refused before: a free slot and an answer.
    const res = await fetch(`http://127.0.0.1:${ports.crowded}/healthz`, { signal: AbortSignal.timeout(30_000) });
    expect(res.status).toBe(200);
    // The first twenty are still open and still served.
    const answer = await ask(attacker.sockets[0]!, 'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    for (const socket of attacker.sockets) socket.destroy();
  });

  it('a trusted reverse proxy is not held to one client share: every client behind it shares its address', async () => {
    const proxy = await idle(ports.proxied, PER_CLIENT + 5, TRUSTED_PROXY);
    // Past half the slots and past one client's share, the last one opened is still admitted: it is answered.
    const answer = await ask(proxy.sockets.at(-1)!, 'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    for (const socket of proxy.sockets) socket.destroy();
  });

  it.each([
    ['a control character in the request line', 'GET /\x01 HTTP/1.1\r\nHost: x\r\n\r\n', 400, '/problems/bad-request'],
    [
      'a body both chunked and of a stated length',
      'POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      400,
      '/problems/bad-request',
    ],
    [
      'headers past what the server reads',
      `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'y'.repeat(20_000)}\r\n\r\n`,
      431,
      '/problems/request-headers-too-large',
    ],
  ])('%s: a problem+json answer with the API security headers', async (_name, request, status, type) => {
    const [socket] = (await idle(ports.roomy, 1, '127.0.0.1')).sockets;
    const answer = await ask(socket!, request);
    const [head, body] = answer.split('\r\n\r\n');
    expect(head).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
    expect(head).toMatch(/^content-type: application\/problem\+json/im);
    expect(head).toMatch(/^x-content-type-options: nosniff/im);
    expect(head).toMatch(/^content-security-policy: .*frame-ancestors 'none'/im);
    expect(JSON.parse(body!)).toMatchObject({ type, status });
  });
});
