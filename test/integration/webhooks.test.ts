// Webhooks end to end: a subscription made with the CLI, a real research run,
// and a loopback receiver that verifies every request with the reference
// Standard Webhooks library (standardwebhooks) and rejects bad ones.
import { UnrecoverableError } from 'bullmq';
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { BACKTEST } from '../../src/domain/scoring/backtest-results.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StepQueue } from '../../src/research/step-queue.js';
import { startRun } from '../../src/research/start-run.js';
import type { Pipeline } from '../../src/runtime/workers.js';
import { send } from '../../src/webhooks/sender.js';
import { runCli } from '../support/cli.js';
import type { TestDatabase } from '../support/database.js';
import { until } from '../support/pipeline.js';
import { createTestStack, type TestStack } from '../support/stack.js';

interface Received {
  id: string;
  verified: boolean;
  body: { type: string; data: { id?: string; trend_class?: string | null; trend_class_hit_rate?: number | null } };
  /** When it arrived (performance.now()). */
  at: number;
}

let database: TestDatabase;
let pipeline: Pipeline;
let env: Record<string, string>;
let stack: TestStack;
const encryptionKey = randomBytes(32).toString('base64');

/** A receiver that verifies with standardwebhooks; `script` decides the status per request. */
function receiver(secret: () => string, script: (n: number) => number = () => 200) {
  const received: Received[] = [];
  let n = 0;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      let verified = false;
      try {
        new Webhook(secret()).verify(body, req.headers as Record<string, string>);
        verified = true;
      } catch {
        verified = false;
      }
      received.push({ id: String(req.headers['webhook-id']), verified, body: JSON.parse(body), at: performance.now() });
      n += 1;
      res.writeHead(verified ? script(n) : 400).end();
    });
  });
  return new Promise<{ url: string; received: Received[]; server: http.Server; port: number }>((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      resolve({ url: `http://127.0.0.1:${port}/hook`, received, server, port });
    }),
  );
}

beforeAll(async () => {
  stack = await createTestStack({
    env: {
      WEBHOOK_ENCRYPTION_KEY: encryptionKey,
      WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32',
      WEBHOOK_RETRY_SCALE: '0.0002', // 5 s → 1 ms, 5 min → 60 ms: the schedule's shape, in test time
      WEBHOOK_TIMEOUT_MS: '1500',
    },
    workers: true,
  });
  ({ database, env } = stack);
  pipeline = stack.pipeline!;
});
afterAll(() => stack.close());

async function subscribe(url: string, extra: string[] = []): Promise<{ id: string; secret: string }> {
  const result = await runCli(['webhooks', 'add', '--url', url, '--json', ...extra], env);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout);
}

async function research(idea: string) {
  const run = await startRun(database.db, new StepQueue(pipeline.queues.research), {
    idea,
    hints: [],
    provider: 'synthetic',
    source: 'synthetic',
  });
  return until(
    () => database.db.selectFrom('research_runs').selectAll().where('id', '=', run.id).executeTakeFirstOrThrow(),
    (r) => r.status === 'succeeded',
    60_000,
    'the run',
  );
}

