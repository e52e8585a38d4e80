// kill -9 of the worker process while a delivery is in flight loses nothing:
// a new worker delivers the same event (same webhook-id) once the dead worker's lock expires.
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids.js';
import { upsertInsight } from '../../src/insights/insight.repository.js';
import { QUEUES } from '../../src/queue/queue-names.js';
import { createRedis } from '../../src/redis/connection.js';
import { runCli } from '../support/cli.js';
import type { TestDatabase } from '../support/database.js';
import { dimensionsWith } from '../support/fixtures.js';
import { startWorkerProcess, until } from '../support/pipeline.js';
import type { TestRedis } from '../support/redis.js';
import { createTestStack, type TestStack } from '../support/stack.js';
import { enqueue } from '../../src/queue/enqueue.js';
import { JOB } from '../../src/queue/job-catalogue.js';

let database: TestDatabase;
let redis: TestRedis;
let stack: TestStack;
let env: Record<string, string>;

beforeAll(async () => {
  stack = await createTestStack();
  ({ database, redis } = stack);
  env = {
    ...stack.env,
    WEBHOOK_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32',
    JOB_LOCK_MS: '2000',
  };
});
afterAll(() => stack?.close());

describe('webhook delivery survives kill -9', () => {
  it('redelivers the in-flight event after the worker dies', async () => {
    const ids: string[] = [];
    let first = true;
    const server = http.createServer((req, res) => {
      ids.push(String(req.headers['webhook-id']));
      req.resume();
      if (first) {
        first = false;
        return; // hold the first request open: the worker dies while waiting for it
      }
      res.writeHead(200).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`;
    const sub = await runCli(['webhooks', 'add', '--url', url, '--keyword', 'harp', '--json'], env);
    expect(sub.code, sub.stderr).toBe(0);

    const insightId = newId('insight');
    await upsertInsight(database.db, {
      id: insightId,
      idea_key: 'harp tuning app',
      title: 'Harp tuning app',
      idea: 'Harp tuning app',
      primary_keyword: 'harp',
      keywords: ['harp'],
      category: 'arts-entertainment',
      source: 'research',
      overall_score: 0.6,
      confidence: 0.5,
      dimensions: dimensionsWith(0.6),
      summary: '',
      status: 'active',
    });
    const eventId = newId('event');
    await database.db
      .insertInto('outbox_events')
      .values({ id: eventId, type: 'insight.created', insight_id: insightId, payload: '{}' })
      .execute();
    const queue = new Queue(QUEUES.webhooks, {
      connection: createRedis(redis.url, 'worker'),
      prefix: redis.keys.queuePrefix(QUEUES.webhooks),
    });
    await enqueue(queue, JOB.webhookMatch, { eventId });

    const worker = startWorkerProcess(env);
    await until(
      async () => ids.length,
      (n) => n >= 1,
      60_000,
      'the first (held) request',
    );
    worker.kill('SIGKILL');
    await new Promise((r) => worker.once('exit', r));

    const second = startWorkerProcess(env);
    try {
      await until(
        () => database.db.selectFrom('webhook_deliveries').select('status').where('event_id', '=', eventId).executeTakeFirstOrThrow(),
        (d) => d.status === 'succeeded',
        30_000,
        'the redelivery',
      );
    } finally {
      second.kill('SIGTERM');
      await new Promise((r) => second.once('exit', r));
    }
    expect(ids.length).toBeGreaterThanOrEqual(2);
    expect(new Set(ids)).toEqual(new Set([eventId])); // at-least-once, deduplicable by webhook-id
    await queue.close();
    server.closeAllConnections();
    server.close();
  }, 180_000);
});
