// Crash safety: 20 runs, `kill -9` of the worker process mid-way, a new worker
// finishes them all; no step is recorded twice and each idea has one insight.
import { Queue } from 'bullmq';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedis } from '../../src/redis/connection.js';
import { StepQueue } from '../../src/research/step-queue.js';
import { startRun } from '../../src/research/start-run.js';
import { QUEUES } from '../../src/queue/queue-names.js';
import type { TestDatabase } from '../support/database.js';
import { startWorkerProcess, until } from '../support/pipeline.js';
import type { TestRedis } from '../support/redis.js';
import { createTestStack, type TestStack } from '../support/stack.js';

let database: TestDatabase;
let redis: TestRedis;
let stack: TestStack;
let queue: Queue;
let env: Record<string, string>;
const connection = () => createRedis(redis.url, 'worker');

beforeAll(async () => {
  stack = await createTestStack();
  ({ database, redis } = stack);
  queue = new Queue(QUEUES.research, { connection: connection(), prefix: redis.keys.queuePrefix(QUEUES.research) });
  env = {
    ...stack.env,
    TRENDS_PROVIDER: 'synthetic',
    RESEARCH_CONCURRENCY: '3',
    // A short lock so the dead worker's jobs are picked up again within seconds.
    JOB_LOCK_MS: '2000',
  };
});
afterAll(async () => {
  await queue.close();
  await stack?.close();
});

const doneSteps = async () =>
  Number((await sql<{ n: string }>`select count(*) as n from research_steps where status = 'done'`.execute(database.db)).rows[0]!.n);

describe('research runs survive kill -9 of the worker', () => {
  it('completes all 20 runs, records no step twice, and makes one insight per idea', async () => {
    const stepQueue = new StepQueue(queue);
    const ideas = Array.from({ length: 20 }, (_, i) => `Crash test idea number ${i} for pet owners`);
    const runs = [];
    for (const idea of ideas)
      runs.push(await startRun(database.db, stepQueue, { idea, hints: [], provider: 'synthetic', source: 'synthetic' }));

    const first = startWorkerProcess(env);
    await until(doneSteps, (n) => n >= 150, 60_000, 'the first worker to record 150 steps');
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    const atKill = await doneSteps();
    expect(atKill).toBeLessThan(800); // really mid-way

    const second = startWorkerProcess(env);
    try {
      await until(
        () => database.db.selectFrom('research_runs').select('status').execute(),
        (rows) => rows.every((r) => r.status === 'succeeded' || r.status === 'failed'),
        90_000,
        'every run to finish',
      );
    } finally {
      second.kill('SIGTERM');
      await new Promise((r) => second.once('exit', r));
    }

    const finished = await database.db.selectFrom('research_runs').selectAll().execute();
    expect(finished.map((r) => r.status)).toEqual(Array(20).fill('succeeded'));
    const perRun = await sql<{ run_id: string; n: string; distinct_steps: string }>`
      select run_id, count(*) as n, count(distinct step) as distinct_steps from research_steps group by run_id`.execute(database.db);
    expect(perRun.rows).toHaveLength(20);
    for (const row of perRun.rows) {
      expect(Number(row.n)).toBe(40);
      expect(Number(row.distinct_steps)).toBe(40);
    }
    const insights = await database.db.selectFrom('insights').select(['id', 'idea_key']).execute();
    expect(insights).toHaveLength(20);
    expect(new Set(finished.map((r) => r.insight_id)).size).toBe(20);
    const events = await database.db.selectFrom('outbox_events').select('type').execute();
    expect(events.filter((e) => e.type === 'insight.created')).toHaveLength(20);
  }, 180_000);

  it('updates the insight when the same idea is researched again, and the sweeper resumes a stalled chain', async () => {
    const stepQueue = new StepQueue(queue);
    const before = await database.db
      .selectFrom('insights')
      .select(['id', 'updated_at'])
      .where('idea_key', '=', 'crash test idea number 3 for pet owners')
      .executeTakeFirstOrThrow();
    const again = await startRun(database.db, stepQueue, {
      idea: '  Crash test idea NUMBER 3 for pet owners ',
      hints: [],
      provider: 'synthetic',
      source: 'synthetic',
    });

    const worker = startWorkerProcess({ ...env, RESEARCH_CONCURRENCY: '1' });
    try {
      await until(
        () => database.db.selectFrom('research_runs').select('status').where('id', '=', again.id).executeTakeFirstOrThrow(),
        (r) => r.status === 'succeeded',
        60_000,
        'the re-research',
      );
    } finally {
      worker.kill('SIGTERM');
      await new Promise((r) => worker.once('exit', r));
    }
    const after = await database.db.selectFrom('research_runs').select('insight_id').where('id', '=', again.id).executeTakeFirstOrThrow();
    expect(after.insight_id).toBe(before.id);
    expect(await database.db.selectFrom('insights').select('id').execute()).toHaveLength(20);
    const updated = await database.db.selectFrom('outbox_events').select('type').where('type', '=', 'insight.updated').execute();
    expect(updated).toHaveLength(1);

    // The sweeper: a run whose next step is recorded but whose job is gone (a crash between commit and enqueue).
    const orphan = await startRun(database.db, stepQueue, {
      idea: 'Orphaned chain idea',
      hints: [],
      provider: 'synthetic',
      source: 'synthetic',
    });
    await queue.obliterate({ force: true });
    await database.db
      .updateTable('research_runs')
      .set({ updated_at: new Date(Date.now() - 10 * 60_000) })
      .where('id', '=', orphan.id)
      .execute();
    const { sweepProcessor } = await import('../../jobs/sweep.job.js');
    const webhooks = new Queue(QUEUES.webhooks, { connection: connection(), prefix: redis.keys.queuePrefix(QUEUES.webhooks) });
    const result = await sweepProcessor({ db: database.db, stepQueue, webhooks })();
    await webhooks.close();
    expect(result.resumed).toBeGreaterThanOrEqual(1);
    expect(await queue.getJob(`${orphan.id}-step-1`)).toBeDefined();
  }, 120_000);
});
