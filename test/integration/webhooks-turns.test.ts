// Webhook deliveries take turns by account and waste nothing (issue 48):
// deliveries of two accounts enqueued one account's backlog first are taken
// interleaved; and one account alone, with a backlog 20 times its slots, has
// every delivery sent as soon as a slot frees: the deliveries its slots could
// not take were parked as they were enqueued and each was sent with the slot
// handed to it (by the job holding that slot, or by its own job, woken),
// never taken to be refused, never waiting on a timer, never sent twice.
import http from 'node:http';
import type net from 'node:net';
import { Queue, Worker } from 'bullmq';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueDeliveries } from '../../jobs/webhook-match.job.js';
import { loadConfig } from '../../src/config.js';
import { newId } from '../../src/domain/ids.js';
import { jobIdOf } from '../../src/queue/enqueue.js';
import { JOB } from '../../src/queue/job-catalogue.js';
import { MAX_ATTEMPTS } from '../../src/domain/webhooks/retry.js';
import { QUEUES } from '../../src/queue/queue-names.js';
import { createRedis } from '../../src/redis/connection.js';
import { startTestWorkers } from '../support/services.js';
import { DeliveryGate } from '../../src/webhooks/delivery-gate.js';
import { recordEvents } from '../../src/webhooks/event.repository.js';
import { bearer, createTestApp, type TestApp } from '../support/app.js';
import { until } from '../support/pipeline.js';
import { testResources } from '../support/redis.js';

let t: TestApp;
let webhooks: Queue;
const connections = [] as ReturnType<typeof createRedis>[];
const connection = () => {
  const c = createRedis(t.redis.url, 'worker');
  connections.push(c);
  return c;
};

