// npm run bench:flow — 200 research runs (synthetic provider) against a bare
// BullMQ baseline (200 chains of 40 no-op jobs) on the same Redis, same run,
// same worker concurrency. A third row shows where the gap comes from: the
// same bare chains, but each job first records its step done through the
// production StepRecorder (group commit into research_steps/research_runs) with
// an empty output: the price of a durable step alone, without the step's work.
import { Queue, Worker } from 'bullmq';
import { pino } from 'pino';
import { loadConfig } from '../src/config.js';
import { createRedis, waitForRedis } from '../src/redis/connection.js';
import { redisKeys } from '../src/redis/keys.js';
import { ResearchChain, startRun } from '../src/research/chain.js';
import { createRun } from '../src/research/run.repository.js';
import { StepRecorder } from '../src/research/step-recorder.js';
import type { Resources } from '../src/runtime/resources.js';
import { startWorkers } from '../src/runtime/workers.js';
import { createBenchDatabase, type BenchDatabase } from './lib/database.js';
import { median, printJsonLine, printTable, round } from './lib/report.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 200);
const STEPS = 40;
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 20);
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))]!;

/** Called by a chain job before it enqueues the next one (the durable row records its step here). */
type BeforeNext = (chain: number, step: number) => Promise<void>;

async function baseline(prefix: string, beforeNext?: BeforeNext) {
  const connection = createRedis(REDIS_URL, 'worker');
  const queue = new Queue('baseline', { connection, prefix });
  const started = new Map<number, number>();
  const durations: number[] = [];
  let resolveDone: () => void;
  const done = new Promise<void>((r) => (resolveDone = r));
  const worker = new Worker(
    'baseline',
    async (job) => {
      const { chain, step } = job.data as { chain: number; step: number };
      await beforeNext?.(chain, step);
      // The same enqueue pattern as ours: next step LIFO, completed jobs removed.
      if (step < STEPS) await queue.add('noop', { chain, step: step + 1 }, { jobId: `c${chain}-s${step + 1}`, removeOnComplete: true, lifo: true });
      else {
        durations.push(Date.now() - started.get(chain)!);
        if (durations.length === RUNS) resolveDone();
      }
    },
    { connection: createRedis(REDIS_URL, 'worker'), prefix, concurrency: CONCURRENCY },
  );
  const t0 = Date.now();
  for (let chain = 0; chain < RUNS; chain += 1) {
    started.set(chain, Date.now());
    await queue.add('noop', { chain, step: 1 }, { jobId: `c${chain}-s1`, removeOnComplete: true });
  }
  await done;
  const seconds = (Date.now() - t0) / 1000;
  await worker.close();
  await queue.obliterate({ force: true });
  await queue.close();
  connection.disconnect();
  return { seconds, durations };
}

/** Runs to record steps against, and the hook that records each chain job's step (empty output). */
async function durableSteps(database: BenchDatabase): Promise<BeforeNext> {
  const runs = await Promise.all(
    Array.from({ length: RUNS }, (_, i) =>
      createRun(database.db, { idea: `durable chain ${i}`, ideaKey: `durable chain ${i}`, hints: [], provider: 'synthetic', source: 'synthetic' }),
    ),
  );
  const recorder = new StepRecorder(database.db);
  return async (chain, step) => {
    const recorded = await recorder.record({
      runId: runs[chain]!.id,
      step,
      name: 'noop',
      output: null,
      outputJson: 'null',
      summary: '',
      inputHash: '',
      durationMs: 0,
      startedAt: new Date(),
      attempt: 1,
    });
    if (!recorded) throw new Error(`step ${step} of chain ${chain} was not recorded`);
  };
}

