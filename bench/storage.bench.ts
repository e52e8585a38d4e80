// npm run bench:storage — what a research run, an insight and a webhook
// delivery cost in Postgres and Redis, measured, not estimated: research runs
// (synthetic provider) go through the real workers, their insight.created
// events are delivered to a loopback receiver through the real webhook
// pipeline, and then every table's pg_total_relation_size (rows, indexes and
// TOAST) and every Redis key's MEMORY USAGE are read. Baseline in the same
// run: the same tables freshly migrated and empty, subtracted.
// The capacity model (src/domain/capacity/measured-costs.ts) carries the figures.
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { pino } from 'pino';
import { loadConfig } from '../src/config.js';
import type { Db } from '../src/db/connection.js';
import { createRedis, waitForRedis, type Redis } from '../src/redis/connection.js';
import { StepQueue } from '../src/research/step-queue.js';
import { startRun } from '../src/research/start-run.js';
import { SecretBox } from '../src/webhooks/secret-box.js';
import { createSubscription } from '../src/webhooks/subscription.repository.js';
import { startTestWorkers } from '../test/support/services.js';
import { benchResources } from './lib/resources.js';
import { createBenchDatabase } from './lib/database.js';
import { removePrefixKeys } from './lib/redis-cleanup.js';
import { printJsonLine, printTable, round } from './lib/report.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 100);
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
/** Subscriptions every insight.created event matches: 8, about bench:webhooks' 7.89 matches per insight (and enough delivery rows to fill whole pages). */
const SUBSCRIPTIONS = Number(process.env.BENCH_SUBSCRIPTIONS ?? 8);
const DEADLINE_MS = Number(process.env.BENCH_DEADLINE_MS ?? 600_000);

/** Which tables each figure is the sum of. */
const GROUPS = {
  insight: ['insights', 'insight_series', 'trend_points', 'forecasts'],
  run: ['research_runs', 'research_steps', 'research_idempotency_keys', 'outbox_events'],
  delivery: ['webhook_deliveries'],
  attempt: ['webhook_attempts'],
} as const;

async function tableSizes(db: Db): Promise<Map<string, number>> {
  const { rows } = await sql<{ name: string; bytes: string }>`
    select c.relname as name, pg_total_relation_size(c.oid)::text as bytes
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = 'public' and c.relkind = 'r'`.execute(db);
  return new Map(rows.map((r) => [r.name, Number(r.bytes)]));
}

async function rowCount(db: Db, table: string): Promise<number> {
  const { rows } = await sql<{ n: string }>`select count(*)::text as n from ${sql.table(table)}`.execute(db);
  return Number(rows[0]!.n);
}

/** MEMORY USAGE of every key of the prefix, summed by the part of the key that names what it is (the queue, or the store). */
async function redisBytesByPart(redis: Redis, prefix: string): Promise<Map<string, number>> {
  const parts = new Map<string, number>();
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `*${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    for (const key of keys) {
      const bytes = Number((await redis.call('MEMORY', 'USAGE', key, 'SAMPLES', '0')) ?? 0);
      // "{prefix:research}:research:events" → research events; "{prefix:webhooks}:webhooks:deliver-dlv_…" → webhooks jobs
      const store = /^\{?[^:]+:([^}:]+)/.exec(key)?.[1] ?? 'other';
      const last = key.split(':').at(-1)!;
      const part = `${store} ${/^[a-z-]+$/.test(last) ? last : 'jobs'}`;
      parts.set(part, (parts.get(part) ?? 0) + bytes);
    }
  } while (cursor !== '0');
  return parts;
}

async function waitFor(what: string, probe: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + DEADLINE_MS;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`bench:storage: ${what} did not happen within ${DEADLINE_MS} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const prefix = `benchstorage${process.pid}`;
process.stdout.write(
  `${RUNS} research runs (synthetic provider) through the real workers, each insight delivered to ${SUBSCRIPTIONS} subscriptions\n`,
);
const database = await createBenchDatabase('storage', 10);
const { db } = database;
const redis = createRedis(REDIS_URL);
await waitForRedis(redis, REDIS_URL);

// The webhook-id is the event's (one per insight, the same to every subscription): count the subscription's path with it.
const received = new Set<string>();
const receiver = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    received.add(`${req.url} ${String(req.headers['webhook-id'])}`);
    res.writeHead(200).end();
  });
});
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
const encryptionKey = randomBytes(32);
const config = loadConfig({
  REDIS_PREFIX: prefix,
  TRENDS_PROVIDER: 'synthetic',
  WEBHOOK_ENCRYPTION_KEY: encryptionKey.toString('base64'),
  WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32',
});
const empty = await tableSizes(db);
for (let i = 0; i < SUBSCRIPTIONS; i += 1)
  await createSubscription(db, new SecretBox(encryptionKey), {
    url: `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook/${i}`,
    minScore: null,
    categories: [],
    sources: [],
    keywords: [],
    eventTypes: ['insight.created'],
  });
