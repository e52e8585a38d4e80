// The DBOS Transact peer of bench:flow (bench/flow.bench.ts runs it as a child
// process, alternated with our flow): RUNS workflows of STEPS durable steps each,
// started at once on a DBOS queue whose worker concurrency is ours, every step
// checkpointed in DBOS's own system database (its own Postgres database, created
// here by DBOS and dropped at the end). BENCH_DBOS_WORK picks each step's work:
//   research (default): the same work as ours, our 40 research steps against the
//     synthetic provider (bench/lib/research-workload.ts, from dist/: `npm run build`
//     first), each step's output recorded by DBOS as ours records it;
//   trivial: a digest of the previous output, to see DBOS's own cost per step.
// Prints one JSON line: seconds, per-run durations' p50/p99, CPU.
// Plain JavaScript so the peer needs no build; installed apart from the product:
//   npm ci --prefix bench/peers/dbos
import { createHash } from 'node:crypto';
import pg from 'pg';
import { DBOS } from '@dbos-inc/dbos-sdk';

const WORK = process.env.BENCH_DBOS_WORK ?? 'research';
const workload = WORK === 'research' ? await import('../../../dist/bench/lib/research-workload.js') : undefined;
const RUNS = Number(process.env.BENCH_RUNS ?? 200);
const STEPS = workload ? workload.STEP_COUNT : Number(process.env.BENCH_STEPS ?? 40);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 20);
// DBOS's queue dispatcher polls Postgres; 1,000 ms is its default, far too slow for 20 ms runs. The
// peer gets its best setting found on this machine (2026-11-29: 10 ms beat 50 and 100), not its default.
const POLL_MS = Number(process.env.BENCH_DBOS_POLL_MS ?? 10);
const ADMIN_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const systemDatabase = `si_bench_dbos_${process.pid}`;
const url = new URL(ADMIN_URL);
url.pathname = `/${systemDatabase}`;

const started = new Map();
const durations = [];
let resolveDone;
const done = new Promise((resolve) => (resolveDone = resolve));

/** One step's trivial work: a digest of the previous output, as small as a synthetic step's summary. */
async function step(n, previous) {
  const digest = createHash('sha1').update(JSON.stringify(previous)).digest('hex').slice(0, 12);
  return { step: n, digest };
}

const research = DBOS.registerWorkflow(
  async (run) => {
    let output = { run };
    // What later steps read, by step name, parsed from what was recorded (as ours reads Postgres).
    const outputs = {};
    const idea = `Benchmark idea ${run} for remote teams`;
    for (let n = 1; n <= STEPS; n += 1) {
      const previous = output;
      if (workload) {
        const json = await DBOS.runStep(() => workload.runResearchStep(`run-${run}`, idea, n, outputs), { name: `step_${n}` });
        outputs[workload.stepName(n)] = JSON.parse(json);
      } else output = await DBOS.runStep(() => step(n, previous), { name: `step_${n}` });
    }
    // The workflow's end as the bench sees it: every step checkpointed.
    durations.push(Date.now() - started.get(run));
    if (durations.length === RUNS) resolveDone();
    return output;
  },
  { name: 'research' },
);

DBOS.setConfig({
  name: 'si-bench-flow',
  systemDatabaseUrl: url.toString(),
  // Ours runs with a pool of 20 (bench/flow.bench.ts's createBenchDatabase).
  systemDatabasePoolSize: 20,
  logLevel: 'error',
});
await DBOS.launch();
const queue = await DBOS.registerQueue('research', { workerConcurrency: CONCURRENCY, minPollingIntervalMs: POLL_MS });

const t0 = Date.now();
const cpu0 = process.cpuUsage();
for (let run = 0; run < RUNS; run += 1) {
  started.set(run, Date.now());
  await DBOS.startWorkflow(research, { workflowID: `run-${process.pid}-${run}`, queueName: queue.name })(run);
}
await done;
const seconds = (Date.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);
await DBOS.shutdown();

// Every step checkpointed once: the peer did the durable work it claims.
const admin = new pg.Client({ connectionString: ADMIN_URL });
await admin.connect();
const check = new pg.Client({ connectionString: url.toString() });
await check.connect();
const { rows } = await check.query(`select count(*)::int as n from dbos.operation_outputs where function_name like 'step\\_%'`);
const { rows: statuses } = await check.query(`select count(*)::int as n from dbos.workflow_status where status = 'SUCCESS'`);
await check.end();
await admin.query(`drop database if exists "${systemDatabase}" with (force)`);
await admin.end();

const sorted = [...durations].sort((a, b) => a - b);
process.stdout.write(
  `${JSON.stringify({
    peer: 'dbos',
    version: '5.3.0',
    work: WORK,
    runs: RUNS,
    steps: STEPS,
    concurrency: CONCURRENCY,
    poll_ms: POLL_MS,
    seconds,
    run_p50_ms: sorted[Math.floor((sorted.length - 1) / 2)],
    run_p99_ms: sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))],
    cpu_ms: (cpu.user + cpu.system) / 1000,
    checkpointed_steps: rows[0].n,
    succeeded: statuses[0].n,
  })}\n`,
);
process.exit(0);