async function ours(prefix: string, database: BenchDatabase) {
  const { db } = database;
  const redis = createRedis(REDIS_URL);
  await waitForRedis(redis, REDIS_URL);
  const config = { ...loadConfig({ REDIS_PREFIX: prefix, TRENDS_PROVIDER: 'synthetic' }), researchConcurrency: CONCURRENCY };
  const resources: Resources = { db, databaseUrl: database.url, embeddedPostgres: false, redis, redisUrl: REDIS_URL, redisKeys: redisKeys(prefix), close: async () => {} };
  const pipeline = await startWorkers(resources, config, pino({ level: 'silent' }));
  const chain = new ResearchChain(pipeline.queues.research);
  const t0 = Date.now();
  for (let i = 0; i < RUNS; i += 1) {
    await startRun(db, chain, { idea: `Benchmark idea ${i} for remote teams`, hints: [], provider: 'synthetic', source: 'synthetic' });
  }
  for (;;) {
    const { n } = await db.selectFrom('research_runs').select((eb) => eb.fn.countAll<number>().as('n')).where('status', 'in', ['succeeded', 'failed']).executeTakeFirstOrThrow();
    if (Number(n) >= RUNS) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const seconds = (Date.now() - t0) / 1000;
  const rows = await db
    .selectFrom('research_runs as r')
    .innerJoin('research_steps as s', (join) => join.onRef('s.run_id', '=', 'r.id').on('s.step', '=', 1))
    .select(['r.status', 'r.created_at', 'r.finished_at', 's.started_at as first_step_started_at'])
    .execute();
  const failed = rows.filter((r) => r.status !== 'succeeded').length;
  // From enqueue (includes waiting behind the other 199 runs) and from the first step's start.
  const durations = rows.map((r) => r.finished_at!.getTime() - r.created_at.getTime());
  const stepDurations = rows.map((r) => r.finished_at!.getTime() - r.first_step_started_at!.getTime());
  await pipeline.close();
  await pipeline.queues.research.obliterate({ force: true }).catch(() => {});
  redis.disconnect();
  return { seconds, durations, stepDurations, failed };
}

const prefix = `benchflow${process.pid}`;
process.stdout.write(`${RUNS} runs × ${STEPS} steps, worker concurrency ${CONCURRENCY}\n`);
const database = await createBenchDatabase('flow', 20);
const base = await baseline(`${prefix}b`);
const durable = await baseline(`${prefix}d`, await durableSteps(database));
await database.db.deleteFrom('research_runs').execute(); // its steps go with them (cascade): ours starts empty
const mine = await ours(`${prefix}o`, database);
await database.drop();
const rows = [
  {
    flow: 'ours (40 research steps)',
    'runs/s': round(RUNS / mine.seconds, 1),
    'steps/s': round((RUNS * STEPS) / mine.seconds, 0),
    'run p50 ms': median(mine.durations),
    'run p99 ms': p99(mine.durations),
    '40 steps p50 ms': median(mine.stepDurations),
    failed: mine.failed,
  },
  {
    flow: 'bare chains + durable step write',
    'runs/s': round(RUNS / durable.seconds, 1),
    'steps/s': round((RUNS * STEPS) / durable.seconds, 0),
    'run p50 ms': median(durable.durations),
    'run p99 ms': p99(durable.durations),
    '40 steps p50 ms': '–',
    failed: 0,
  },
  {
    flow: 'baseline (40 no-op jobs)',
    'runs/s': round(RUNS / base.seconds, 1),
    'steps/s': round((RUNS * STEPS) / base.seconds, 0),
    'run p50 ms': median(base.durations),
    'run p99 ms': p99(base.durations),
    '40 steps p50 ms': '–',
    failed: 0,
  },
];
printTable('Research flow vs bare BullMQ chains (same Redis, same run)', rows);
process.stdout.write('run = enqueue → step 40 recorded (all 200 enqueued at once); 40 steps = step 1 started → step 40 recorded\n');
const stepsPerS = (RUNS * STEPS) / mine.seconds;
const baselineStepsPerS = (RUNS * STEPS) / base.seconds;
printJsonLine({
  bench: 'flow',
  runs: RUNS,
  concurrency: CONCURRENCY,
  steps_per_s: round(stepsPerS, 0),
  baseline_steps_per_s: round(baselineStepsPerS, 0),
  ratio: round(stepsPerS / baselineStepsPerS, 2),
  runs_per_s: round(RUNS / mine.seconds, 2),
  run_p50_ms: median(mine.durations),
  run_p99_ms: p99(mine.durations),
  run_steps_p50_ms: median(mine.stepDurations),
  baseline_run_p50_ms: median(base.durations),
  durable_chain_steps_per_s: round((RUNS * STEPS) / durable.seconds, 0),
  failed: mine.failed,
});
process.exit(0);