const resources = benchResources(database, redis, REDIS_URL, prefix);
const pipeline = await startTestWorkers(resources, config, pino({ level: 'silent' }));
const stepQueue = new StepQueue(pipeline.queues.research);
const t0 = Date.now();
// Distinct ideas: a run of an idea researched before would update its insight, not add one.
for (let i = 0; i < RUNS; i += 1)
  await startRun(db, stepQueue, {
    idea: `Storage benchmark idea ${i} for remote teams`,
    hints: [],
    provider: 'synthetic',
    source: 'synthetic',
  });
await waitFor(`${RUNS} runs finished and delivered`, async () => {
  const { rows } = await sql<{ n: string }>`select count(*)::text as n from research_runs where status in ('succeeded', 'failed')`.execute(
    db,
  );
  return Number(rows[0]!.n) >= RUNS && received.size >= RUNS * SUBSCRIPTIONS;
});
await waitFor('every delivery recorded', async () => {
  const { rows } = await sql<{ n: string }>`select count(*)::text as n from webhook_deliveries where status = 'succeeded'`.execute(db);
  return Number(rows[0]!.n) >= RUNS * SUBSCRIPTIONS;
});
const seconds = (Date.now() - t0) / 1000;
const redisParts = await redisBytesByPart(redis, prefix);
const written = await tableSizes(db);
const { rows: statuses } = await sql<{
  status: string;
  n: string;
}>`select status, count(*)::text as n from research_runs group by status`.execute(db);
await pipeline.close();
// The same tables with the dead rows of every update removed (what autovacuum would let new rows reuse).
await sql`vacuum full`.execute(db);
const live = await tableSizes(db);

const counts = {
  insight: await rowCount(db, 'insights'),
  run: await rowCount(db, 'research_runs'),
  delivery: await rowCount(db, 'webhook_deliveries'),
  attempt: await rowCount(db, 'webhook_attempts'),
};
const delta = (sizes: Map<string, number>, tables: readonly string[]) =>
  tables.reduce((sum, t) => sum + (sizes.get(t) ?? 0) - (empty.get(t) ?? 0), 0);
const perRow = (sizes: Map<string, number>, group: keyof typeof GROUPS) =>
  Math.round(delta(sizes, GROUPS[group]) / Math.max(1, counts[group]));

printTable(
  'Postgres, per table: bytes added (rows, indexes, TOAST), as written and after VACUUM FULL',
  [...new Set(Object.values(GROUPS).flat())].map((table) => ({
    table,
    written: (written.get(table) ?? 0) - (empty.get(table) ?? 0),
    live: (live.get(table) ?? 0) - (empty.get(table) ?? 0),
  })),
);
const figures = (['insight', 'run', 'delivery', 'attempt'] as const).map((group) => ({
  per: group,
  rows: counts[group],
  'bytes as written': perRow(written, group),
  'bytes live (after VACUUM FULL)': perRow(live, group),
  tables: GROUPS[group].join(' + '),
}));
printTable('Postgres bytes per row of each kind', figures);
const redisTotal = [...redisParts.values()].reduce((a, b) => a + b, 0);
printTable(
  `Redis right after the runs (completed jobs still kept), MEMORY USAGE by part`,
  [...redisParts.entries()].map(([part, bytes]) => ({ part, bytes, 'per run': Math.round(bytes / RUNS) })),
);
process.stdout.write(`runs by status: ${statuses.map((s) => `${s.status} ${s.n}`).join(', ')}; ${round(seconds, 1)} s\n`);

await removePrefixKeys(redis, prefix);
redis.disconnect();
receiver.close();
await database.drop();
printJsonLine({
  bench: 'storage',
  runs: RUNS,
  subscriptions: SUBSCRIPTIONS,
  insights: counts.insight,
  deliveries: counts.delivery,
  attempts: counts.attempt,
  bytes_per_insight: perRow(written, 'insight'),
  bytes_per_run: perRow(written, 'run'),
  bytes_per_delivery: perRow(written, 'delivery'),
  bytes_per_attempt: perRow(written, 'attempt'),
  live_bytes_per_insight: perRow(live, 'insight'),
  live_bytes_per_run: perRow(live, 'run'),
  live_bytes_per_delivery: perRow(live, 'delivery'),
  live_bytes_per_attempt: perRow(live, 'attempt'),
  // The research queue's events stream is at BullMQ's cap (about 10,000 events) after 100 runs of 40 steps.
  redis_events_stream_bytes: redisParts.get('research events') ?? 0,
  // A delivered job, with the webhooks queue's completed set, the parked deliveries' wakes and its share of the match jobs.
  redis_bytes_per_delivery_kept: Math.round(
    ((redisParts.get('webhooks jobs') ?? 0) + (redisParts.get('webhooks completed') ?? 0) + (redisParts.get('webhooks wakes') ?? 0)) /
      Math.max(1, counts.delivery),
  ),
  redis_bytes_per_run: Math.round(redisTotal / RUNS),
  redis_bytes_by_part: Object.fromEntries(redisParts),
  seconds: round(seconds, 1),
});
process.exit(0);
