// npm run bench:ingest — refresh 10,000 insights with the synthetic provider and
// no rate limit through the real queue and workers (fetch + refit + rescore +
// write). CPU is counted for Node and for the Postgres and Redis processes
// (from /proc), so the writes' cost is not hidden in another process.
// Baseline in the same run: the same transactional writes done directly (no
// queue, no fetch, no refit, no rescore), same concurrency.
import { readFileSync, readdirSync } from 'node:fs';
import { sql } from 'kysely';
import { pino } from 'pino';
import { loadConfig } from '../src/config.js';
import type { Db } from '../src/db/connection.js';
import { createRedis, waitForRedis } from '../src/redis/connection.js';
import { startTestWorkers } from '../test/support/services.js';
import { DIMENSIONS } from '../src/domain/scoring/dimensions.js';
import { benchResources } from './lib/resources.js';
import { createBenchDatabase } from './lib/database.js';
import { removePrefixKeys } from './lib/redis-cleanup.js';
import { printJsonLine, printTable, round } from './lib/report.js';
import { enqueue } from '../src/queue/enqueue.js';
import { JOB } from '../src/queue/job-catalogue.js';

const N = Number(process.env.BENCH_INSIGHTS ?? 10_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 20);
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const TICKS = 100; // USER_HZ on Linux

/** CPU ms used so far by every process whose command name matches. */
function processCpuMs(match: RegExp): number {
  let ticks = 0;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      if (!match.test(name)) continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]); // utime + stime
    } catch {
      // the process ended
    }
  }
  return (ticks * 1000) / TICKS;
}
const cpu = () => {
  const self = process.cpuUsage();
  return { node: (self.user + self.system) / 1000, postgres: processCpuMs(/^postgres$/), redis: processCpuMs(/^redis-server/) };
};

async function seed(db: Db) {
  const dims = Object.fromEntries(DIMENSIONS.map((d) => [d, { score: 0.5, evidence: { seeded: true }, explanation: 'benchmark seed' }]));
  await sql`
    insert into insights (id, idea_key, title, idea, primary_keyword, keywords, category, source, overall_score, confidence, dimensions, dimension_scores, summary, status)
    select 'ins_' || lpad(to_hex(g), 20, '0'), 'bench-ingest ' || g, 'Ingest benchmark ' || g, 'Ingest benchmark idea ' || g, 'keyword ' || g,
           '[]'::jsonb, 'computers-electronics', 'synthetic', 0.5, 0.5, ${JSON.stringify(dims)}::jsonb, '{}'::jsonb, '', 'active'
    from generate_series(1, ${N}) g`.execute(db);
}

const database = await createBenchDatabase('ingest', CONCURRENCY);
const { db } = database;
await seed(db);
const redis = createRedis(REDIS_URL);
await waitForRedis(redis, REDIS_URL);
const prefix = `benchingest${process.pid}`;

// Baseline: the refresh's writes alone, same concurrency.
const points = Array.from({ length: 30 }, (_, i) => ({
  date: new Date(Date.UTC(2026, 9, 1 + i)).toISOString().slice(0, 10),
  value: (i * 7) % 101,
}));
const ids = (await db.selectFrom('insights').select('id').orderBy('id').execute()).map((r) => r.id);
const b0 = cpu();
const bt0 = Date.now();
let next = 0;
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    while (next < ids.length) {
      const id = ids[next++]!;
      await db.transaction().execute(async (trx) => {
        await trx.deleteFrom('trend_points').where('insight_id', '=', id).execute();
        await trx
          .insertInto('trend_points')
          .values(points.map((p) => ({ insight_id: id, date: p.date, value: p.value, is_partial: false, fetched_at: new Date() })))
          .execute();
        await trx
          .insertInto('forecasts')
          .values({
            insight_id: id,
            model: 'baseline',
            generated_at: new Date(),
            horizon: 7,
            withheld: false,
            reason: null,
            points: '[]',
            backtest: null,
          })
          .onConflict((oc) => oc.column('insight_id').doUpdateSet({ generated_at: new Date() }))
          .execute();
        await trx.updateTable('insights').set({ overall_score: 0.5, updated_at: new Date() }).where('id', '=', id).execute();
      });
    }
  }),
);
const baselineSeconds = (Date.now() - bt0) / 1000;
const b1 = cpu();
await sql`delete from forecasts`.execute(db);
await sql`vacuum (analyze)`.execute(db);

// Ours: the real refresh pipeline.
const resources = benchResources(database, redis, REDIS_URL, prefix);
const config = loadConfig({ REDIS_PREFIX: prefix, TRENDS_PROVIDER: 'synthetic', RESEARCH_CONCURRENCY: String(CONCURRENCY) });
const pipeline = await startTestWorkers(resources, config, pino({ level: 'silent' }));
const o0 = cpu();
const ot0 = Date.now();
await enqueue(pipeline.queues.ingest, JOB.refreshAll, {});
for (;;) {
  const { n } = await db
    .selectFrom('forecasts')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  if (Number(n) >= N) break;
  await new Promise((r) => setTimeout(r, 100));
}
const oursSeconds = (Date.now() - ot0) / 1000;
const o1 = cpu();
const failed = await pipeline.queues.ingest.getFailedCount();
await pipeline.close();
await removePrefixKeys(redis, prefix);
redis.disconnect();
await database.drop();

const per = (a: ReturnType<typeof cpu>, b: ReturnType<typeof cpu>, key: 'node' | 'postgres' | 'redis') => (b[key] - a[key]) / N;
const row = (name: string, seconds: number, a: ReturnType<typeof cpu>, b: ReturnType<typeof cpu>) => ({
  flow: name,
  'refreshes/s': round(N / seconds, 0),
  'node ms/refresh': round(per(a, b, 'node'), 2),
  'postgres ms': round(per(a, b, 'postgres'), 2),
  'redis ms': round(per(a, b, 'redis'), 2),
  'total CPU ms': round(per(a, b, 'node') + per(a, b, 'postgres') + per(a, b, 'redis'), 2),
});
const ours = row('ours (fetch+refit+rescore+write, via queue)', oursSeconds, o0, o1);
const base = row('baseline (the writes alone, direct)', baselineSeconds, b0, b1);
printTable(`Refreshing ${N.toLocaleString('en')} insights, synthetic provider, no rate limit, concurrency ${CONCURRENCY}`, [ours, base]);
printJsonLine({
  bench: 'ingest',
  insights: N,
  refreshes_per_s: ours['refreshes/s'],
  cpu_ms_per_refresh: ours['total CPU ms'],
  node_cpu_ms_per_refresh: ours['node ms/refresh'],
  postgres_cpu_ms_per_refresh: ours['postgres ms'],
  redis_cpu_ms_per_refresh: ours['redis ms'],
  baseline_refreshes_per_s: base['refreshes/s'],
  baseline_cpu_ms_per_refresh: base['total CPU ms'],
  failed,
});
process.exit(0);
