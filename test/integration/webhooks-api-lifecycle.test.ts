// The whole life of a subscription a client manages itself, through HTTP only
// (/api/webhooks with a webhooks:write key), against the real pipeline: a
// research run makes the insight, the workers match and deliver it, and a
// loopback receiver verifies every request with the reference Standard
// Webhooks library (standardwebhooks). A second account, subscribed to the
// same insights, sees none of the first one's subscription; its deliveries
// also tell when the pipeline has matched an event (its receiver got it), so
// "nothing arrived" is asserted after the event that would have caused it.
import http from 'node:http';
import { pino } from 'pino';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { StepQueue } from '../../src/research/step-queue.js';
import { startRun } from '../../src/research/start-run.js';
import type { Pipeline } from '../../src/runtime/workers.js';
import { startTestWorkers } from '../support/services.js';
import { bearer, createTestApp, type TestApp } from '../support/app.js';
import { until } from '../support/pipeline.js';
import { testResources } from '../support/redis.js';

interface Received {
  id: string;
  type: string;
  insightId: string | undefined;
  /** Indexes (into the receiver's secrets) of the secrets the signature verified with. */
  verifiedBy: number[];
  status: number;
}

/** A receiver that verifies with every secret it was given; `statusFor` answers each request (default 200). */
function receiver() {
  const secrets: string[] = [];
  const received: Received[] = [];
  let statusFor: (n: number) => number = () => 200;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const verifiedBy = secrets.flatMap((secret, i) => {
        try {
          new Webhook(secret).verify(body, req.headers as Record<string, string>);
          return [i];
        } catch {
          return [];
        }
      });
      const parsed = JSON.parse(body) as { type: string; data: { id?: string } };
      const status = verifiedBy.length > 0 ? statusFor(received.length + 1) : 400;
      received.push({ id: String(req.headers['webhook-id']), type: parsed.type, insightId: parsed.data.id, verifiedBy, status });
      res.writeHead(status).end();
    });
  });
  return new Promise<{
    url: string;
    secrets: string[];
    received: Received[];
    answer: (fn: (n: number) => number) => void;
    close: () => void;
  }>((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hooks`,
        secrets,
        received,
        answer: (fn) => (statusFor = fn),
        close: () => server.close(),
      }),
    ),
  );
}

let t: TestApp;
let pipeline: Pipeline;

beforeAll(async () => {
  t = await createTestApp({ cacheTtlSeconds: 0, webhookAllowedCidrs: ['127.0.0.1/32'] });
  const config = loadConfig({
    REDIS_PREFIX: t.redis.prefix,
    WEBHOOK_ENCRYPTION_KEY: t.webhookEncryptionKey,
    WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32',
    WEBHOOK_RETRY_SCALE: '0.0002', // 5 s → 1 ms: the schedule's shape, in test time
    WEBHOOK_TIMEOUT_MS: '1500',
  });
  pipeline = await startTestWorkers(testResources(t.database, t.redis), config, pino({ level: 'silent' }));
});
afterAll(async () => {
  await pipeline?.close();
  await t?.close();
});

/** A research run, as an operator starts one: the insight it makes is announced to the webhooks. */
async function research(idea: string): Promise<string> {
  const run = await startRun(t.database.db, new StepQueue(pipeline.queues.research), {
    idea,
    hints: [],
    provider: 'synthetic',
    source: 'synthetic',
  });
  const done = await until(
    () => t.database.db.selectFrom('research_runs').selectAll().where('id', '=', run.id).executeTakeFirstOrThrow(),
    (r) => r.status === 'succeeded' || r.status === 'failed',
    90_000,
    `the run for "${idea}"`,
  );
  expect(done.status, done.error ?? '').toBe('succeeded');
  return done.insight_id!;
}

const KEYWORDS = ['cello', 'banjo', 'sitar', 'zither', 'ukulele'];

describe('a subscription managed through /api/webhooks', () => {
  it('lives its whole life over HTTP, and another account sees none of it', async () => {
    const a = await t.webhookKey('pro');
    const b = await t.webhookKey('pro');
    const mine = await receiver();
    const theirs = await receiver();
    const api = (key: string, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, body?: unknown) =>
      t.app.inject({
        method,
        url,
        headers: body === undefined ? bearer(key) : { ...bearer(key), 'content-type': 'application/json' },
        ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
      });

    // Create: the secret comes once, in this answer.
    const created = await api(a.key, 'POST', '/api/webhooks', { url: mine.url, keywords: KEYWORDS });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().data.id as string;
    mine.secrets.push(created.json().data.secret);
    const other = await api(b.key, 'POST', '/api/webhooks', { url: theirs.url, keywords: KEYWORDS });
    expect(other.statusCode, other.body).toBe(201);
    theirs.secrets.push(other.json().data.secret);

    // A test event, signed.
    const ping = await api(a.key, 'POST', `/api/webhooks/${id}/test`);
    expect(ping.statusCode, ping.body).toBe(202);
    await until(
      async () => mine.received.length,
      (n) => n >= 1,
      60_000,
      'the ping',
    );
    expect(mine.received[0]).toMatchObject({ type: 'ping', id: ping.json().data.event_id, verifiedBy: [0] });

    // A real matching insight: the receiver answers 500 once, and the retry carries the same webhook-id.
    mine.answer((n) => (n === 2 ? 500 : 200));
    const cello = await research('Cello lessons marketplace');
    await until(
      async () => mine.received.filter((r) => r.insightId === cello).length,
      (n) => n >= 2,
      60_000,
      'the delivery and its retry',
    );
    const celloDeliveries = mine.received.filter((r) => r.insightId === cello);
    expect(celloDeliveries.map((r) => r.status)).toEqual([500, 200]);
    expect(new Set(celloDeliveries.map((r) => r.id)).size).toBe(1);
    expect(celloDeliveries.every((r) => r.type === 'insight.created' && r.verifiedBy.length === 1)).toBe(true);
    const log = await until(
      async () =>
        (await api(a.key, 'GET', `/api/webhooks/${id}/deliveries`)).json().data as Array<{
          id: string;
          event_id: string;
          status: string;
          attempts: number;
          last_status_code: number;
        }>,
      (rows) => rows.some((d) => d.event_id === celloDeliveries[0]!.id && d.status === 'succeeded'),
      60_000,
      'the delivery log to say succeeded',
    );
    const celloDelivery = log.find((d) => d.event_id === celloDeliveries[0]!.id)!;
    expect(celloDelivery).toMatchObject({ attempts: 2, last_status_code: 200 });

    // Disabled: the next matching insight reaches the other account's receiver, not this one.
    const disabled = await api(a.key, 'PATCH', `/api/webhooks/${id}`, { enabled: false });
    expect(disabled.json().data.enabled).toBe(false);
    const seenBefore = mine.received.length;
    const banjo = await research('Banjo tuning app');
    await until(
      async () => theirs.received.some((r) => r.insightId === banjo),
      (seen) => seen,
      60_000,
      "the other account's delivery of the banjo insight",
    );
    expect(mine.received.length).toBe(seenBefore);

    // Enabled again: deliveries resume.
    expect((await api(a.key, 'PATCH', `/api/webhooks/${id}`, { enabled: true })).json().data.enabled).toBe(true);
    const sitar = await research('Sitar repair service');
    await until(
      async () => mine.received.some((r) => r.insightId === sitar),
      (seen) => seen,
      60_000,
      'the sitar insight after re-enabling',
    );

    // Rotated: during the overlap every delivery verifies with the old secret and with the new one.
    const rotated = await api(a.key, 'POST', `/api/webhooks/${id}/rotate`, { overlap_hours: 1 });
    expect(rotated.statusCode, rotated.body).toBe(200);
    mine.secrets.push(rotated.json().data.secret);
    const afterRotation = await api(a.key, 'POST', `/api/webhooks/${id}/test`);
    await until(
      async () => mine.received.some((r) => r.id === afterRotation.json().data.event_id),
      (seen) => seen,
      60_000,
      'the ping after rotation',
    );
    expect(mine.received.find((r) => r.id === afterRotation.json().data.event_id)!.verifiedBy).toEqual([0, 1]);
    expect((await api(a.key, 'GET', `/api/webhooks/${id}`)).json().data.previous_secret_expires_at).not.toBeNull();

    // Replay: one delivery, then a window; the same webhook-id as the first time.
    const count = (eventId: string) => mine.received.filter((r) => r.id === eventId).length;
    const celloEvent = celloDeliveries[0]!.id;
    const before = count(celloEvent);
    const one = await api(a.key, 'POST', `/api/webhooks/${id}/deliveries/${celloDelivery.id}/replay`);
    expect(one.statusCode, one.body).toBe(202);
    await until(
      async () => count(celloEvent),
      (n) => n === before + 1,
      60_000,
      'the replayed delivery',
    );
    const replayedAt = mine.received.filter((r) => r.id === celloEvent).at(-1)!;
    expect(replayedAt.verifiedBy).toEqual([0, 1]);
    const window = await api(a.key, 'POST', `/api/webhooks/${id}/replay`, { since: new Date(Date.now() - 3600_000).toISOString() });
    expect(window.statusCode, window.body).toBe(202);
    const windowIds = window.json().data.replayed as string[];
    expect(windowIds).toContain(celloDelivery.id);
    const total = mine.received.length;
    await until(
      async () => mine.received.length,
      (n) => n >= total + windowIds.length,
      60_000,
      'every delivery of the window again',
    );
    expect(count(celloEvent)).toBe(before + 2);

    // The other account's key sees none of it.
    expect((await api(b.key, 'GET', '/api/webhooks')).json().data.map((s: { id: string }) => s.id)).toEqual([other.json().data.id]);
    for (const url of [`/api/webhooks/${id}`, `/api/webhooks/${id}/deliveries`])
      expect((await api(b.key, 'GET', url)).statusCode).toBe(404);
    expect((await api(b.key, 'POST', `/api/webhooks/${id}/deliveries/${celloDelivery.id}/replay`)).statusCode).toBe(404);
    expect((await api(b.key, 'DELETE', `/api/webhooks/${id}`)).statusCode).toBe(404);

    // Deleted: gone for its owner too, and the next matching insight reaches only the other account.
    expect((await api(a.key, 'DELETE', `/api/webhooks/${id}`)).statusCode).toBe(204);
    expect((await api(a.key, 'GET', `/api/webhooks/${id}`)).statusCode).toBe(404);
    expect((await api(a.key, 'GET', '/api/webhooks')).json().data).toEqual([]);
    const seenAtDelete = mine.received.length;
    const zither = await research('Zither sheet music shop');
    await until(
      async () => theirs.received.some((r) => r.insightId === zither),
      (seen) => seen,
      60_000,
      "the other account's delivery of the zither insight",
    );
    expect(mine.received.length).toBe(seenAtDelete);
    expect(theirs.received.every((r) => r.verifiedBy.length === 1)).toBe(true);

    mine.close();
    theirs.close();
  }, 300_000);
});
