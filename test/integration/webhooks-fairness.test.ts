// One account's flood does not hold the others' webhooks (issue 35): an
// account replays 2,000 deliveries with 20 requests at once to a receiver
// that never answers, and another account's ping to a healthy receiver still
// arrives in a few seconds. Before the delivery gate, the flood took every
// one of the worker's 100 slots for 15 s at a time and the ping waited
// minutes (151 s in the outside review's run).
import http from 'node:http';
import net from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import type { Pipeline } from '../../src/runtime/workers.js';
import { startTestWorkers } from '../support/services.js';
import { bearer, createTestApp, type TestApp } from '../support/app.js';
import { until } from '../support/pipeline.js';
import { testResources } from '../support/redis.js';
import { pastDeliveries } from '../support/webhooks.js';

let t: TestApp;
let pipeline: Pipeline;
let slots: number;
const PER_ACCOUNT = 10;

/** Accepts connections and never answers; counts how many it holds at once. */
function silentReceiver() {
  const sockets = new Set<net.Socket>();
  let most = 0;
  let accepted = 0;
  const server = net.createServer((socket) => {
    sockets.add(socket);
    accepted += 1;
    most = Math.max(most, sockets.size);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    socket.resume(); // reads the request, answers nothing
  });
  return new Promise<{ url: string; open: () => number; most: () => number; accepted: () => number; close: () => Promise<void> }>(
    (resolve) =>
      server.listen(0, '127.0.0.1', () =>
        resolve({
          url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/hook`,
          open: () => sockets.size,
          most: () => most,
          accepted: () => accepted,
          close: () => {
            for (const s of sockets) s.destroy();
            return new Promise((done) => server.close(() => done()));
          },
        }),
      ),
  );
}

/** Answers 204 at once; remembers when each request arrived. */
function healthyReceiver() {
  const arrivals: { type: string; at: number }[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      arrivals.push({ type: (JSON.parse(body) as { type: string }).type, at: performance.now() });
      res.writeHead(204).end();
    });
  });
  return new Promise<{ url: string; arrivals: typeof arrivals; close: () => Promise<void> }>((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/hook`,
        arrivals,
        close: () => new Promise((done) => server.close(() => done())),
      }),
    ),
  );
}

beforeAll(async () => {
  t = await createTestApp({ webhookAllowedCidrs: ['127.0.0.1/32'] });
  const config = loadConfig({
    REDIS_PREFIX: t.redis.prefix,
    WEBHOOK_ENCRYPTION_KEY: t.webhookEncryptionKey,
    WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32',
    WEBHOOK_ACCOUNT_CONCURRENCY: String(PER_ACCOUNT),
  });
  expect(config.webhooks.timeoutMs).toBe(15_000); // a silent receiver holds a slot this long, as in the review
  slots = Math.min(PER_ACCOUNT, config.worker.webhookConcurrency);
  pipeline = await startTestWorkers(testResources(t.database, t.redis), config, pino({ level: 'silent' }));
});
afterAll(async () => {
  await pipeline?.close();
  await t.close();
});

const post = (key: string, url: string, body?: unknown) =>
  t.app.inject({
    method: 'POST',
    url,
    headers: body === undefined ? bearer(key) : { ...bearer(key), 'content-type': 'application/json' },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });

async function subscribe(key: string, url: string): Promise<string> {
  const res = await post(key, '/api/webhooks', { url });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data.id as string;
}

describe('fair delivery between accounts', () => {
  it("20 concurrent replays of 2,000 deliveries at a silent receiver hold at most the account's 10 slots; another account's ping arrives within seconds", async () => {
    const silent = await silentReceiver();
    const healthy = await healthyReceiver();
    try {
      const flooder = await t.webhookKey('enterprise');
      const floodSub = await subscribe(flooder.key, silent.url);
      await pastDeliveries(t.database.db, floodSub, 2_000);
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => post(flooder.key, `/api/webhooks/${floodSub}/replay`, { since: '2020-01-01T00:00:00Z' })),
      );
      expect(answers.map((r) => r.statusCode)).toEqual(Array(20).fill(202));
      expect(answers.reduce((n, r) => n + (r.json().data.replayed as string[]).length, 0)).toBe(2_000);

      // The flood holds its slots at the silent receiver before the other account asks.
      await until(
        async () => silent.open(),
        (n) => n >= slots,
        60_000,
        `${slots} deliveries held open by the silent receiver`,
      );

      const other = await t.webhookKey('pro');
      const otherSub = await subscribe(other.key, healthy.url);
      const asked = performance.now();
      const ping = await post(other.key, `/api/webhooks/${otherSub}/test`);
      expect(ping.statusCode, ping.body).toBe(202);
      await until(
        async () => healthy.arrivals.length,
        (n) => n >= 1,
        60_000,
        "the other account's ping",
      );
      const waitedMs = healthy.arrivals[0]!.at - asked;
      console.log(
        `other account's ping arrived after ${Math.round(waitedMs)} ms; the flood held at most ${silent.most()} connections at once (${silent.accepted()} accepted)`,
      );
      expect(healthy.arrivals[0]!.type).toBe('ping');
      expect(waitedMs).toBeLessThan(5_000);
      expect(silent.most()).toBeLessThanOrEqual(PER_ACCOUNT);
    } finally {
      await silent.close();
      await healthy.close();
    }
  });
});