/** Answers 204 after a few milliseconds; counts requests, and the most open at once. */
function receiver() {
  let open = 0;
  let most = 0;
  let count = 0;
  const server = http.createServer((req, res) => {
    open += 1;
    most = Math.max(most, open);
    req.resume();
    req.on('end', () =>
      setTimeout(() => {
        open -= 1;
        count += 1;
        res.writeHead(204).end();
      }, 5),
    );
  });
  return new Promise<{ url: string; count: () => number; most: () => number; close: () => Promise<void> }>((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/hook`,
        count: () => count,
        most: () => most,
        close: () => new Promise((done) => server.close(() => done())),
      }),
    ),
  );
}

beforeAll(async () => {
  t = await createTestApp({ webhookAllowedCidrs: ['127.0.0.1/32'] });
  webhooks = new Queue(QUEUES.webhooks, { connection: connection(), prefix: t.redis.keys.queuePrefix(QUEUES.webhooks) });
});
afterAll(async () => {
  await webhooks.close();
  for (const c of connections) c.disconnect();
  await t.close();
});

async function subscription(plan: 'enterprise' | 'pro', url: string): Promise<string> {
  const { key } = await t.webhookKey(plan);
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/webhooks',
    headers: { ...bearer(key), 'content-type': 'application/json' },
    payload: JSON.stringify({ url }),
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data.id as string;
}

/** `n` pending deliveries of the subscription, one event each (what matching records). */
async function pending(subscriptionId: string, n: number): Promise<string[]> {
  const ids = Array.from({ length: n }, () => newId('delivery'));
  await t.database.db.transaction().execute(async (trx) => {
    const events = await recordEvents(
      trx,
      ids.map(() => ({ type: 'ping' as const, insightId: null, payload: {}, relayedAt: new Date() })),
    );
    await trx
      .insertInto('webhook_deliveries')
      .values(ids.map((id, i) => ({ id, event_id: events[i]!, subscription_id: subscriptionId, status: 'pending' as const })))
      .execute();
  });
  return ids;
}

describe('webhook deliveries take turns by account', () => {
  it("one account's 30 deliveries enqueued before another's 3: the other's are taken among the first 7, each account's in order", async () => {
    const a = await subscription('enterprise', 'http://127.0.0.1:9/unused');
    const b = await subscription('pro', 'http://127.0.0.1:9/unused');
    const aIds = await pending(a, 30);
    await enqueueDeliveries({ db: t.database.db, webhooks }, aIds);
    const bIds = await pending(b, 3);
    await enqueueDeliveries({ db: t.database.db, webhooks }, bIds);

    const order: string[] = [];
    let done!: () => void;
    const all = new Promise<void>((resolve) => (done = resolve));
    const worker = new Worker(
      QUEUES.webhooks,
      async (job) => {
        order.push((job.data as { deliveryId: string }).deliveryId);
        if (order.length === 33) done();
      },
      { connection: connection(), prefix: t.redis.keys.queuePrefix(QUEUES.webhooks), concurrency: 1 },
    );
    worker.on('error', () => {});
    await all;
    await worker.close();
    expect(bIds.map((id) => order.indexOf(id)).every((i) => i >= 0 && i < 7)).toBe(true);
    expect(order.filter((id) => aIds.includes(id))).toEqual(aIds);
    expect(order.filter((id) => bIds.includes(id))).toEqual(bIds);
    await webhooks.obliterate({ force: true });
  });

  it('one account alone with 40 deliveries and 2 slots: 38 are parked as enqueued, each delivered with a freed slot, none taken to be refused, none twice', async () => {
    const healthy = await receiver();
    const config = loadConfig({
      REDIS_PREFIX: t.redis.prefix,
      WEBHOOK_ENCRYPTION_KEY: t.webhookEncryptionKey,
      WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32',
      WEBHOOK_ACCOUNT_CONCURRENCY: '2',
    });
    const gate = new DeliveryGate(
      t.redis.redis,
      {
        inFlight: t.redis.keys.webhookInFlight,
        circuit: t.redis.keys.webhookCircuit,
        parked: t.redis.keys.webhookParked,
        wakes: t.redis.keys.webhookWakes,
      },
      config.webhooks.fairness,
      config.webhooks.timeoutMs + 5_000,
    );
    const sub = await subscription('enterprise', healthy.url);
    const ids = await pending(sub, 40);
    await enqueueDeliveries({ db: t.database.db, webhooks, gate }, ids);
    // The two given a slot run first (they hold it); the rest sleep.
    const counts = await webhooks.getJobCounts('delayed', 'prioritized', 'wait');
    expect(counts).toEqual({ delayed: 38, prioritized: 0, wait: 2 });

    const pipeline = await startTestWorkers(testResources(t.database, t.redis), config, pino({ level: 'silent' }));
    try {
      // Parked deliveries sleep PARKED_SLEEP_MS (60 s) if no slot wakes them: all 40 well before that.
      await until(
        async () => healthy.count(),
        (n) => n >= 40,
        45_000,
        'the 40 deliveries',
      );
      expect(healthy.most()).toBeLessThanOrEqual(2);
      const succeeded = async () =>
        Number(
          (
            await t.database.db
              .selectFrom('webhook_deliveries')
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .where('id', 'in', ids)
              .where('status', '=', 'succeeded')
              .executeTakeFirstOrThrow()
          ).n,
        );
      await until(succeeded, (n) => n >= 40, 45_000, 'the 40 deliveries recorded');
      const rows = await t.database.db.selectFrom('webhook_deliveries').select(['status', 'attempts']).where('id', 'in', ids).execute();
      expect(rows.map((r) => `${r.status}/${r.attempts}`)).toEqual(ids.map(() => 'succeeded/1'));
      // A parked delivery is sent by the job holding the slot handed to it (its own job then removed),
      // or by its own job, woken: taken once, never only to be refused by its account's slots.
      const jobs = await Promise.all(ids.map((id) => webhooks.getJob(jobIdOf(JOB.webhookDeliver, { deliveryId: id })!)));
      const kept = jobs.filter((j) => j !== undefined);
      expect(kept.map((j) => j.attemptsStarted)).toEqual(kept.map(() => 1));
      expect(kept.length).toBeLessThan(40);
      expect(healthy.count()).toBe(40);
    } finally {
      await pipeline.close();
      await healthy.close();
    }
  });

  it('a parked delivery carried by another job and failing makes MAX_ATTEMPTS POSTs in all, not one more (security review)', async () => {
    // Answers 500 to the one event, 204 to the others; counts POSTs by webhook-id.
    const posts = new Map<string, number>();
    let failing = '';
    const server = http.createServer((req, res) => {
      const id = String(req.headers['webhook-id'] ?? '');
      posts.set(id, (posts.get(id) ?? 0) + 1);
      req.resume();
      req.on('end', () => res.writeHead(id === failing ? 500 : 204).end());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/hook`;
    const loaded = loadConfig({
      REDIS_PREFIX: t.redis.prefix,
      WEBHOOK_ENCRYPTION_KEY: t.webhookEncryptionKey,
      WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32',
      WEBHOOK_ACCOUNT_CONCURRENCY: '1',
      WEBHOOK_RETRY_SCALE: '0.0002',
    });
    // The circuit kept closed: this test counts a delivery's attempts, not how a failing receiver is paced.
    const config = {
      ...loaded,
      webhooks: {
        ...loaded.webhooks,
        fairness: { ...loaded.webhooks.fairness, circuit: { failures: 1_000, openMs: 1_000, maxOpenMs: 1_000 } },
      },
    };
    const gate = new DeliveryGate(
      t.redis.redis,
      {
        inFlight: t.redis.keys.webhookInFlight,
        circuit: t.redis.keys.webhookCircuit,
        parked: t.redis.keys.webhookParked,
        wakes: t.redis.keys.webhookWakes,
      },
      config.webhooks.fairness,
      config.webhooks.timeoutMs + 5_000,
    );
    const sub = await subscription('enterprise', url);
    // The first holds the account's one slot and is delivered; the second, parked, is carried by its job.
    const [first, carried] = await pending(sub, 2);
    const rows = await t.database.db
      .selectFrom('webhook_deliveries')
      .select(['id', 'event_id'])
      .where('id', 'in', [first!, carried!])
      .execute();
    failing = rows.find((r) => r.id === carried)!.event_id;
    await enqueueDeliveries({ db: t.database.db, webhooks, gate }, [first!, carried!]);
    const pipeline = await startTestWorkers(testResources(t.database, t.redis), config, pino({ level: 'silent' }));
    try {
      const status = async () =>
        await t.database.db
          .selectFrom('webhook_deliveries')
          .select(['status', 'attempts'])
          .where('id', '=', carried!)
          .executeTakeFirstOrThrow();
      const done = await until(status, (r) => r.status === 'failed', 60_000, 'the failing delivery to give up');
      expect(done.attempts).toBe(MAX_ATTEMPTS);
      expect(posts.get(failing)).toBe(MAX_ATTEMPTS);
    } finally {
      await pipeline.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
