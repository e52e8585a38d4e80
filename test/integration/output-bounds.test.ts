// Clients that ask and never read. HTTP/1.1 lets a client pipeline requests:
// write thousands of them on one connection, then stop reading. Every answer
// the server makes for them waits in the process until the client reads it, so
// before each connection's output was bounded, one such connection took the web
// process from about 114 MB to 399 MB (1,600 pipelined GET /openapi.json), and
// such connections were never closed. Here several connections pipeline
// thousands of requests to a public and to an authenticated route, read
// nothing, and the test asserts that the process's memory stays within a
// stated bound and that every one of those connections is closed by the server.
import http from 'node:http';
import net from 'node:net';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/api-keys/api-key.repository.js';
import { OutputBounds } from '../../src/http/output-bounds.js';
import { ServiceProcess } from '../../scripts/lib/service-process.js';
import { bearer } from '../support/app.js';
import type { TestDatabase } from '../support/database.js';
import { insertInsight } from '../support/fixtures.js';
import { until } from '../support/pipeline.js';
import { tcpConnections } from '../support/tcp.js';
import { createTestStack, type TestStack } from '../support/stack.js';

/** What the attack may add to the web process's resident memory (MB): the test's stated bound. */
const MEMORY_BOUND_MB = 80;
const CONNECTIONS = 6;
const REQUESTS_PER_CONNECTION = 3_000;
/** A server that never stops reading would take this many before the client gives up writing. */
const MAX_REQUESTS_PER_CONNECTION = 1_000_000;

