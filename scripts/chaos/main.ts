// `npm run chaos [-- --topology single|cluster --seed N --duration SECONDS --faults N --runs N --settle SECONDS --kinds a,b]`
// A bounded chaos soak on loopback (see soak.ts): on a single Postgres and
// Redis (the default), or on a Redis Cluster with replicas and a Postgres
// primary with a streaming replica (`--topology cluster`). Prints what it
// injects, a summary, and ends with one JSON line; exits 1 on any violation.
// Everything it started is stopped on every exit path, a watchdog included.
import { TOPOLOGIES, type TopologyName } from './deployments.js';
import { emergencyStop, runSoak } from './soak.js';

const USAGE = `usage: npm run chaos -- [--topology ${TOPOLOGIES.join('|')}] [--seed N] [--duration SECONDS] [--faults N] [--runs N] [--settle SECONDS] [--kinds a,b]
  --topology  single (one Redis, one Postgres; the default) or cluster (Redis Cluster 3+3, a Postgres replica, 2 web and 2 workers)
  --seed      replays a soak: the same faults at the same moments (random by default)
  --duration  seconds of faults (300); --faults how many (45 per 300 s); --runs research runs submitted (one per 6 s)
  --settle    seconds to wait for every run and delivery to finish after the faults (240)
  --kinds     only these fault kinds (the soak names the kinds of its topology)
Ends with one JSON line; exit 0 without violations, 1 with any, 2 for bad arguments.
`;
const FLAGS = new Set(['--topology', '--seed', '--duration', '--faults', '--runs', '--settle', '--kinds']);

/** --help prints the usage; a flag the soak does not know is refused rather than ignored (a soak with the defaults would start). */
function checkArguments(args: readonly string[]): void {
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(USAGE);
    process.exit(0);
  }
  for (let i = 0; i < args.length; i += 2) {
    if (!FLAGS.has(args[i]!)) {
      process.stderr.write(`chaos: unknown argument "${args[i]}"\n${USAGE}`);
      process.exit(2);
    }
  }
}
checkArguments(process.argv.slice(2));

function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  if (i === -1) return fallback;
  const value = Number(process.argv[i + 1]);
  if (!Number.isInteger(value) || value < 0) {
    process.stderr.write(`chaos: --${name} needs a whole number (got "${process.argv[i + 1] ?? ''}")\n`);
    process.exit(2);
  }
  return value;
}

function topologyOption(): TopologyName {
  const i = process.argv.indexOf('--topology');
  if (i === -1) return 'single';
  const value = process.argv[i + 1] ?? '';
  if (!(TOPOLOGIES as readonly string[]).includes(value)) {
    process.stderr.write(`chaos: --topology is one of ${TOPOLOGIES.join(', ')} (got "${value}")\n`);
    process.exit(2);
  }
  return value as TopologyName;
}

/** `--kinds a,b,…`: only these faults (checked against the topology's once it is up). */
function kindsOption(): string[] | undefined {
  const i = process.argv.indexOf('--kinds');
  if (i === -1) return undefined;
  const kinds = (process.argv[i + 1] ?? '').split(',').filter(Boolean);
  if (kinds.length === 0) {
    process.stderr.write('chaos: --kinds needs a comma-separated list of fault kinds\n');
    process.exit(2);
  }
  return kinds;
}

const topology = topologyOption();
const kinds = kindsOption();
const seed = option('seed', Math.floor(Math.random() * 1_000_000));
const durationS = option('duration', 300);
const targetFaults = option('faults', Math.max(10, Math.round((durationS / 300) * 45)));
const runs = option('runs', Math.max(10, Math.round(durationS / 6)));
const settleS = option('settle', 240);
const say = (line: string) => process.stdout.write(`${line}\n`);

// Bounded even if something hangs: setup (longer for the cluster's 8 servers: over 4 minutes on a 2-core
// machine at a load of 30, 2026-11-29), the soak, the settle window, and a margin.
const watchdogMs = ((topology === 'cluster' ? 480 : 120) + 2 * durationS + settleS + 120) * 1000;
const watchdog = setTimeout(() => {
  say(`chaos: watchdog: the soak did not finish within ${watchdogMs / 1000} s; stopping everything`);
  say(JSON.stringify({ chaos: 'soak', topology, seed, ok: false, violations: ['watchdog: the soak did not finish in time'] }));
  void emergencyStop().finally(() => process.exit(1));
}, watchdogMs);
// A harness bug must not leave servers running: stop everything, then fail.
process.once('unhandledRejection', (error) => {
  say(`chaos: harness error: ${error instanceof Error ? error.stack : String(error)}; stopping everything`);
  say(JSON.stringify({ chaos: 'soak', topology, seed, ok: false, violations: [`harness error: ${String(error)}`] }));
  void emergencyStop().finally(() => process.exit(1));
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    say(`chaos: ${signal}: stopping everything`);
    void emergencyStop().finally(() => process.exit(130));
  });
}

