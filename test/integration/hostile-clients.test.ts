// Hostile clients and slow peers: every connection is bounded in time, the
// caches in bytes and entries, and unauthenticated traffic in what it costs.
// The slow-client and memory parts run against the real `web` process.
import net from 'node:net';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/api-keys/api-key.repository.js';
import { generateApiKey } from '../../src/domain/api-key.js';
import { procfileNodeFlags, ServiceProcess } from '../../scripts/lib/service-process.js';
import { bearer, createTestApp, type TestApp } from '../support/app.js';
import type { TestDatabase } from '../support/database.js';
import { insertInsight } from '../support/fixtures.js';
import { until } from '../support/pipeline.js';
import { tcpConnections } from '../support/tcp.js';
import { createTestStack, type TestStack } from '../support/stack.js';

describe('unauthenticated traffic has a bounded cost', () => {
  let t: TestApp;
  beforeAll(async () => {
    // The key cache's clock stands still: the flood below takes 12 s on a quiet machine and over 90 s on a
    // loaded one, past a valid key's 60 s in the cache; these tests measure eviction, not expiry.
    const frozen = Date.now();
    t = await createTestApp({ now: () => frozen });
  });
  afterAll(() => t.close());

  it('300 junk keys with valid checksums from one address: a few lookups, then 429 without touching Postgres', async () => {
    const before = t.apiKeys.stats.lookups;
    const statuses: number[] = [];
    for (let i = 0; i < 300; i += 1) {
      const res = await t.app.inject({ url: '/api/insights', headers: bearer(generateApiKey()), remoteAddress: '203.0.113.7' });
      statuses.push(res.statusCode);
      if (res.statusCode === 429) {
        expect(res.json().type).toBe('/problems/too-many-failed-authentications');
        expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      }
    }
    const lookups = t.apiKeys.stats.lookups - before;
    expect(lookups).toBeLessThanOrEqual(21);
    expect(statuses.filter((s) => s === 401)).toHaveLength(lookups);
    expect(statuses.filter((s) => s === 429)).toHaveLength(300 - lookups);
  });

  it('a flood of 20,000 junk keys from many addresses never evicts a valid key', async () => {
    const key = await t.key('enterprise');
    expect((await t.app.inject({ url: '/api/sources', headers: bearer(key) })).statusCode).toBe(200);
    for (let i = 0; i < 20_000; i += 1) {
      await t.app.inject({ url: '/api/sources', headers: bearer(generateApiKey()), remoteAddress: `198.51.${(i >> 8) & 255}.${i & 255}` });
    }
    const before = t.apiKeys.stats.lookups;
    expect((await t.app.inject({ url: '/api/sources', headers: bearer(key) })).statusCode).toBe(200);
    expect(t.apiKeys.stats.lookups - before).toBe(0); // still cached: no lookup
  }, 180_000);
});

