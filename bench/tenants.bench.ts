// npm run bench:tenants — one account's backlog against another account's run (issue 48).
// An Enterprise account submits 100 research runs, then a Free account submits one; twice in the
// same run, on fresh queues: with today's fair turns (StepQueue.start) and with the FIFO first
// step of before (the baseline: step 1 added without a turn, as the code of 2026-11-27 did).
//
// What is measured, on loopback Postgres and Redis, with real BullMQ queues and workers:
//  1. the order in which a research worker takes the 101 first steps (the Free run's place in it);
//  2. the order in which Google would answer the runs' first requests: each run, as its first step
//     is taken, enqueues its first Google request on a trends queue at the priority the step runner
//     gives it (its turn, or before, the step's priority, the same for every run at that step), and a
//     worker takes them one at a time, as the route's pace does (the Free run's place in it);
//  3. the estimate the API shows the Free run (GET /api/research-runs/{id}: position, start).
// What is not measured here but taken from bench:google (2026-11-27): a run's cost at Google's
// late-2026 pace on one route, 29 runs an hour (124 s a run). The Free run's wait for its first
// Google answer is its place in (2), less one, times that cost; the steps themselves take
// milliseconds (bench:flow). Nothing is slept on: the workers take jobs as fast as BullMQ gives them.
import { randomBytes } from 'node:crypto';
import { Queue, Worker } from 'bullmq';
import { createAccount } from '../src/accounts/account.repository.js';
import { ensureEnqueued } from '../src/queue/enqueue.js';
import { JOB } from '../src/queue/job-catalogue.js';
import { QUEUES } from '../src/queue/queue-names.js';
import { createRedis, waitForRedis } from '../src/redis/connection.js';
import { redisKeys } from '../src/redis/keys.js';
import { StepQueue } from '../src/research/step-queue.js';
import { ResearchService } from '../src/research/research-service.js';
import type { RunRow } from '../src/research/run.repository.js';
import { researchPriority, researchTurnPriority } from '../src/research/queued-gateway.js';
import { STEP_COUNT } from '../src/research/step-contract.js';
import { createBenchDatabase } from './lib/database.js';
import { removePrefixKeys } from './lib/redis-cleanup.js';
import { printJsonLine, printTable, round } from './lib/report.js';

const BACKLOG = Number(process.env.BENCH_BACKLOG ?? 100);
/** bench:google, 2026-11-27: research runs completed per hour on one route under Google's late-2026 limits. */
const RUNS_PER_HOUR_PER_ROUTE = 29;
const RUN_SECONDS = 3600 / RUNS_PER_HOUR_PER_ROUTE;
/** The first step that asks Google (interest_30d): where a run's first Google request is made. */
const FIRST_GOOGLE_STEP = 7;
const TARGET_MINUTES = 15;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

const database = await createBenchDatabase('tenants', 10);
const { db } = database;
const redis = createRedis(REDIS_URL);
await waitForRedis(redis, REDIS_URL);
const connections = [redis];
const connect = () => {
  const c = createRedis(REDIS_URL, 'worker');
  connections.push(c);
  return c;
};

/** Today's step queue, or (fifo) the first step of before: added without a turn, first come first served. */
class FifoStepQueue extends StepQueue {
  override async start(run: Pick<RunRow, 'id' | 'account_id'>): Promise<void> {
    await ensureEnqueued(this.queue, JOB.researchStep, { runId: run.id, step: 1 });
  }
}

interface Measured {
  mode: string;
  stepOnePlace: number;
  googlePlace: number;
  shownPosition: number;
  shownStartMinutes: number;
  elapsedMs: number;
}