describe('webhooks', () => {
  it('delivers signed insight.created events that the reference library verifies', async () => {
    let secret = '';
    const r = await receiver(() => secret);
    const sub = await subscribe(r.url, ['--source', 'synthetic']);
    secret = sub.secret;
    expect(sub.secret).toMatch(/^whsec_/);
    const stored = await database.db.selectFrom('webhook_subscriptions').selectAll().where('id', '=', sub.id).executeTakeFirstOrThrow();
    expect(JSON.stringify(stored)).not.toContain(sub.secret.slice(6));

    const run = await research('Webhook test idea for plant lovers');
    await until(
      async () => r.received.length,
      (n) => n >= 1,
      60_000,
      'a delivery',
    );
    const [got] = r.received;
    expect(got!.verified).toBe(true);
    expect(got!.body.type).toBe('insight.created');
    expect(got!.body.data.id).toBe(run.insight_id);
    // The body says the trend class and how often its claim came true (published at /api/methodology).
    const insight = await database.db
      .selectFrom('insights')
      .select('trend_class')
      .where('id', '=', run.insight_id!)
      .executeTakeFirstOrThrow();
    expect(insight.trend_class).not.toBeNull();
    expect(got!.body.data.trend_class).toBe(insight.trend_class);
    expect(got!.body.data.trend_class_hit_rate).toBe(BACKTEST.trendClasses[insight.trend_class!].hit_rate);
    const event = await database.db
      .selectFrom('outbox_events')
      .select('id')
      .where('insight_id', '=', run.insight_id!)
      .executeTakeFirstOrThrow();
    expect(got!.id).toBe(event.id);
    r.server.close();
  }, 180_000);

  it('retries a receiver that answers 500 twice, with the same webhook-id each time', async () => {
    let secret = '';
    const r = await receiver(
      () => secret,
      (n) => (n <= 2 ? 500 : 200),
    );
    const sub = await subscribe(r.url, ['--keyword', 'violin']);
    secret = sub.secret;
    await research('Violin lessons marketplace');
    await until(
      async () => r.received.length,
      (n) => n >= 3,
      60_000,
      'three attempts',
    );
    expect(new Set(r.received.map((x) => x.id)).size).toBe(1);
    expect(r.received.every((x) => x.verified)).toBe(true);
    const delivery = await database.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('event_id', '=', r.received[0]!.id)
      .where('subscription_id', '=', sub.id)
      .executeTakeFirstOrThrow();
    await until(
      async () =>
        (await database.db.selectFrom('webhook_deliveries').select('status').where('id', '=', delivery.id).executeTakeFirstOrThrow())
          .status,
      (s) => s === 'succeeded',
      60_000,
      'success',
    );
    const attempts = await database.db
      .selectFrom('webhook_attempts')
      .selectAll()
      .where('delivery_id', '=', delivery.id)
      .orderBy('attempt')
      .execute();
    expect(attempts.map((a) => a.status_code)).toEqual([500, 500, 200]);
    // The schedule as documented: the first retry after about 5 s, the second after about 5 min (here × 0.0002: 1 ms, then 60 ms; jitter ±10 %).
    expect(r.received[2]!.at - r.received[1]!.at).toBeGreaterThanOrEqual(0.9 * 300_000 * 0.0002);
    r.server.close();
  }, 180_000);

  it('delivers every event to a receiver that was down and came back', async () => {
    let secret = '';
    const r = await receiver(() => secret);
    secret = (await subscribe(r.url, ['--keyword', 'kayak'])).secret;
    await new Promise<void>((resolve) => r.server.close(() => resolve()));
    await research('Kayak rental app');
    await research('Kayak repair service');
    // Let a few attempts fail against the closed port, then bring the receiver back on it.
    await until(
      () => database.db.selectFrom('webhook_attempts').select('delivery_id').execute(),
      (rows) => rows.length >= 8,
      60_000,
      'failed attempts',
    );
    r.server.listen(r.port, '127.0.0.1');
    await until(
      async () => new Set(r.received.map((x) => x.id)).size,
      (n) => n === 2,
      60_000,
      'both events after the receiver came back',
    );
    expect(r.received.every((x) => x.verified)).toBe(true);
    r.server.close();
  }, 180_000);

  it("holds a suspended account's deliveries without spending attempts, and sends them after resume", async () => {
    let secret = '';
    const r = await receiver(() => secret);
    const account = await runCli(['accounts', 'create', '--name', 'webhook owner', '--plan', 'pro', '--json'], env);
    expect(account.code, account.stderr).toBe(0);
    const accountId = JSON.parse(account.stdout).id as string;
    const sub = await subscribe(r.url, ['--keyword', 'oboe', '--account', accountId]);
    secret = sub.secret;
    expect((await runCli(['accounts', 'suspend', accountId], env)).code).toBe(0);

    await research('Oboe reed subscription box');
    const { jobIdOf } = await import('../../src/queue/enqueue.js');
    const { JOB } = await import('../../src/queue/job-catalogue.js');
    const delivery = await until(
      () => database.db.selectFrom('webhook_deliveries').selectAll().where('subscription_id', '=', sub.id).executeTakeFirst(),
      (d) => d !== undefined,
      60_000,
      'the delivery to be planned',
    );
    // Held: its job looked, found the account suspended and went back to sleep.
    await until(
      async () => (await pipeline.queues.webhooks.getJob(jobIdOf(JOB.webhookDeliver, { deliveryId: delivery!.id })!))?.getState(),
      (s) => s === 'delayed',
      60_000,
      'the delivery to be held',
    );
    expect(r.received).toHaveLength(0);
    const held = await database.db
      .selectFrom('webhook_deliveries')
      .select('status')
      .where('id', '=', delivery!.id)
      .executeTakeFirstOrThrow();
    expect(held.status).toBe('pending');
    expect(
      await database.db.selectFrom('webhook_attempts').select('delivery_id').where('delivery_id', '=', delivery!.id).execute(),
    ).toHaveLength(0);

    const resumed = await runCli(['accounts', 'resume', accountId], env);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toMatch(/1 held webhook deliveries released/);
    await until(
      async () => r.received.length,
      (n) => n >= 1,
      60_000,
      'the held delivery after resume',
    );
    expect(r.received[0]!.verified).toBe(true);
    expect(r.received[0]!.body.type).toBe('insight.created');
    r.server.close();
  }, 180_000);

  it('disables the subscription on 410 Gone', async () => {
    let secret = '';
    const r = await receiver(
      () => secret,
      () => 410,
    );
    const sub = await subscribe(r.url, ['--keyword', 'tuba']);
    secret = sub.secret;
    await research('Tuba sheet music app');
    await until(
      () => database.db.selectFrom('webhook_subscriptions').select('state').where('id', '=', sub.id).executeTakeFirstOrThrow(),
      (s) => s.state === 'disabled',
      60_000,
      'the subscription to be disabled',
    );
    r.server.close();
  }, 180_000);

  it('refuses a hostname that resolves to a private address unless allowed', async () => {
    const r = await receiver(() => 'whsec_' + Buffer.alloc(24).toString('base64'));
    const url = `http://localhost:${r.port}/hook`;
    const blocked = await send(
      url,
      { id: 'evt_x', body: '{}', secrets: ['whsec_' + Buffer.alloc(24).toString('base64')] },
      { allowPrivate: false, allowedCidrs: [] },
    );
    expect(blocked.statusCode).toBeNull();
    expect(blocked.error).toMatch(/resolves to a blocked address.*loopback/);
    expect(r.received).toHaveLength(0);
    const literal = await send(
      `http://127.0.0.1:${r.port}/`,
      { id: 'e', body: '{}', secrets: [] },
      { allowPrivate: false, allowedCidrs: [] },
    );
    expect(literal.error).toMatch(/loopback address/);
    const allowed = await send(
      url,
      { id: 'evt_y', body: '{}', secrets: ['whsec_' + Buffer.alloc(24).toString('base64')] },
      { allowPrivate: true, allowedCidrs: [] },
    );
    expect(allowed.statusCode).toBe(200);
    r.server.close();
  });

  it('refuses at registration a URL the address guard would refuse, and says how to allow it', async () => {
    const refused = await runCli(['webhooks', 'add', '--url', 'http://127.0.0.2:8080/hook'], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /would be refused: refusing to connect to 127\.0\.0\.2 \(loopback address\); the operator may allow it with WEBHOOK_ALLOWED_CIDRS or WEBHOOK_ALLOW_PRIVATE=true/,
    );
    const metadata = await runCli(['webhooks', 'add', '--url', 'http://169.254.169.254/latest/meta-data'], {
      ...env,
      WEBHOOK_ALLOW_PRIVATE: 'true',
    });
    expect(metadata.code).toBe(2);
    expect(metadata.stderr).toMatch(/metadata address/);
    const allowed = await runCli(['webhooks', 'add', '--url', 'http://127.0.0.2:8080/hook', '--json'], {
      ...env,
      WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8',
    });
    expect(allowed.code, allowed.stderr).toBe(0);
    await runCli(['webhooks', 'remove', JSON.parse(allowed.stdout).id], env);
  });

  it('a delivery the address policy refuses fails at once with the reason, without retries', async () => {
    const { webhookDeliverProcessor } = await import('../../jobs/webhook-deliver.job.js');
    const { SecretBox } = await import('../../src/webhooks/secret-box.js');
    const { newId } = await import('../../src/domain/ids.js');
    const sub = await subscribe('http://127.0.0.1:9/refused', ['--event', 'ping']);
    const eventId = newId('event');
    const deliveryId = newId('delivery');
    await database.db.insertInto('outbox_events').values({ id: eventId, type: 'ping', insight_id: null, payload: '{}' }).execute();
    await database.db
      .insertInto('webhook_deliveries')
      .values({ id: deliveryId, event_id: eventId, subscription_id: sub.id, status: 'pending' })
      .execute();
    // The operator narrowed the allow-list after the subscription was made.
    const deliver = webhookDeliverProcessor({
      db: database.db,
      box: new SecretBox(Buffer.from(encryptionKey, 'base64')),
      policy: { allowPrivate: false, allowedCidrs: [] },
      baseUrl: 'http://x',
      disableAfterMs: 3_600_000,
    });
    await expect(deliver({ data: { deliveryId }, attemptsMade: 0, opts: { attempts: 8 } } as never)).rejects.toThrow(UnrecoverableError);
    const row = await database.db.selectFrom('webhook_deliveries').selectAll().where('id', '=', deliveryId).executeTakeFirstOrThrow();
    expect(row.status).toBe('failed');
    expect(row.last_error).toMatch(/refusing to connect to 127\.0\.0\.1 \(loopback address\)/);
    expect(await database.db.selectFrom('webhook_attempts').select('attempt').where('delivery_id', '=', deliveryId).execute()).toHaveLength(
      1,
    );
    await runCli(['webhooks', 'remove', sub.id], env);
  });

  it('a receiver that answers 200 and then trickles its body frees the slot at the deadline; the retry keeps the webhook-id', async () => {
    const seen: string[] = [];
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        seen.push(String(req.headers['webhook-id']));
        res.writeHead(200, { 'content-length': '100000' });
        if (seen.length > 1) return void res.end('x'.repeat(100_000));
        // First attempt: one byte every 200 ms, for ever (until the sender gives up).
        const drip = setInterval(() => (res.destroyed ? clearInterval(drip) : res.write('x')), 200);
        res.on('close', () => clearInterval(drip));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`;
    const sub = await subscribe(url, ['--event', 'ping']);
    const ping = await runCli(['webhooks', 'test', sub.id], env);
    expect(ping.code, ping.stderr).toBe(0);
    const deliveryId = /delivery (dlv_[0-9a-z]+)/.exec(ping.stdout)![1]!;
    await until(
      () => database.db.selectFrom('webhook_deliveries').select('status').where('id', '=', deliveryId).executeTakeFirstOrThrow(),
      (d) => d.status === 'succeeded',
      60_000,
      'the retried delivery',
    );
    const attempts = await database.db
      .selectFrom('webhook_attempts')
      .selectAll()
      .where('delivery_id', '=', deliveryId)
      .orderBy('attempt')
      .execute();
    expect(attempts[0]!.error).toMatch(/timed out: no complete answer within 1500 ms/);
    expect(attempts[0]!.latency_ms).toBeLessThan(1_500 + 5_000);
    expect(attempts.at(-1)!.status_code).toBe(200);
    expect(new Set(seen).size).toBe(1);
    expect(seen.length).toBeGreaterThanOrEqual(2);
    server.closeAllConnections();
    server.close();
  }, 180_000);

  it.each([
    [['--url', 'ftp://example.com'], /http/],
    [['--url', 'https://example.com', '--category', 'spaceships'], /--category "spaceships" is unknown/],
    [['--url', 'https://example.com', '--min-score', '1.5'], /--min-score must be a number from 0 to 1/],
    [['--url', 'not a url'], /not a URL/],
  ])('refuses bad input %j with exit 2, storing nothing', async (args, message) => {
    const before = (await database.db.selectFrom('webhook_subscriptions').select('id').execute()).length;
    const result = await runCli(['webhooks', 'add', ...args], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(await database.db.selectFrom('webhook_subscriptions').select('id').execute()).toHaveLength(before);
  });
});

describe('webhook operations', () => {
  it('rotates the secret (both verify during the overlap), pings, and replays with the same webhook-id', async () => {
    const verifiers: string[] = [];
    const received: Array<{ id: string; verifiedBy: number[] }> = [];
    const server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const verifiedBy = verifiers.flatMap((s, i) => {
          try {
            new Webhook(s).verify(body, req.headers as Record<string, string>);
            return [i];
          } catch {
            return [];
          }
        });
        received.push({ id: String(req.headers['webhook-id']), verifiedBy });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`;
    const sub = await subscribe(url, ['--event', 'ping']);
    verifiers.push(sub.secret);

    const rotated = await runCli(['webhooks', 'rotate-secret', sub.id, '--json'], env);
    expect(rotated.code, rotated.stderr).toBe(0);
    verifiers.push(JSON.parse(rotated.stdout).secret);

    const ping = await runCli(['webhooks', 'test', sub.id], env);
    expect(ping.code, ping.stderr).toBe(0);
    await until(
      async () => received.length,
      (n) => n >= 1,
      60_000,
      'the ping',
    );
    expect(received[0]!.verifiedBy).toEqual([0, 1]); // old and new secret both sign during the overlap

    const deliveryId = /delivery (dlv_[0-9a-z]+)/.exec(ping.stdout)![1]!;
    const list = await runCli(['webhooks', 'deliveries', '--subscription', sub.id], env);
    expect(list.stdout).toContain(deliveryId);
    const replay = await runCli(['webhooks', 'replay', deliveryId], env);
    expect(replay.code, replay.stderr).toBe(0);
    await until(
      async () => received.length,
      (n) => n >= 2,
      60_000,
      'the replay',
    );
    expect(received[1]!.id).toBe(received[0]!.id);

    const show = await runCli(['webhooks', 'show', sub.id], env);
    expect(show.stdout).toMatch(/previous secret still signs until/);
    expect((await runCli(['webhooks', 'disable', sub.id, '--reason', 'spam complaints'], env)).code).toBe(0);
    expect((await runCli(['webhooks', 'show', sub.id], env)).stdout).toContain('disabled by operator (spam complaints)');
    expect((await runCli(['webhooks', 'enable', sub.id], env)).code).toBe(0);
    expect((await runCli(['webhooks', 'remove', sub.id], env)).code).toBe(0);
    expect((await runCli(['webhooks', 'show', sub.id], env)).code).toBe(2);
    server.close();
  }, 180_000);

  it('disables a subscription that keeps failing past the configured streak', async () => {
    const { webhookDeliverProcessor } = await import('../../jobs/webhook-deliver.job.js');
    const { SecretBox } = await import('../../src/webhooks/secret-box.js');
    const { newId } = await import('../../src/domain/ids.js');
    const sub = await subscribe('http://127.0.0.1:9/unreachable', ['--event', 'ping']);
    await database.db
      .updateTable('webhook_subscriptions')
      .set({ failing_since: new Date(Date.now() - 6 * 24 * 3_600_000) })
      .where('id', '=', sub.id)
      .execute();
    const eventId = newId('event');
    const deliveryId = newId('delivery');
    await database.db.insertInto('outbox_events').values({ id: eventId, type: 'ping', insight_id: null, payload: '{}' }).execute();
    await database.db
      .insertInto('webhook_deliveries')
      .values({ id: deliveryId, event_id: eventId, subscription_id: sub.id, status: 'pending' })
      .execute();
    const deliver = webhookDeliverProcessor({
      db: database.db,
      box: new SecretBox(Buffer.from(encryptionKey, 'base64')),
      policy: { allowPrivate: false, allowedCidrs: ['127.0.0.1/32'] },
      baseUrl: 'http://x',
      disableAfterMs: 5 * 24 * 3_600_000,
    });
    await expect(deliver({ data: { deliveryId }, attemptsMade: 0, opts: { attempts: 8 } } as never)).rejects.toThrow();
    const row = await database.db
      .selectFrom('webhook_subscriptions')
      .select(['state', 'disabled_reason'])
      .where('id', '=', sub.id)
      .executeTakeFirstOrThrow();
    expect(row.state).toBe('disabled');
    expect(row.disabled_reason).toMatch(/failing without a break/);
  });
});
