// npm run bench:flow — 200 research runs (synthetic provider) against a bare
// BullMQ baseline (200 chains of 40 no-op jobs) on the same Redis, same run,
// same worker concurrency. A third row shows where the gap comes from: the
// same bare chains, but each job first records its step done through the
// production StepRecorder (group commit into research_steps/research_runs) with
// an empty output: the price of a durable step alone, without the step's work.
// A fourth row is the peer a user would pick instead: DBOS Transact (bench/peers/dbos,
// its own package and its own Postgres database), 200 workflows of 40 checkpointed
// steps at the same concurrency, run in a child process alternated with ours in
// every round (ours first in odd rounds, DBOS first in even ones).
import { execFileSync, execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Queue, Worker } from 'bullmq';
import { pino } from 'pino';
import { loadConfig } from '../src/config.js';
import { createRedis, waitForRedis } from '../src/redis/connection.js';
import { StepQueue } from '../src/research/step-queue.js';
import { startRun } from '../src/research/start-run.js';
import { createRun } from '../src/research/run.repository.js';
import { StepRecorder } from '../src/research/step-recorder.js';
import { startTestWorkers } from '../test/support/services.js';
import { benchResources } from './lib/resources.js';
import { createBenchDatabase, type BenchDatabase } from './lib/database.js';
import { removePrefixKeys } from './lib/redis-cleanup.js';
import { median, printJsonLine, printTable, round } from './lib/report.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 200);
const STEPS = 40;
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 20);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))]!;

/**
 * This process's CPU time since `start`, in ms: the workers run here, so per
 * step it is the flow's own cost, which a machine shared with other work moves
 * far less than it moves steps/s (Postgres and Redis are other processes, not counted).
 */
const cpuMsSince = (start: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
};

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
      if (step < STEPS)
        await queue.add('noop', { chain, step: step + 1 }, { jobId: `c${chain}-s${step + 1}`, removeOnComplete: true, lifo: true });
      else {
        durations.push(Date.now() - started.get(chain)!);
        if (durations.length === RUNS) resolveDone();
      }
    },
    { connection: createRedis(REDIS_URL, 'worker'), prefix, concurrency: CONCURRENCY },
  );
  const t0 = Date.now();
  const cpu0 = process.cpuUsage();
  for (let chain = 0; chain < RUNS; chain += 1) {
    started.set(chain, Date.now());
    await queue.add('noop', { chain, step: 1 }, { jobId: `c${chain}-s1`, removeOnComplete: true });
  }
  await done;
  const seconds = (Date.now() - t0) / 1000;
  const cpuMs = cpuMsSince(cpu0);
  await worker.close();
  await removePrefixKeys(connection, prefix);
  await queue.close();
  connection.disconnect();
  return { seconds, durations, cpuMs };
}