describe('one request of a connection at a time', () => {
  it('ten pipelined requests are worked on one after the other and answered in order', async () => {
    // A thousand pipelining connections once ran sixteen handlers each: what a flood costs is one each.
    const guard = new OutputBounds({ maxPipelined: 16, maxQueuedBytes: 1 << 20, maxQueuedTotalBytes: 64 << 20, stallTimeoutMs: 5_000 });
    let running = 0;
    let most = 0;
    const server = http.createServer(
      guard.wrap((req, res) => {
        running += 1;
        most = Math.max(most, running);
        setImmediate(() => {
          running -= 1;
          res.end(req.url);
        });
      }),
    );
    guard.attach(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const socket = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
      let answer = '';
      const all = new Promise<void>((resolve) =>
        socket.on('data', (chunk: Buffer) => {
          answer += chunk.toString();
          if (answer.includes('\r\n\r\n/9')) resolve();
        }),
      );
      socket.once('connect', () => socket.write(Array.from({ length: 10 }, (_, i) => `GET /${i} HTTP/1.1\r\nHost: x\r\n\r\n`).join('')));
      await all;
      socket.destroy();
      expect(most).toBe(1);
      expect([...answer.matchAll(/\r\n\r\n\/(\d)/g)].map((m) => Number(m[1]))).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});

describe('pipelined requests whose answers are never read', () => {
  let database: TestDatabase;
  let stack: TestStack;
  let web: ServiceProcess;
  let base: string;
  let key: string;

  const env = (): Record<string, string> => ({
    ...stack.env,
    PORT: '0',
    // Short, so the connections' deadlines pass within the test; the bound on memory does not depend on it.
    HTTP_REQUEST_TIMEOUT_MS: '3000',
    HTTP_HEADERS_TIMEOUT_MS: '3000',
    OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
  });

  beforeAll(async () => {
    stack = await createTestStack();
    database = stack.database;
    // A page of 100 insights with long titles is about 60 KB: the biggest answer a key holder can ask for.
    for (let i = 0; i < 100; i += 1) await insertInsight(database.db, { score: i / 100, title: `Insight ${i} ${'x'.repeat(300)}` });
    key = (await createApiKey(database.db, 'pipeliner', 'enterprise')).key;
    web = new ServiceProcess('web', env());
    base = (await web.ready).url!;
  });
  afterAll(async () => {
    await web?.kill('SIGTERM');
    await stack?.close();
  });

  const rssMb = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${web.pid}/status`, 'utf8'))![1]) / 1024;

  /** A raw connection that writes `count` pipelined requests for a 60 KB page and reads nothing until told. */
  function unreadPages(url: string, count: number) {
    const socket = net.connect(Number(new URL(url).port), '127.0.0.1');
    socket.pause();
    socket.on('error', () => {});
    let received = 0;
    socket.on('data', (chunk: Buffer) => (received += chunk.length));
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.once('connect', () =>
      socket.write(`GET /api/insights?limit=100 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\n`.repeat(count)),
    );
    return { socket, closed, received: () => received };
  }

  it('a connection whose answers wait unread is closed once they have made no progress for HTTP_REQUEST_TIMEOUT_MS', async () => {
    // Within the pipelining bound, so only the stall can close it: 300 pages (18 MB) are more than the kernel's buffers take.
    const stallWeb = new ServiceProcess('web', { ...env(), HTTP_MAX_PIPELINED: '400' });
    try {
      const url = (await stallWeb.ready).url!;
      const client = unreadPages(url, 300);
      const line = await stallWeb.waitForLine('"reason":"stalled"');
      expect(JSON.parse(line).connection).toMatchObject({ reason: 'stalled' });
      // Reading now gets what the kernel held, then the end: the server let go of the rest.
      client.socket.resume();
      await client.closed;
      const page = (await (await fetch(`${url}/api/insights?limit=100`, { headers: bearer(key) })).text()).length;
      expect(client.received()).toBeLessThan(300 * page);
    } finally {
      await stallWeb.kill('SIGTERM');
    }
  });

  it('four connections that pipeline 1,500 requests once and never read are gone at both ends within a deadline, whatever the route', async () => {
    // The outside review's client (issue 35): it writes its requests once and never reads or writes
    // again, so it never learns of a graceful close; before, its side stayed open for good (CLOSE_WAIT)
    // and the server's lingered in the kernel. The server now resets what it gives up on.
    const { port } = new URL(base);
    const routes = ['/docs/json', '/healthz', '/openapi.json', '/api/insights?limit=100'];
    const sockets = routes.map((route) => {
      const socket = net.connect(Number(port), '127.0.0.1');
      socket.pause();
      socket.on('error', () => {});
      socket.once('connect', () =>
        socket.write(
          `GET ${route} HTTP/1.1\r\nHost: x\r\n${route.startsWith('/api/') ? `Authorization: Bearer ${key}\r\n` : ''}\r\n`.repeat(1_500),
        ),
      );
      return socket;
    });
    await Promise.all(sockets.map((s) => new Promise((resolve) => (s.localPort ? resolve(null) : s.once('connect', resolve)))));
    const ends = sockets.map((s) => s.localPort!);
    const started = Date.now();
    // What the kernel holds for these connections, on either side (TIME_WAIT holds nothing of the process's).
    const open = () => tcpConnections(Number(port)).filter((c) => ends.includes(c.clientPort) && c.state !== 'TIME_WAIT');
    try {
      const left = await until(
        async () => open(),
        (c) => c.length === 0,
        60_000,
        'the pipelining connections to be gone at both ends',
      );
      expect(left).toEqual([]);
      process.stdout.write(`all ${routes.length} pipelining connections gone at both ends after ${Date.now() - started} ms\n`);
      // HTTP_REQUEST_TIMEOUT_MS is 3 s here: gone well before the 90 s the review saw them open.
      expect(Date.now() - started).toBeLessThan(30_000);
    } finally {
      for (const s of sockets) s.destroy();
    }
  });

  it('over the process-wide budget for unread answers, the connections holding the most are closed first', async () => {
    // A connection is worked on one request at a time, so each holds about one page (60 KB) in the
    // process once the kernel's buffers for it are full: 40 of them hold more than 1 MB.
    const budgetWeb = new ServiceProcess('web', {
      ...env(),
      HTTP_MAX_PIPELINED: '400',
      HTTP_MAX_UNREAD_TOTAL_MB: '1',
      HTTP_REQUEST_TIMEOUT_MS: '60000',
    });
    try {
      const url = (await budgetWeb.ready).url!;
      const clients = Array.from({ length: 40 }, () => unreadPages(url, 300));
      const line = await budgetWeb.waitForLine('"reason":"process-budget"');
      expect(JSON.parse(line).connection.queuedBytes).toBeGreaterThan(0);
      for (const client of clients) client.socket.resume();
      await Promise.all(clients.map((c) => c.closed));
    } finally {
      await budgetWeb.kill('SIGTERM');
    }
  });

  it(`${CONNECTIONS} connections × ${REQUESTS_PER_CONNECTION} pipelined requests, never read: memory stays within ${MEMORY_BOUND_MB} MB and every connection is closed`, async () => {
    // Warm up both routes, so what the attack adds is measured, not the first build of the document.
    for (let i = 0; i < 20; i += 1) {
      expect((await fetch(`${base}/openapi.json`)).status).toBe(200);
      expect((await fetch(`${base}/api/insights?limit=100`, { headers: bearer(key) })).status).toBe(200);
    }
    const before = rssMb();
    const { port } = new URL(base);
    const requests = [
      'GET /openapi.json HTTP/1.1\r\nHost: x\r\n\r\n',
      `GET /api/insights?limit=100 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\n`,
    ];
    let peak = before;
    const closed = Array.from({ length: CONNECTIONS }, (_, i) => {
      const socket = net.connect(Number(port), '127.0.0.1');
      // Reads nothing: the answers pile up on the server's side. Writes its requests, then
      // goes on writing as long as the server takes them: a socket that does not read learns
      // of the server's close only through a write still pending.
      socket.pause();
      socket.on('error', () => {});
      let sent = 0;
      const writeMore = () => {
        while (sent < MAX_REQUESTS_PER_CONNECTION) {
          sent += 100;
          if (!socket.write(requests[i % requests.length]!.repeat(100)) && sent >= REQUESTS_PER_CONNECTION) return;
        }
      };
      socket.on('drain', writeMore);
      socket.once('connect', writeMore);
      return new Promise<void>((resolve) => socket.once('close', () => resolve()));
    });
    // The memory is sampled while the connections are open; the test ends on their close
    // events (or fails at once when the process grows past the bound).
    let sampler: NodeJS.Timeout | undefined;
    const overBound = new Promise<never>((_, reject) => {
      sampler = setInterval(() => {
        peak = Math.max(peak, rssMb());
        if (peak - before > MEMORY_BOUND_MB)
          reject(
            new Error(
              `the web process grew by ${(peak - before).toFixed(0)} MB (bound ${MEMORY_BOUND_MB} MB) with the connections still open`,
            ),
          );
      }, 100);
    });
    try {
      await Promise.race([Promise.all(closed), overBound]);
    } finally {
      clearInterval(sampler);
    }
    process.stdout.write(
      `web RSS before ${before.toFixed(0)} MB, peak while pipelining ${peak.toFixed(0)} MB; all ${CONNECTIONS} connections closed by the server\n`,
    );
    expect(peak - before).toBeLessThan(MEMORY_BOUND_MB);
    // The process is still there and answering.
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/api/insights?limit=1`, { headers: bearer(key) })).status).toBe(200);
  }, 120_000);
});
