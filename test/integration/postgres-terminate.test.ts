// A Postgres backend can die under any client: a restart, a failover, an
// operator's pg_terminate_backend. Whether the client is idle in the pool,
// checked out between statements or inside a transaction, the process must
// live: the statement that meets the broken connection fails as an outage,
// and the next one gets a fresh connection. Then the same against the real
// worker process, terminated over and over while research runs go on.
import { Queue } from 'bullmq';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../../src/db/connection.js';
import { isOutage } from '../../src/outage.js';
import { QUEUES } from '../../src/queue/queue-names.js';
import { createRedis } from '../../src/redis/connection.js';
import { StepQueue } from '../../src/research/step-queue.js';
import { startRun } from '../../src/research/start-run.js';
import { ServiceProcess } from '../../scripts/lib/service-process.js';
import type { TestDatabase } from '../support/database.js';
import { until } from '../support/pipeline.js';
import type { TestRedis } from '../support/redis.js';
import { createTestStack, type TestStack } from '../support/stack.js';

let database: TestDatabase;
let redis: TestRedis;
let stack: TestStack;
// pg_terminate_backend needs a real Postgres; the embedded one (no DATABASE_URL) has one session and no backends.
const realPostgres = process.env.DATABASE_URL !== undefined;

beforeAll(async () => {
  stack = await createTestStack();
  ({ database, redis } = stack);
});
afterAll(() => stack?.close());

/** Terminates every backend of this test's database whose application_name is `app`; returns how many. */
async function terminate(app: string): Promise<number> {
  const { rows } = await sql<{ terminated: boolean }>`
    select pg_terminate_backend(pid) as terminated from pg_stat_activity
    where datname = current_database() and application_name = ${app} and pid <> pg_backend_pid()`.execute(database.db);
  return rows.filter((r) => r.terminated).length;
}

/** A pool whose connection errors can be awaited: the event, not a clock. */
function watchedDb(app: string): { db: Db; nextError(): Promise<Error>; errors: number } {
  const waiting: Array<(e: Error) => void> = [];
  const state = {
    errors: 0,
    db: createDb(database.url, {
      maxConnections: 3,
      applicationName: app,
      onConnectionError: (error) => {
        state.errors += 1;
        for (const resolve of waiting.splice(0)) resolve(error);
      },
    }),
    nextError: () => new Promise<Error>((resolve) => waiting.push(resolve)),
  };
  return state;
}

describe.runIf(realPostgres)('a terminated Postgres backend never crashes the process', () => {
  it('idle, checked out between statements, or inside a transaction: the statement fails as an outage, the next one works', async () => {
    const app = 'si-terminate-test';
    const w = watchedDb(app);
    await sql`create table if not exists terminate_probe (n int)`.execute(w.db);
    try {
      for (let round = 0; round < 10; round += 1) {
        // 1. Idle in the pool.
        await sql`select 1`.execute(w.db);
        let error = w.nextError();
        expect(await terminate(app)).toBeGreaterThan(0);
        await error;
        expect((await sql<{ one: number }>`select 1 as one`.execute(w.db)).rows[0]!.one).toBe(1);

        // 2. Checked out, between statements, no transaction.
        await w.db.connection().execute(async (conn) => {
          await sql`select 1`.execute(conn);
          error = w.nextError();
          expect(await terminate(app)).toBeGreaterThan(0);
          await error;
          const failed = await sql`select 1`.execute(conn).then(
            () => undefined,
            (e: unknown) => e,
          );
          expect(isOutage(failed), String(failed)).toBe(true);
        });

        // 3. Inside a transaction, between statements: it rolls back, nothing half-written.
        const outcome = await w.db
          .transaction()
          .execute(async (trx) => {
            await sql`insert into terminate_probe values (${round})`.execute(trx);
            error = w.nextError();
            expect(await terminate(app)).toBeGreaterThan(0);
            await error;
            await sql`insert into terminate_probe values (${round})`.execute(trx);
          })
          .then(
            () => undefined,
            (e: unknown) => e,
          );
        expect(isOutage(outcome), String(outcome)).toBe(true);
      }
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from terminate_probe`.execute(w.db);
      expect(rows[0]!.n).toBe(0);
      expect(w.errors).toBeGreaterThanOrEqual(30);
    } finally {
      await w.db.destroy();
    }
  });

  it('the worker process lives through 25 terminations of all its connections and finishes every run', async () => {
    const queue = new Queue(QUEUES.research, {
      connection: createRedis(redis.url, 'worker'),
      prefix: redis.keys.queuePrefix(QUEUES.research),
    });
    const stepQueue = new StepQueue(queue);
    const worker = new ServiceProcess('worker', {
      ...stack.env,
      TRENDS_PROVIDER: 'synthetic',
      RESEARCH_CONCURRENCY: '4',
      JOB_LOCK_MS: '5000',
    });
    try {
      await worker.ready;
      const runs = [];
      for (let i = 0; i < 12; i += 1) {
        runs.push(
          await startRun(database.db, stepQueue, {
            idea: `Terminated backend idea ${i} for dog walkers`,
            hints: [],
            provider: 'synthetic',
            source: 'synthetic',
          }),
        );
      }
      const doneSteps = async () =>
        (await sql<{ n: number }>`select count(*)::int as n from research_steps where status = 'done'`.execute(database.db)).rows[0]!.n;
      let terminations = 0;
      while (terminations < 25) {
        const before = await doneSteps();
        if (before >= runs.length * 40) break;
        terminations += (await terminate('si-worker')) > 0 ? 1 : 0;
        // The next fault only once the worker has made progress since this one.
        await until(doneSteps, (n) => n > before, 60_000, 'a step recorded after the termination');
        expect(worker.running, worker.tail.join('\n')).toBe(true);
      }
      await until(
        () => database.db.selectFrom('research_runs').select('status').execute(),
        (rows) => rows.every((r) => r.status === 'succeeded' || r.status === 'failed'),
        120_000,
        'every run to finish',
      );
      expect(worker.running, worker.tail.join('\n')).toBe(true);
      expect(terminations).toBeGreaterThanOrEqual(20);

      const finished = await database.db.selectFrom('research_runs').select(['status', 'insight_id']).execute();
      expect(finished.map((r) => r.status)).toEqual(Array(runs.length).fill('succeeded'));
      const perRun = await sql<{ n: number; distinct_steps: number }>`
        select count(*)::int as n, count(distinct step)::int as distinct_steps from research_steps where status = 'done' group by run_id`.execute(
        database.db,
      );
      expect(perRun.rows.map((r) => [r.n, r.distinct_steps])).toEqual(Array(runs.length).fill([40, 40]));
      expect(new Set(finished.map((r) => r.insight_id)).size).toBe(runs.length);
    } finally {
      await worker.kill('SIGTERM');
      await queue.close();
    }
  }, 300_000);
});
