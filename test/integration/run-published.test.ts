// A research run reads "succeeded" only once the API shows its insight: the
// read-model version (which invalidates every web process's cached answers) is
// bumped before the run is marked done, so a client that waits for the run
// (`insights research --wait`, GET /api/research-runs/{id}) and then lists
// insights never gets the list from before. A bump that fails, or a worker that
// dies between the commit and the bump, leaves the run unfinished until a retry
// or the sweeper publishes it.
import { sql } from 'kysely';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepProcessor } from '../../jobs/sweep.job.js';
import { buildTestApp } from '../support/app.js';
import type { Redis } from '../../src/redis/connection.js';
import { SCRIPTS } from '../../src/redis/scripts.js';
import { StepQueue } from '../../src/research/step-queue.js';
import { startRun } from '../../src/research/start-run.js';
import { STEP_COUNT } from '../../src/research/step-contract.js';
import type { Pipeline } from '../../src/runtime/workers.js';
import { startTestWorkers } from '../support/services.js';
import { createApiKey } from '../../src/api-keys/api-key.repository.js';
import type { TestDatabase } from '../support/database.js';
import { until } from '../support/pipeline.js';
import type { TestRedis } from '../support/redis.js';
import { createTestStack, type TestStack } from '../support/stack.js';

let database: TestDatabase;
let redis: TestRedis;
let stack: TestStack;
let pipeline: Pipeline;
let app: Awaited<ReturnType<typeof buildTestApp>>;
let key: string;

/** What the next bump of the read-model version does: go through, wait for a release, or fail. */
let nextBump: { kind: 'pass' } | { kind: 'hold'; reached: () => void; release: Promise<void> } | { kind: 'fail' } = { kind: 'pass' };

/** The worker's Redis client, with the read-model bump (the script that INCRs the version) under the test's control. */
function controlledBumps(real: Redis, versionKey: string): Redis {
  return new Proxy(real, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target) as unknown;
      if (prop !== SCRIPTS.readModel.bump.name || typeof value !== 'function')
        return typeof value === 'function' ? value.bind(target) : value;
      return async (...args: unknown[]) => {
        // The bump is its own command (defineCommand, src/redis/scripts.ts): its first key is the version.
        const isBump = args[0] === versionKey;
        if (isBump) {
          const plan = nextBump;
          nextBump = { kind: 'pass' };
          if (plan.kind === 'fail') throw new Error('Redis went away during the bump (test)');
          if (plan.kind === 'hold') {
            plan.reached();
            await plan.release;
          }
        }
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

beforeAll(async () => {
  stack = await createTestStack({ env: { TRENDS_PROVIDER: 'synthetic' } });
  ({ database, redis } = stack);
  // Workers of its own, not the stack's: their Redis client is the one whose bumps the test controls.
  const resources = { ...stack.resources, redis: controlledBumps(redis.redis, redis.keys.readModelVersion) };
  pipeline = await startTestWorkers(resources, stack.config, pino({ level: 'silent' }));
  app = await buildTestApp({ database, redis }, { overloadMaxEventLoopDelayMs: 0 });
  key = (await createApiKey(database.db, 'run-published', 'pro')).key;
});
afterAll(async () => {
  await app?.close();
  await pipeline?.close();
  await stack?.close();
});

const listed = () =>
  app
    .inject({ url: '/api/insights?limit=100', headers: { authorization: `Bearer ${key}` } })
    .then((r) => (r.json() as { data: Array<{ title: string }> }).data.length);
const runStatus = (id: string) =>
  database.db.selectFrom('research_runs').select(['status', 'next_step']).where('id', '=', id).executeTakeFirstOrThrow();

describe('a research run reads succeeded only once the API shows its insight', () => {
  it('is not succeeded while the read-model bump is held, and is listed the moment it is', async () => {
    const before = await listed(); // cached under the current version
    let reached!: () => void;
    const bumpReached = new Promise<void>((r) => (reached = r));
    let release!: () => void;
    nextBump = { kind: 'hold', reached, release: new Promise<void>((r) => (release = r)) };

    const run = await startRun(database.db, new StepQueue(pipeline.queues.research), {
      idea: 'Published run for balcony gardens',
      hints: [],
      provider: 'synthetic',
      source: 'synthetic',
    });
    try {
      await bumpReached; // step 40 has committed its insight and is publishing it
      const whileHeld = await runStatus(run.id);
      expect(whileHeld.status).toBe('running');
      expect(whileHeld.next_step).toBe(STEP_COUNT + 1); // every step recorded
      expect(await listed()).toBe(before); // the cached list, as a client would get it now
    } finally {
      release();
    }
    await until(
      () => runStatus(run.id),
      (r) => r.status === 'succeeded',
      30_000,
      'the run to be published',
    );
    expect(await listed()).toBe(before + 1);
  });

  it("is published by the step job's retry when the bump fails", async () => {
    nextBump = { kind: 'fail' };
    const before = await listed();
    const run = await startRun(database.db, new StepQueue(pipeline.queues.research), {
      idea: 'Published run for rooftop beekeeping',
      hints: [],
      provider: 'synthetic',
      source: 'synthetic',
    });
    await until(
      () => runStatus(run.id),
      (r) => r.status === 'succeeded',
      60_000,
      'the retried step 40 to publish the run',
    );
    expect(await listed()).toBe(before + 1);
  });

  it('is published by the sweeper when the worker died between the commit and the bump', async () => {
    // A run whose 40 steps are recorded but which was never published, as a kill -9 at that moment leaves it.
    const run = await startRun(database.db, new StepQueue(pipeline.queues.research), {
      idea: 'Published run for tiny libraries',
      hints: [],
      provider: 'synthetic',
      source: 'synthetic',
    });
    await until(
      () => runStatus(run.id),
      (r) => r.status === 'succeeded',
      60_000,
      'the run',
    );
    await sql`update research_runs set status = 'running', finished_at = null, updated_at = now() - interval '1 hour' where id = ${run.id}`.execute(
      database.db,
    );
    const versionBefore = BigInt((await redis.redis.get(redis.keys.readModelVersion)) ?? '0');

    const sweep = sweepProcessor({
      db: database.db,
      stepQueue: new StepQueue(pipeline.queues.research),
      webhooks: pipeline.queues.webhooks,
      quietMs: 60_000,
    });
    const swept = await sweep();
    expect(swept.resumed).toBe(1);
    await until(
      () => runStatus(run.id),
      (r) => r.status === 'succeeded',
      30_000,
      'the swept run to be published',
    );
    // Published means announced to every web process: the version moved past the one of the unpublished state.
    expect(BigInt((await redis.redis.get(redis.keys.readModelVersion)) ?? '0')).toBeGreaterThan(versionBefore);
  });
});
