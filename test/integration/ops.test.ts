import { Writable } from 'node:stream';
import { Queue } from 'bullmq';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/api-keys/api-key.repository.js';
import { buildTestApp } from '../support/app.js';
import { createLogger } from '../../src/logger.js';
import { QUEUES } from '../../src/queue/queue-names.js';
import { createRedis } from '../../src/redis/connection.js';
import { StepQueue } from '../../src/research/step-queue.js';
import { startRun } from '../../src/research/start-run.js';
import type { TestDatabase } from '../support/database.js';
import { startWorkerProcess, until } from '../support/pipeline.js';
import type { TestRedis } from '../support/redis.js';
import { createTestStack, type TestStack } from '../support/stack.js';

let database: TestDatabase;
let redis: TestRedis;
let stack: TestStack;

beforeAll(async () => {
  stack = await createTestStack();
  ({ database, redis } = stack);
});
afterAll(() => stack?.close());

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, stream };
}

describe('overload', () => {
  it('sheds load with a 503 problem and Retry-After when the event loop lags', async () => {
    const app = await buildTestApp({ database, redis }, { overloadMaxEventLoopDelayMs: 50, overloadSampleIntervalMs: 100 });
    await app.ready();
    // Building the app lags the loop too: wait until it is calm, then make it lag.
    await until(
      async () => (await app.inject({ url: '/healthz' })).statusCode,
      (s) => s === 200,
      60_000,
      'a calm event loop',
    );
    // Every route sheds, the health routes included (their own 503 body has another shape: both must serialise).
    for (const url of ['/healthz', '/readyz']) {
      // The sample taken right after a lag (every 100 ms) flags it until the next calm sample.
      // On a busy machine that window can close before a request gets through, so lag again.
      let res = await app.inject({ url });
      for (let storm = 0; storm < 5 && res.statusCode < 500; storm += 1) {
        const blockUntil = Date.now() + 600;
        while (Date.now() < blockUntil) {
          // block the event loop, as a CPU storm would
        }
        res = await app.inject({ url });
        for (let i = 0; i < 40 && res.statusCode < 500; i += 1) {
          await new Promise((r) => setTimeout(r, 5));
          res = await app.inject({ url });
        }
      }
      expect(res.statusCode, url).toBe(503);
      expect(res.headers['retry-after'], url).toBe('5');
      expect(res.headers['content-type'], url).toMatch(/problem\+json/);
      expect(res.json(), url).toMatchObject({ type: '/problems/unavailable', status: 503 });
    }
    await app.close();
  });
});

describe('logs', () => {
  it('never contain an API key or a webhook secret, but name the key by its id', async () => {
    const { lines, stream } = capture();
    const logger = createLogger('debug', stream);
    const app = await buildTestApp({ database, redis, logger }, { overloadMaxEventLoopDelayMs: 0 });
    await app.ready();
    const { key, id } = await createApiKey(database.db, 'log test', 'free');
    await app.inject({ url: '/api/insights?limit=1', headers: { authorization: `Bearer ${key}` } });
    await app.inject({ url: '/api/nope', headers: { authorization: `Bearer ${key}` } });
    await app.inject({ url: '/api/insights?limit=abc', headers: { authorization: `Bearer ${key}x` } });
    logger.info(
      { req: { headers: { authorization: `Bearer ${key}` } }, secret: 'whsec_c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0', apiKey: key },
      'an object carrying secrets',
    );
    await app.close();
    const all = lines.join('');
    expect(lines.length).toBeGreaterThan(3);
    expect(all).not.toContain(key.slice(4));
    expect(all).not.toContain('whsec_');
    expect(all).toContain('[redacted]');
    const requestLine = lines
      .map((l) => JSON.parse(l) as { msg: string; url?: string; key_id?: string })
      .find((l) => l.msg === 'request' && l.url === '/api/insights?limit=[redacted]');
    expect(requestLine?.key_id).toBe(id);
  });
});

describe('graceful shutdown', () => {
  it('SIGTERM lets active research steps finish; a new worker completes every run, nothing lost or doubled', async () => {
    const queue = new Queue(QUEUES.research, {
      connection: createRedis(redis.url, 'worker'),
      prefix: redis.keys.queuePrefix(QUEUES.research),
    });
    const stepQueue = new StepQueue(queue);
    for (let i = 0; i < 8; i += 1)
      await startRun(database.db, stepQueue, {
        idea: `Graceful shutdown idea ${i}`,
        hints: [],
        provider: 'synthetic',
        source: 'synthetic',
      });
    const env = { ...stack.env, RESEARCH_CONCURRENCY: '2' };
    const done = async () =>
      Number((await sql<{ n: string }>`select count(*) as n from research_steps where status = 'done'`.execute(database.db)).rows[0]!.n);

    const first = startWorkerProcess(env);
    await until(done, (n) => n >= 40, 60_000, 'some steps');
    first.kill('SIGTERM');
    const code = await new Promise<number | null>((r) => first.once('exit', (c) => r(c)));
    expect(code).toBe(0);
    const failedAttempts = await database.db.selectFrom('research_steps').select('step').where('status', '=', 'failed').execute();
    expect(failedAttempts).toHaveLength(0); // closing did not break an active step

    const second = startWorkerProcess(env);
    try {
      await until(
        () => database.db.selectFrom('research_runs').select('status').execute(),
        (rows) => rows.every((r) => r.status === 'succeeded'),
        60_000,
        'all runs',
      );
    } finally {
      second.kill('SIGTERM');
      await new Promise((r) => second.once('exit', r));
    }
    expect(await done()).toBe(8 * 40);
    await queue.close();
  }, 120_000);
});