say(
  `chaos soak (${topology}): seed ${seed}, ${durationS} s, aiming at ${targetFaults} faults${kinds ? ` of ${kinds.join(', ')}` : ''}, ${runs} research runs (replay with --seed ${seed})`,
);
try {
  const result = await runSoak({
    topology,
    seed,
    durationMs: durationS * 1000,
    targetFaults,
    runs,
    settleMs: settleS * 1000,
    ...(kinds ? { kinds } : {}),
    log: say,
  });
  clearTimeout(watchdog);
  say('');
  say(
    `faults injected: ${result.faults} (${Object.entries(result.faults_by_kind)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')})`,
  );
  say(
    `research runs: ${result.runs_succeeded}/${result.runs} succeeded, ${result.steps_recorded} steps recorded, ${result.insights} insights`,
  );
  say(
    `webhooks: ${result.deliveries_succeeded}/${result.deliveries_expected} deliveries succeeded, ${result.webhook_requests} requests received`,
  );
  say(
    `API: ${result.api_requests} answers ${JSON.stringify(result.api_status)}, ${result.api_transport_errors} transport errors (processes being killed), Free key max ${result.free_key_max_granted}/100${topology === 'cluster' ? `, read from ${JSON.stringify(result.api_read_from)}` : ''}`,
  );
  const fence = result.fence;
  say(
    `read-your-writes: ${fence.probes} probes (a run just accepted, an insight just announced) read from ${JSON.stringify(fence.readFrom)}, ${fence.stale} stale, ${fence.unanswered} unanswered within a minute`,
  );
  const w = result.webhook_api;
  say(
    `webhook API: ${w.requests} answers ${JSON.stringify(w.status)}, ${w.creates} creates (${w.replayed} answered from before, ${w.limitRefusals} at the plan's limit, ${w.quotaRefusals} past the quota), ${w.updates} updates (${w.preconditionFailures} 412), ${w.deletes} deletes, ${w.transportErrors} transport errors`,
  );
  const r = result.research_api;
  say(
    `research API: ${r.accepted} runs accepted (${r.replayed} answered from before), ${r.requests} answers ${JSON.stringify(r.status)}, ${r.transportErrors} transport errors, ${r.unanswered} unanswered, ${r.unexpected} unexpected`,
  );
  const f = result.webhook_flood;
  say(
    `webhook flood (Free and Starter at a silent receiver): ${f.requests} answers ${JSON.stringify(f.status)}, ${f.pings} pings and ${f.replayed} replays sent, ${f.sendsRefused} refused past the plan's sends, ${f.quotaRefused} past the quota; the receiver held at most ${JSON.stringify(f.silent_receiver_most_at_once)} at once (${f.silent_receiver_connections} connections)`,
  );
  const o = result.operator_cli;
  if (o.invocations > 0)
    say(
      `operator CLI: ${o.invocations} \`insights research\` (${o.failures} failed, ${o.killed} killed at the 300 s limit), median ${o.median_ms} ms, slowest ${o.max_ms} ms`,
    );
  say(
    `processes: ${result.unexpected_exits} exited on their own, ${result.supervised_restarts} of them during an outage and ready again after the supervisor's restart, with nothing lost`,
  );
  say(`recovery: /readyz 200 ${result.readyz_recovery_ms ?? '—'} ms after the last fault, all work done ${result.settle_ms} ms after it`);
  say(
    result.violations.length === 0
      ? 'violations: none'
      : `violations (${result.violations.length}):\n  - ${result.violations.join('\n  - ')}`,
  );
  say(JSON.stringify({ chaos: 'soak', ...result, ok: result.violations.length === 0 }));
  process.exit(result.violations.length === 0 ? 0 : 1);
} catch (error) {
  clearTimeout(watchdog);
  say(`chaos: the soak could not run: ${error instanceof Error ? error.stack : String(error)}`);
  say(JSON.stringify({ chaos: 'soak', topology, seed, ok: false, violations: [`harness error: ${String(error)}`] }));
  await emergencyStop();
  process.exit(1);
}