async function measure(mode: 'fair' | 'fifo'): Promise<Measured> {
  const prefix = `benchtn${process.pid}${mode}`;
  const keys = redisKeys(prefix);
  const research = new Queue(QUEUES.research, { connection: connect(), prefix: keys.queuePrefix(QUEUES.research) });
  const trends = new Queue(QUEUES.trends, { connection: connect(), prefix: keys.queuePrefix(QUEUES.trends) });
  const stepQueue = mode === 'fair' ? new StepQueue(research) : new FifoStepQueue(research);
  // The pace the API's estimate is computed from: the default configuration (10 requests a minute, one route).
  const service = new ResearchService(db, stepQueue, {
    provider: 'google',
    defaultGeo: '',
    allowance: { free: 3, starter: 20, pro: 100, enterprise: 500 },
    reuseDays: 0,
    google: { requestsPerMinute: 10, routes: 1, requestPlan: 'batched' },
  });
  const enterprise = await createAccount(db, `bench enterprise ${mode}`, 'enterprise');
  const free = await createAccount(db, `bench free ${mode}`, 'free');
  const tag = randomBytes(3).toString('hex');
  for (let i = 0; i < BACKLOG; i += 1)
    await service.submit(
      { accountId: enterprise.id, plan: 'enterprise' },
      { idea: `Tenant bench ${tag} backlog idea ${i} for dog walkers` },
    );
  const submitted = await service.submit({ accountId: free.id, plan: 'free' }, { idea: `Tenant bench ${tag} free idea for cat sitters` });
  if (submitted.kind !== 'run') throw new Error('the Free account was answered without a run');
  const freeRun = submitted.run.id;
  const shown = await service.schedule(submitted.run);

  const started = performance.now();
  // 1. The research worker takes the first steps; each enqueues its run's first Google request, as the step runner would.
  const stepOrder: string[] = [];
  const googleOrder: string[] = [];
  let allTaken!: () => void;
  const taken = new Promise<void>((resolve) => (allTaken = resolve));
  const stepWorker = new Worker(
    QUEUES.research,
    async (job) => {
      const { runId, turn } = job.data as { runId: string; turn?: number };
      stepOrder.push(runId);
      const priority = turn === undefined ? researchPriority(FIRST_GOOGLE_STEP, STEP_COUNT) : researchTurnPriority(turn);
      await trends.add('first-request', { runId }, { priority, jobId: `first-${runId}` });
      if (stepOrder.length === BACKLOG + 1) allTaken();
    },
    { connection: connect(), prefix: keys.queuePrefix(QUEUES.research), concurrency: 1 },
  );
  await taken;
  await stepWorker.close();
  // 2. Google's route answers one request at a time, in the trends queue's order.
  let allAnswered!: () => void;
  const answered = new Promise<void>((resolve) => (allAnswered = resolve));
  const googleWorker = new Worker(
    QUEUES.trends,
    async (job) => {
      googleOrder.push((job.data as { runId: string }).runId);
      if (googleOrder.length === BACKLOG + 1) allAnswered();
    },
    { connection: connect(), prefix: keys.queuePrefix(QUEUES.trends), concurrency: 1 },
  );
  await answered;
  await googleWorker.close();
  const elapsedMs = performance.now() - started;

  await research.close();
  await trends.close();
  await removePrefixKeys(redis, prefix);
  return {
    mode,
    stepOnePlace: stepOrder.indexOf(freeRun) + 1,
    googlePlace: googleOrder.indexOf(freeRun) + 1,
    shownPosition: shown.position,
    shownStartMinutes: shown.estimatedStartAt ? (shown.estimatedStartAt.getTime() - Date.now()) / 60_000 : 0,
    elapsedMs,
  };
}

const fifo = await measure('fifo');
const fair = await measure('fair');
for (const c of connections) c.disconnect();
await database.drop();

const waitMinutes = (m: Measured) => ((m.googlePlace - 1) * RUN_SECONDS) / 60;
printTable(
  `A Free account's run behind ${BACKLOG} runs of an Enterprise account (one route, ${RUNS_PER_HOUR_PER_ROUTE} runs an hour: ${round(RUN_SECONDS, 0)} s a run, bench:google 2026-11-27)`,
  [fifo, fair].map((m) => ({
    order: m.mode === 'fair' ? 'fair turns (now)' : 'baseline: FIFO first step',
    'its step 1 taken': `${m.stepOnePlace} of ${BACKLOG + 1}`,
    'its first Google request answered': `${m.googlePlace} of ${BACKLOG + 1}`,
    'wait for its first answer, min': round(waitMinutes(m), 1),
    'shown position': m.shownPosition,
    'shown start, min': round(m.shownStartMinutes, 1),
  })),
);
printJsonLine({
  bench: 'tenants',
  backlog: BACKLOG,
  run_seconds_at_pace: round(RUN_SECONDS, 1),
  fair_step1_place: fair.stepOnePlace,
  fair_google_place: fair.googlePlace,
  fair_wait_minutes: round(waitMinutes(fair), 1),
  fair_shown_position: fair.shownPosition,
  fair_shown_start_minutes: round(fair.shownStartMinutes, 1),
  fifo_step1_place: fifo.stepOnePlace,
  fifo_google_place: fifo.googlePlace,
  fifo_wait_minutes: round(waitMinutes(fifo), 1),
  fifo_shown_position: fifo.shownPosition,
  fifo_shown_start_minutes: round(fifo.shownStartMinutes, 1),
  target_minutes: TARGET_MINUTES,
  met: waitMinutes(fair) <= TARGET_MINUTES,
});
process.exit(0);