describe('slow peers and hostile URLs against the real web process', () => {
  let database: TestDatabase;
  let stack: TestStack;
  let web: ServiceProcess;
  let cacheWeb: ServiceProcess;
  let base: string;
  let cacheBase: string;
  let port: number;
  let key: string;
  let hooksKey: string;
  const REQUEST_TIMEOUT_MS = 4_000;
  const ADMIN_TOKEN = 'hostile-test-admin-token-0123456789';

  beforeAll(async () => {
    stack = await createTestStack();
    database = stack.database;
    // 100 insights with long titles: a page of 100 is about 60 KB.
    for (let i = 0; i < 100; i += 1) await insertInsight(database.db, { score: i / 100, title: `Insight ${i} ${'x'.repeat(300)}` });
    key = (await createApiKey(database.db, 'hostile', 'enterprise')).key;
    hooksKey = (await createApiKey(database.db, 'hostile webhooks', 'enterprise', null, ['webhooks:write'])).key;
    const env = {
      ...stack.env,
      PORT: '0',
      ADMIN_TOKEN,
      OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
    };
    // Two web processes: one with short connection bounds for the slow clients, one with
    // the defaults and a 4 MB cache for the memory test (where a loaded test machine must
    // not turn a slow answer into a timeout).
    // 200 slow connections from one address: more than a client's share of connection slots by default.
    web = new ServiceProcess('web', {
      ...env,
      HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      HTTP_HEADERS_TIMEOUT_MS: '3000',
      HTTP_MAX_CONNECTIONS_PER_CLIENT: '1000',
    });
    cacheWeb = new ServiceProcess('web', { ...env, API_CACHE_MAX_MB: '4' });
    base = (await web.ready).url!;
    cacheBase = (await cacheWeb.ready).url!;
    port = Number(new URL(base).port);
  });
  afterAll(async () => {
    await Promise.all([web.kill('SIGTERM'), cacheWeb.kill('SIGTERM')]);
    await stack?.close();
  });

  /** Opens a raw connection, writes `head`, then trickles `trickle` a byte every 200 ms; resolves with what came back and when it closed. */
  function slowClient(head: string, trickle = ''): Promise<{ answer: string; closedAfterMs: number }> {
    return new Promise((resolve) => {
      const started = Date.now();
      const socket = net.connect(port, '127.0.0.1');
      let answer = '';
      let i = 0;
      const timer = setInterval(() => {
        if (i < trickle.length && !socket.destroyed) socket.write(trickle[i++]!);
      }, 200);
      socket.on('data', (d) => (answer += d.toString()));
      socket.once('connect', () => socket.write(head));
      socket.on('error', () => {});
      socket.once('close', () => {
        clearInterval(timer);
        resolve({ answer, closedAfterMs: Date.now() - started });
      });
    });
  }

  it('a slow body on a route that takes none: answered at once and closed, never read', async () => {
    const { answer, closedAfterMs } = await slowClient(
      'POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\n',
      'a'.repeat(1000),
    );
    expect(answer).toMatch(/^HTTP\/1\.1 405/);
    expect(answer).toMatch(/connection: close/i);
    expect(closedAfterMs).toBeLessThan(REQUEST_TIMEOUT_MS + 5_000);
  });

  it('a slow body on a route that reads one (a webhook write): 408 at the request timeout, closed, nothing created', async () => {
    const body = JSON.stringify({ url: 'https://example.com/hooks', keywords: ['slow'.repeat(100)] });
    const { answer, closedAfterMs } = await slowClient(
      `POST /api/webhooks HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${hooksKey}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
      body,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect(answer).toMatch(/request-timeout/);
    expect(closedAfterMs).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 1_000);
    expect(closedAfterMs).toBeLessThan(REQUEST_TIMEOUT_MS + 5_000);
    expect(await database.db.selectFrom('webhook_subscriptions').select('id').execute()).toHaveLength(0);
  });

  it('a slow body on a GET route, and headers that never end: cut off within the request timeout', async () => {
    const [body, headers] = await Promise.all([
      slowClient(`GET /api/insights HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Length: 1000\r\n\r\n`, 'a'.repeat(1000)),
      slowClient('GET /api/insights HTTP/1.1\r\nHost: x\r\n', 'X-Slow: '.padEnd(1000, 'y')),
    ]);
    expect(body.answer).toMatch(/^HTTP\/1\.1 200/);
    expect(body.closedAfterMs).toBeLessThan(REQUEST_TIMEOUT_MS + 5_000);
    expect(headers.closedAfterMs).toBeLessThan(REQUEST_TIMEOUT_MS + 5_000);
  });

  it('200 slow connections held open at once do not stop normal reads', async () => {
    const slow = Array.from({ length: 200 }, () => slowClient('GET /api/insights HTTP/1.1\r\nHost: x\r\n', 'X-Slow: '.padEnd(200, 'y')));
    const reads = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        fetch(`${base}/api/insights?limit=${(i % 10) + 1}`, { headers: bearer(key), signal: AbortSignal.timeout(30_000) }).then(
          (r) => r.status,
        ),
      ),
    );
    expect(reads).toEqual(Array(50).fill(200));
    const closed = await Promise.all(slow);
    for (const c of closed) expect(c.closedAfterMs).toBeLessThan(REQUEST_TIMEOUT_MS + 10_000);
  });

  it('5,000 spellings of one category list are one cache entry, and the process does not grow', async () => {
    const rss = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${cacheWeb.pid}/status`, 'utf8'))![1]) / 1024;
    const values = ['uncategorized', 'computers-electronics', 'health'];
    // Each spelling: the three values in some order, some repeated, with or without spaces.
    const spelling = (i: number) => {
      const picked = Array.from({ length: 3 + (i % 5) }, (_, j) => values[(i * 7 + j * (1 + (i % 3))) % 3]!);
      for (const v of values) if (!picked.includes(v)) picked.push(v);
      return picked.map((v, j) => ((i + j) % 4 === 0 ? `%20${v}%20` : v)).join(',');
    };
    const first = await fetch(`${cacheBase}/api/insights?limit=100&category=${spelling(0)}`, { headers: bearer(key) });
    expect(first.status).toBe(200);
    // One entry is about one answer's size (its body; the list grows as insights carry more, e.g. the verdict).
    const pageBytes = (await first.arrayBuffer()).byteLength;
    const before = rss();
    let hits = 0;
    for (let batch = 1; batch <= 5_000; batch += 50) {
      const caches = await Promise.all(
        Array.from({ length: 50 }, async (_, j) => {
          const res = await fetch(`${cacheBase}/api/insights?limit=100&category=${spelling(batch + j)}`, { headers: bearer(key) });
          expect(res.status).toBe(200);
          await res.arrayBuffer();
          return res.headers.get('x-cache');
        }),
      );
      hits += caches.filter((c) => c === 'hit').length;
    }
    const after = rss();
    process.stdout.write(
      `web RSS before 5,000 spellings of one list ${before.toFixed(0)} MB, after ${after.toFixed(0)} MB; ${hits} cache hits\n`,
    );
    // Each spelling was an entry of its own before (and a query, and a 60 KB page): the
    // hits and the cache's own size are what prove one entry. RSS is a loose sanity bound:
    // on a loaded machine V8 grows its heap by tens of MB under 5,000 requests whatever
    // they ask (an entry per spelling would be 5,000 x 60 KB = 300 MB without the budget).
    expect(hits).toBe(5_000);
    const metrics = await (await fetch(`${cacheBase}/metrics`, { headers: bearer(ADMIN_TOKEN) })).text();
    expect(Number(/^api_response_cache_bytes (\d+)/m.exec(metrics)![1])).toBeLessThan(2 * pageBytes + 10_000);
    expect(after - before).toBeLessThan(64);
  }, 300_000);

  it('6,000 distinct hostile URLs leave the web process within its cache budget', async () => {
    const rss = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${cacheWeb.pid}/status`, 'utf8'))![1]) / 1024;
    const cacheBytes = async () => {
      const text = await (await fetch(`${cacheBase}/metrics`, { headers: bearer(ADMIN_TOKEN) })).text();
      return Number(/^api_response_cache_bytes (\d+)/m.exec(text)![1]);
    };
    // Spellings of one value share an entry; distinct values each make one (about 60 KB).
    const spelling = (i: number) => {
      const n = `0.${String(i).padStart(6, '0')}`;
      return [`min_score=${n}`, `min_score=${n}0000`, `sort=score&min_score=${n}`, `min_score=${n}&sort=score&source=recorded-series`][
        i % 4
      ];
    };
    const hammer = async (from: number, count: number) => {
      let ok = 0;
      for (let batch = from; batch < from + count; batch += 50) {
        const statuses = await Promise.all(
          Array.from({ length: 50 }, (_, j) =>
            fetch(`${cacheBase}/api/insights?limit=100&${spelling(batch + j)}`, { headers: bearer(key) }).then((r) => r.status),
          ),
        );
        ok += statuses.filter((s) => s === 200).length;
        const odd = statuses.filter((s) => s !== 200);
        if (odd.length > 0) process.stdout.write(`odd statuses at ${batch}: ${odd.join(',')}\n`);
      }
      return ok;
    };
    // Under this load the heap settles at its working size within a couple of thousand
    // requests; the cache is full (4 MB, about 70 pages) long before that. What follows
    // must not grow the process.
    expect(await hammer(0, 2_000)).toBe(2_000);
    const before = rss();
    expect(await hammer(2_000, 6_000)).toBe(6_000);
    const after = rss();
    const held = await cacheBytes();
    process.stdout.write(
      `web RSS after warm-up ${before.toFixed(0)} MB, after 6,000 more distinct URLs ${after.toFixed(0)} MB; cache holds ${(held / 2 ** 20).toFixed(1)} MB (budget 4 MB)\n`,
    );
    expect(held).toBeLessThanOrEqual(4 * 2 ** 20);
    expect(held).toBeGreaterThan(3 * 2 ** 20); // it was used, not bypassed
    // Without a byte budget each distinct URL kept its ~60 KB page: 6,000 of them, about 350 MB.
    expect(after - before).toBeLessThan(48);
  }, 300_000);
});

/** Runs a Python helper of test/support (a client Node cannot be); answers what it printed. */
async function runPython(script: string, args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)('python3', [script, ...args], { timeout: 60_000 });
  return stdout;
}

describe("the web process under the Procfile's flags and the default 64 MB cache", () => {
  // The outside review (issue 35): 5,000 distinct near-zero min_score values with limit=100 grew
  // the web process by 275 MB while the cache's budget is 64 MB. The cache held to its budget; the
  // rest was V8's heap, sized to the machine's memory and to a 64 MB young generation
  // (--max-semi-space-size=64): the garbage of 5,000 60 KB pages was kept, not collected. The
  // Procfile now bounds the heap (--max-semi-space-size=16 --max-old-space-size=384).
  // What is left over the cache is garbage not yet collected, so it depends on when V8 collects:
  // four CI runs of the same code on 2026-11-27 grew 93, 94, 106 and 113 MB (the last failed a
  // 48 MB allowance). 56 MB over the cache stays far below the 275 MB the review found.
  const OVERHEAD_MB = 56;
  let database: TestDatabase;
  let stack: TestStack;
  let web: ServiceProcess;
  let key: string;
  const ADMIN_TOKEN = 'hostile-test-admin-token-0123456789';

  beforeAll(async () => {
    stack = await createTestStack();
    database = stack.database;
    for (let i = 0; i < 100; i += 1) await insertInsight(database.db, { score: i / 100, title: `Insight ${i} ${'x'.repeat(300)}` });
    key = (await createApiKey(database.db, 'distinct queries', 'enterprise')).key;
    web = new ServiceProcess(
      'web',
      { ...stack.env, PORT: '0', ADMIN_TOKEN, OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0' },
      { nodeFlags: procfileNodeFlags('web') },
    );
    await web.ready;
  });
  afterAll(async () => {
    await web?.kill('SIGTERM');
    await stack?.close();
  });

  it(`5,000 distinct cached queries of 60 KB pages: resident memory grows by at most the cache's 64 MB plus ${OVERHEAD_MB} MB`, async () => {
    const base = (await web.ready).url!;
    const rss = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${web.pid}/status`, 'utf8'))![1]) / 1024;
    for (let i = 0; i < 20; i += 1) await (await fetch(`${base}/api/insights?limit=100`, { headers: bearer(key) })).arrayBuffer();
    const before = rss();
    let peak = before;
    for (let batch = 0; batch < 5_000; batch += 50) {
      const statuses = await Promise.all(
        Array.from({ length: 50 }, async (_, j) => {
          const res = await fetch(`${base}/api/insights?limit=100&min_score=0.${String(batch + j).padStart(7, '0')}1`, {
            headers: bearer(key),
          });
          await res.arrayBuffer();
          return res.status;
        }),
      );
      expect(statuses.every((s) => s === 200)).toBe(true);
      peak = Math.max(peak, rss());
    }
    const metrics = await (await fetch(`${base}/metrics`, { headers: bearer(ADMIN_TOKEN) })).text();
    const cacheMb = Number(/^api_response_cache_bytes (\d+)/m.exec(metrics)![1]) / 2 ** 20;
    const heapMb = Number(/^nodejs_heap_size_total_bytes (\d+)/m.exec(metrics)![1]) / 2 ** 20;
    process.stdout.write(
      `web RSS before ${before.toFixed(0)} MB, peak ${peak.toFixed(0)} MB over 5,000 distinct queries; cache ${cacheMb.toFixed(1)} MB (budget 64), V8 heap ${heapMb.toFixed(0)} MB\n`,
    );
    expect(cacheMb).toBeLessThanOrEqual(64);
    expect(cacheMb).toBeGreaterThan(60); // the cache was filled, not bypassed
    expect(peak - before).toBeLessThan(64 + OVERHEAD_MB);
  }, 300_000);
  it('300 connections each pipelining 3,640 requests in one read and never reading: the process lives and answers', async () => {
    // The second outside review (issue 35): with the heap bounded to 384 MB, 100 such connections
    // (6.5 MB sent in all, from one address) ran the process out of heap and killed it.
    const { port } = new URL((await web.ready).url!);
    // Without a Host header, as the review sent them: Node answers those itself (400), before the app sees them.
    const request = 'GET / HTTP/1.1\r\n\r\n';
    const chunk = request.repeat(Math.floor(65_536 / request.length));
    const sockets = await Promise.all(
      Array.from(
        { length: 300 },
        () =>
          new Promise<net.Socket>((resolve, reject) => {
            const socket = net.connect(Number(port), '127.0.0.1', () => resolve(socket));
            socket.once('error', reject);
          }),
      ),
    );
    const rss = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${web.pid}/status`, 'utf8'))![1]) / 1024;
    const before = rss();
    let peak = before;
    const sampler = setInterval(() => {
      try {
        peak = Math.max(peak, rss());
      } catch {
        // the process is gone: the test says so below
      }
    }, 20);
    for (const socket of sockets) {
      socket.removeAllListeners('error');
      socket.on('error', () => {});
      socket.pause(); // never reads
      socket.write(chunk);
    }
    // The server gives up on every one of them with a reset: gone at both ends in the kernel
    // (a paused client socket never notices), waited for with a deadline.
    const ends = sockets.map((s) => s.localPort!);
    const open = () => tcpConnections(Number(port)).filter((c) => ends.includes(c.clientPort) && c.state !== 'TIME_WAIT');
    expect(
      await until(
        async () => open(),
        (c) => c.length === 0,
        60_000,
        'the pipelining connections to be gone at both ends',
      ),
    ).toEqual([]);
    expect(web.running, web.tail.slice(-5).join('\n')).toBe(true);
    process.stdout.write(`300 pipelining connections: web RSS peak ${peak.toFixed(0)} MB (before ${before.toFixed(0)} MB)\n`);
    clearInterval(sampler);
    const health = await fetch(`${(await web.ready).url!}/healthz`, { signal: AbortSignal.timeout(10_000) });
    expect(health.status).toBe(200);
  }, 120_000);

  it('200 connections with small receive buffers pipelining chunked POSTs, four reads each, never reading: the process lives', async () => {
    // The third outside review: a request with a body is taken up only when the one before is
    // answered, so such requests never met the pipelining bound; their 401s (ten times the
    // request's size) piled up for clients that never read, past the process's unread budget
    // (checked once a second), and the 384 MB heap ran out.
    const { port } = new URL((await web.ready).url!);
    const rss = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${web.pid}/status`, 'utf8'))![1]) / 1024;
    const before = rss();
    let peak = before;
    const sampler = setInterval(() => {
      try {
        peak = Math.max(peak, rss());
      } catch {
        // the process is gone: the test says so below
      }
    }, 20);
    const request = 'POST /api/webhooks HTTP/1.1\\r\\nHost: a\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n1\\r\\nx\\r\\n0\\r\\n\\r\\n';
    const flood = await runPython('test/support/pipelining-flood.py', [port, '200', '4', '0.5', '20', request]);
    clearInterval(sampler);
    expect(JSON.parse(flood).connections).toBe(200);
    expect(web.running, web.tail.slice(-5).join('\n')).toBe(true);
    process.stdout.write(
      `200 connections of pipelined chunked POSTs: web RSS peak ${peak.toFixed(0)} MB (before ${before.toFixed(0)} MB)\n`,
    );
    // Before each refused request closed its connection: +108 to +114 MB here (the review's run, with a
    // busier process, ran out of heap).
    expect(peak - before).toBeLessThan(48);
    const health = await fetch(`${(await web.ready).url!}/healthz`, { signal: AbortSignal.timeout(10_000) });
    expect(health.status).toBe(200);
  }, 120_000);

  it('pipelined requests with bodies, refused before their bodies are read: one answer, then the connection closes', async () => {
    // The third outside review: Node reads a connection's next request only once this one's body
    // is taken, and a refusal never takes it, so 829 chunked POSTs in one write got 829 answers
    // (753 KB, none bounded); 200 such connections ran the 384 MB heap out.
    const { port } = new URL((await web.ready).url!);
    for (const request of [
      'POST /api/webhooks HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\n\r\n',
      'POST /api/webhooks HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\n\r\nx',
      'POST /healthz HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\n{}',
    ]) {
      const answers = await new Promise<string>((resolve, reject) => {
        const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(request.repeat(Math.floor(65_520 / request.length))));
        let text = '';
        socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
        socket.once('close', () => resolve(text));
        socket.once('error', () => resolve(text)); // a reset after the answer
        socket.setTimeout(20_000, () => reject(new Error(`the connection was not closed: ${text.length} bytes of answers so far`)));
      });
      const statuses = [...answers.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => m[1]);
      expect(statuses.length, `${request.split('\r\n')[0]}: ${statuses.length} answers`).toBe(1);
      expect(Number(statuses[0])).toBeGreaterThanOrEqual(400);
      expect(answers).toMatch(/connection: close/i);
    }
  }, 120_000);

  it('pipelined requests whose bodies are read: the first is answered, then a 429, and the connection closes', async () => {
    // The fourth outside review: sixteen 16 KB bodies waited their turn on each connection (the
    // pipelining bound counted requests, not their bodies); 1,900 connections held 486 MB outside
    // the heap.
    const { port } = new URL((await web.ready).url!);
    const writer = (await createApiKey(database.db, 'pipelining writes', 'enterprise', null, ['insights:read', 'webhooks:write'])).key;
    const body = JSON.stringify({ url: 'http://127.0.0.1:9/h', x: 'a'.repeat(15_900) });
    const request = `POST /api/webhooks HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer ${writer}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    const answers = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(request.repeat(4)));
      let text = '';
      socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
      socket.once('close', () => resolve(text));
      socket.once('error', () => resolve(text));
      socket.setTimeout(20_000, () => reject(new Error(`the connection was not closed: ${text.length} bytes of answers so far`)));
    });
    const statuses = [...answers.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
    // The first is read and refused (an unknown field), the second is refused unread: the connection's last.
    expect(statuses).toEqual([400, 429]);
  }, 60_000);

  it('a request without a Host header, or with an Expect the server does not meet, is answered through the guard as Node would', async () => {
    const { port } = new URL((await web.ready).url!);
    const ask = (request: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(request));
        let text = '';
        socket.on('data', (d: Buffer) => {
          text += d.toString('latin1');
          if (text.includes('\r\n\r\n{') && text.endsWith('}')) {
            socket.destroy();
            resolve(text);
          }
        });
        socket.once('error', reject);
        socket.setTimeout(10_000, () => reject(new Error(`no answer to ${JSON.stringify(request)}: ${text}`)));
      });
    const noHost = await ask('GET /healthz HTTP/1.1\r\n\r\n');
    expect(noHost).toMatch(/^HTTP\/1\.1 400 /);
    expect(noHost).toContain('application/problem+json');
    expect(noHost).toContain('needs a Host header');
    const expectation = await ask('GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: tea\r\n\r\n');
    expect(expectation).toMatch(/^HTTP\/1\.1 417 /);
    // HTTP/1.0 has no Host header to require.
    const old = await ask('GET /healthz HTTP/1.0\r\n\r\n');
    expect(old).toMatch(/^HTTP\/1\.1 200 /);
  }, 60_000);
});
