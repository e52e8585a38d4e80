// A client that pipelines requests and never reads the answers. Node closed such a connection after its
// keep-alive timeout with a FIN queued behind the answers the kernel still held, which the client never
// reached: an outside review saw 0 of 4 such connections closed in 90 s (2.7 MB each in our kernel's send
// queue, FIN-WAIT-1, the client's side ESTABLISHED). Now the server resets a connection whose client has
// not taken its close within HTTP_UNREAD_TIMEOUT_MS; a client that reads still gets a plain close.
import net from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { HTTP_DEFAULTS } from '../../src/config.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { until } from '../support/pipeline.js';
import { tcpConnections } from '../support/tcp.js';

let t: TestApp;
let port: number;
const serverSockets = new Map<number, net.Socket>();

beforeAll(async () => {
  t = await createTestApp({ http: { ...HTTP_DEFAULTS, keepAliveTimeoutMs: 500, unreadTimeoutMs: 1_000 } });
  t.app.server.on('connection', (socket: net.Socket) => serverSockets.set(socket.remotePort!, socket));
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  port = (t.app.server.address() as net.AddressInfo).port;
});
afterAll(() => t.close());

const connect = () =>
  new Promise<net.Socket>((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => resolve(socket));
    socket.on('error', () => {});
  });

it('a connection whose client reads none of its answers is reset once it has not taken the close in HTTP_UNREAD_TIMEOUT_MS', async () => {
  const client = await connect();
  client.pause(); // never reads
  // Answers larger than what the client's kernel takes unread, fewer than the pipelining bound: all are
  // made and handed to the kernel, and the connection then sits idle with them unread.
  client.write('GET /openapi.json HTTP/1.1\r\nHost: a\r\n\r\n'.repeat(12));
  const server = await until(
    async () => serverSockets.get(client.localPort!),
    (s) => s !== undefined,
    10_000,
    'the server to accept the connection',
  );
  // The server's socket closes (after its keep-alive timeout and the unread timeout)…
  await new Promise<void>((resolve) => (server!.destroyed ? resolve() : server!.once('close', () => resolve())));
  // …and the client's side is gone with it: reset, not a FIN the client would never reach.
  const clientSide = () => tcpConnections(port).filter((c) => c.side === 'client' && c.clientPort === client.localPort);
  const left = await until(
    async () => clientSide(),
    (c) => c.every((s) => s.state !== 'ESTABLISHED'),
    5_000,
    "the client's side to be reset",
  ).catch(() => clientSide());
  expect(left.map((c) => c.state)).not.toContain('ESTABLISHED');
  client.destroy();
}, 30_000);

it('a client that reads its answer gets a plain close (a FIN, no reset) when its idle connection times out', async () => {
  const client = await connect();
  let text = '';
  const ended = new Promise<'end' | 'error'>((resolve) => {
    client.on('data', (d: Buffer) => (text += d.toString('latin1')));
    client.once('end', () => resolve('end'));
    client.once('error', () => resolve('error'));
  });
  client.write('GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n');
  expect(await ended).toBe('end');
  expect(text).toMatch(/^HTTP\/1\.1 200 /);
  client.destroy();
}, 30_000);