/** Runs to record steps against, and the hook that records each chain job's step (empty output). */
async function durableSteps(database: BenchDatabase): Promise<BeforeNext> {
  const runs = await Promise.all(
    Array.from({ length: RUNS }, (_, i) =>
      createRun(database.db, {
        idea: `durable chain ${i}`,
        ideaKey: `durable chain ${i}`,
        hints: [],
        provider: 'synthetic',
        source: 'synthetic',
      }),
    ),
  );
  const recorder = new StepRecorder(database.db);
  return async (chain, step) => {
    const recorded = await recorder.record({
      runId: runs[chain]!.id,
      step,
      // Steps are stored by name (one row per run and name): each no-op step has its own.
      name: `noop_${step}`,
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
  const config = loadConfig({
    REDIS_PREFIX: prefix,
    TRENDS_PROVIDER: 'synthetic',
    RESEARCH_CONCURRENCY: String(CONCURRENCY),
    // BENCH_GO_ON_MS=0 measures a job per step, as before 2026-11-29 (StepRunner.run).
    ...(process.env.BENCH_GO_ON_MS === undefined ? {} : { RESEARCH_GO_ON_MS: process.env.BENCH_GO_ON_MS }),
  });
  const resources = benchResources(database, redis, REDIS_URL, prefix);
  const pipeline = await startTestWorkers(resources, config, pino({ level: 'silent' }));
  const stepQueue = new StepQueue(pipeline.queues.research);
  const t0 = Date.now();
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < RUNS; i += 1) {
    await startRun(db, stepQueue, { idea: `Benchmark idea ${i} for remote teams`, hints: [], provider: 'synthetic', source: 'synthetic' });
  }
  for (;;) {
    const { n } = await db
      .selectFrom('research_runs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('status', 'in', ['succeeded', 'failed'])
      .executeTakeFirstOrThrow();
    if (Number(n) >= RUNS) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const seconds = (Date.now() - t0) / 1000;
  const cpuMs = cpuMsSince(cpu0);
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
  await removePrefixKeys(redis, prefix);
  redis.disconnect();
  return { seconds, durations, stepDurations, failed, cpuMs };
}

/** The peer's folder in the repository (this file runs from dist/bench/). */
const DBOS_PEER = fileURLToPath(new URL('../../bench/peers/dbos/', import.meta.url));

/** Installs the peer's pinned packages once (its own lockfile; never the product's dependencies). */
function installDbosPeer(): void {
  if (existsSync(`${DBOS_PEER}node_modules/@dbos-inc/dbos-sdk`)) return;
  process.stdout.write('installing the DBOS peer (npm ci --prefix bench/peers/dbos)\n');
  execFileSync('npm', ['ci', '--prefix', DBOS_PEER, '--no-audit', '--no-fund'], { stdio: 'inherit' });
}

interface DbosReport {
  seconds: number;
  run_p50_ms: number;
  run_p99_ms: number;
  cpu_ms: number;
  checkpointed_steps: number;
}

/** One spell of the DBOS peer in its own process, on its own database (it prints one JSON line). */
async function dbos() {
  const stdout = await new Promise<string>((resolve, reject) =>
    execFile(
      process.execPath,
      [`${DBOS_PEER}flow.mjs`],
      { env: { ...process.env, BENCH_RUNS: String(RUNS), BENCH_STEPS: String(STEPS), BENCH_CONCURRENCY: String(CONCURRENCY) } },
      (error, out) => (error ? reject(error) : resolve(out)),
    ),
  );
  const report = JSON.parse(stdout.trim().split('\n').at(-1)!) as DbosReport;
  if (report.checkpointed_steps !== RUNS * STEPS)
    throw new Error(`the DBOS peer checkpointed ${report.checkpointed_steps} steps, not ${RUNS * STEPS}`);
  // Its run p50/p99 come from the peer; the summary wants durations, so the two stand in for them.
  return { seconds: report.seconds, runP50: report.run_p50_ms, runP99: report.run_p99_ms, cpuMs: report.cpu_ms };
}

installDbosPeer();
const prefix = `benchflow${process.pid}`;
process.stdout.write(
  `${RUNS} runs × ${STEPS} steps, worker concurrency ${CONCURRENCY}, ${ROUNDS} rounds (each: baseline, durable chains, then ours and DBOS alternated)\n`,
);
const database = await createBenchDatabase('flow', 20);
interface Row {
  stepsPerS: number;
  runP50: number;
  runP99: number;
  stepsP50?: number;
  failed: number;
  cpuMsPerStep: number;
}
const summarize = (r: { seconds: number; durations: number[]; stepDurations?: number[]; failed?: number; cpuMs: number }): Row => ({
  stepsPerS: (RUNS * STEPS) / r.seconds,
  runP50: median(r.durations),
  runP99: p99(r.durations),
  ...(r.stepDurations ? { stepsP50: median(r.stepDurations) } : {}),
  failed: r.failed ?? 0,
  cpuMsPerStep: r.cpuMs / (RUNS * STEPS),
});
const summarizePeer = (r: Awaited<ReturnType<typeof dbos>>): Row => ({
  stepsPerS: (RUNS * STEPS) / r.seconds,
  runP50: r.runP50,
  runP99: r.runP99,
  failed: 0,
  cpuMsPerStep: r.cpuMs / (RUNS * STEPS),
});
const oursSpell = async (n: number) => {
  // Each spell starts empty: runs (their steps cascade) and the insights the last one wrote.
  await database.db.deleteFrom('research_runs').execute();
  const mine = summarize(await ours(`${prefix}o${n}`, database));
  await database.db.deleteFrom('research_runs').execute();
  await database.db.deleteFrom('insights').execute();
  return mine;
};
const rounds: Array<{ base: Row; durable: Row; mine: Row; peer: Row }> = [];
for (let n = 1; n <= ROUNDS; n += 1) {
  const base = summarize(await baseline(`${prefix}b${n}`));
  const durable = summarize(await baseline(`${prefix}d${n}`, await durableSteps(database)));
  let mine: Row;
  let peer: Row;
  // Alternated: whichever runs second in a round meets a machine the first has warmed (or loaded).
  if (n % 2 === 1) {
    mine = await oursSpell(n);
    peer = summarizePeer(await dbos());
  } else {
    peer = summarizePeer(await dbos());
    mine = await oursSpell(n);
  }
  rounds.push({ base, durable, mine, peer });
  process.stdout.write(
    `round ${n}: ours ${Math.round(mine.stepsPerS)} steps/s (run p50 ${mine.runP50} ms), DBOS ${Math.round(peer.stepsPerS)} (run p50 ${peer.runP50} ms): ×${round(mine.stepsPerS / peer.stepsPerS)}; durable chains ${Math.round(durable.stepsPerS)}, baseline ${Math.round(base.stepsPerS)}: ratio ${round(mine.stepsPerS / base.stepsPerS)}; CPU per step ${round(mine.cpuMsPerStep, 3)} ms ours, ${round(peer.cpuMsPerStep, 3)} ms DBOS, ${round(base.cpuMsPerStep, 3)} ms baseline\n`,
  );
}
await database.drop();

const med = (pick: (r: (typeof rounds)[number]) => number) => median(rounds.map(pick));
const tableRow = (flow: string, pick: (r: (typeof rounds)[number]) => Row) => ({
  flow,
  'runs/s': round(med((r) => pick(r).stepsPerS) / STEPS, 1),
  'steps/s': round(
    med((r) => pick(r).stepsPerS),
    0,
  ),
  'run p50 ms': med((r) => pick(r).runP50),
  'run p99 ms': med((r) => pick(r).runP99),
  '40 steps p50 ms': pick(rounds[0]!).stepsP50 === undefined ? '–' : med((r) => pick(r).stepsP50!),
  'CPU ms/step': round(
    med((r) => pick(r).cpuMsPerStep),
    3,
  ),
  failed: rounds.reduce((sum, r) => sum + pick(r).failed, 0),
});
printTable(`Research flow vs bare BullMQ chains (same Redis, same run; medians of ${ROUNDS} rounds)`, [
  tableRow('ours (40 research steps)', (r) => r.mine),
  tableRow('DBOS Transact 5.3.0 (40 checkpointed steps)', (r) => r.peer),
  tableRow('bare chains + durable step write', (r) => r.durable),
  tableRow('baseline (40 no-op jobs)', (r) => r.base),
]);
process.stdout.write(`run = enqueue → step 40 recorded (all ${RUNS} enqueued at once); 40 steps = step 1 started → step 40 recorded\n`);
const ratios = rounds.map((r) => round(r.mine.stepsPerS / r.base.stepsPerS));
const dbosRatios = rounds.map((r) => round(r.mine.stepsPerS / r.peer.stepsPerS));
printJsonLine({
  bench: 'flow',
  runs: RUNS,
  concurrency: CONCURRENCY,
  rounds: ROUNDS,
  steps_per_s: round(
    med((r) => r.mine.stepsPerS),
    0,
  ),
  baseline_steps_per_s: round(
    med((r) => r.base.stepsPerS),
    0,
  ),
  // Each round's ratio compares two flows measured seconds apart; the median of those is the claim.
  ratio: median(ratios),
  round_ratios: ratios,
  // The claim of issue 53: ours over DBOS Transact's steps/s, each round's pair measured back to back.
  dbos_steps_per_s: round(
    med((r) => r.peer.stepsPerS),
    0,
  ),
  dbos_ratio: round(median(dbosRatios)),
  dbos_round_ratios: dbosRatios,
  dbos_run_p50_ms: med((r) => r.peer.runP50),
  dbos_cpu_ms_per_step: round(
    med((r) => r.peer.cpuMsPerStep),
    3,
  ),
  runs_per_s: round(med((r) => r.mine.stepsPerS) / STEPS, 2),
  run_p50_ms: med((r) => r.mine.runP50),
  run_p99_ms: med((r) => r.mine.runP99),
  run_steps_p50_ms: med((r) => r.mine.stepsP50!),
  baseline_run_p50_ms: med((r) => r.base.runP50),
  cpu_ms_per_step: round(
    med((r) => r.mine.cpuMsPerStep),
    3,
  ),
  baseline_cpu_ms_per_step: round(
    med((r) => r.base.cpuMsPerStep),
    3,
  ),
  durable_chain_steps_per_s: round(
    med((r) => r.durable.stepsPerS),
    0,
  ),
  failed: rounds.reduce((sum, r) => sum + r.mine.failed, 0),
});
process.exit(0);
