// npm run bench:api — the read API under load against a bare baseline, same run.
//
// A fresh database with 100,000 insights and 30 trend points each; our web
// server (auth, quota, cache, ETag, schemas, request logs) and a bare
// node:http + pg server running the same SQL, each in its own process; 50
// concurrent connections for ≥ 10 s per endpoint, after a 2 s warm-up, load
// from autocannon in a process of its own.
// These machines are noisy (a neighbour's burst can triple a p99), so each
// endpoint is measured in BENCH_ROUNDS rounds (default 3) that alternate ours
// and the baseline; every round is printed, and the summary is the median.
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LoadRequest, LoadResult } from './lib/load-generator.js';
import { sql } from 'kysely';
import { createApiKey } from '../src/api-keys/api-key.repository.js';
import { createDb } from '../src/db/connection.js';
import { DIMENSIONS } from '../src/domain/scoring/dimensions.js';
import { createBenchDatabase } from './lib/database.js';
import { median, printJsonLine, printTable, round } from './lib/report.js';
import { procfileNodeFlags } from '../scripts/lib/service-process.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const INSIGHTS = Number(process.env.BENCH_INSIGHTS ?? 100_000);
// 5 s rounds: 3 endpoints × (2 warm-ups of 2 s + 3 rounds × 2 servers × 5 s) is 102 s of load.
// With 10 s rounds it was 192 s, and with the database to build first the bench ran past the 200 s
// a session gives one command (2026-11-28: it timed out on both commits compared).
const DURATION_S = Number(process.env.BENCH_SECONDS ?? 5);
const WARM_UP_S = 2;
const CONNECTIONS = 50;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
// The flags the Procfile gives `web` (its heap bounded: see operations.md). Both
// servers get them, so the comparison stays like for like.
const SERVER_NODE_FLAGS = procfileNodeFlags('web').join(' ');

async function prepareDatabase(): Promise<{ url: string; ids: string[]; dropDatabase: () => Promise<void> }> {
  const database = await createBenchDatabase('api', 1);
  const { db } = database;

  // A realistic dimensions document (every dimension with evidence), ~1.5 KB a row.
  const dimensions = Object.fromEntries(
    DIMENSIONS.map((d, i) => [
      d,
      {
        score: 0.5,
        evidence: { points: 30, related_queries: 25 + i, share: 0.123, level: 42.5, source: 'bench' },
        explanation: `Benchmark evidence for ${d}: a sentence of realistic length explaining the score.`,
      },
    ]),
  );
  const started = Date.now();
  // Each phase is timed: on a machine shared with other work, the checkpoint and sync wait on everyone's writes.
  const phases: string[] = [];
  let phaseStarted = started;
  const phaseDone = (name: string) => {
    const now = Date.now();
    phases.push(`${name} ${round((now - phaseStarted) / 1000, 1)} s`);
    phaseStarted = now;
  };
  // Built server-side: 3 million rows are not worth shipping over the wire one by one. In one
  // transaction that skips the foreign-key triggers (each point's insight is inserted just before
  // it, by construction): checking 3 million references one at a time took 110 s of a 183 s build
  // on a loaded machine (2026-11-28). The rows and indexes are the same; only the check is skipped.
  await db.transaction().execute(async (trx) => {
    await sql`set local session_replication_role = replica`.execute(trx);
    await sql`
    insert into insights (id, idea_key, title, idea, primary_keyword, keywords, category, source,
                          overall_score, confidence, dimensions, dimension_scores, summary, status, created_at)
    select 'ins_' || lpad(to_hex(g), 20, '0'), 'bench:' || g, 'Benchmark insight ' || g,
           'An idea used only by the API benchmark, number ' || g, 'keyword ' || g,
           jsonb_build_array('keyword ' || g, 'other ' || g),
           (array['computers-electronics','finance','health','jobs-education','shopping','travel'])[1 + g % 6],
           'synthetic', round((abs(hashtext(g::text)) % 1000)::numeric / 1000, 3), 0.7,
           ${JSON.stringify(dimensions)}::jsonb,
           ${JSON.stringify(Object.fromEntries(DIMENSIONS.map((d) => [d, 0.5])))}::jsonb, 'Synthetic insight for the API benchmark.', 'active',
           now() - (g || ' minutes')::interval
    from generate_series(1, ${INSIGHTS}) g`.execute(trx);
    phaseDone('insights');
    await sql`
    insert into trend_points (insight_id, date, value, is_partial, fetched_at)
    select i.id, current_date - d, (abs(hashtext(i.id || d)) % 101), d = 0, now()
    from insights i cross join generate_series(0, 29) d`.execute(trx);
    phaseDone('trend points');
  });
  // Vacuum now: autovacuum would otherwise kick in after 3M inserts, during the first measurement.
  await sql`vacuum (analyze)`.execute(db);
  phaseDone('vacuum');
  // And flush the load's dirty buffers now, not during the first measurement:
  // Postgres' to the OS, then the OS's to disk, then let the machine settle.
  await sql`checkpoint`.execute(db);
  execFileSync('sync');
  phaseDone('checkpoint and sync');
  await new Promise((r) => setTimeout(r, Number(process.env.BENCH_SETTLE_S ?? 5) * 1000));
  phaseDone('settle');
  process.stdout.write(
    `prepared ${INSIGHTS} insights × 30 points in ${round((Date.now() - started) / 1000, 1)} s (${phases.join(', ')})\n`,
  );

  const ids = (
    await db
      .selectFrom('insights')
      .select('id')
      .orderBy(sql`random()`)
      .limit(1000)
      .execute()
  ).map((r) => r.id);
  await database.close();
  return { url: database.url, ids, dropDatabase: database.drop };
}

function startServer(script: string, args: string[], env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  return new Promise((resolve, reject) => {
    const child = fork(path.join(here, 'servers', script), args, {
      execArgv: (process.env.BENCH_NODE_FLAGS ?? SERVER_NODE_FLAGS).split(' ').filter(Boolean),
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    child.once('message', (message: { url: string }) => resolve({ url: message.url, child }));
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code} before listening`)));
  });
}

/** The load generator runs in a process of its own (see lib/load-generator.ts). */
function startLoadGenerator(ids: string[]) {
  const child = fork(path.join(here, 'lib', 'load-generator.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  let pending: { resolve(r: LoadResult): void; reject(e: Error): void } | undefined;
  child.on('message', (result: LoadResult) => pending?.resolve(result));
  child.on('exit', (code) => pending?.reject(new Error(`the load generator exited with ${code}`)));
  return {
    load(base: string, urlPath: string, headers: Record<string, string>, seconds: number): Promise<LoadResult> {
      return new Promise((resolve, reject) => {
        // autocannon answers after `seconds`: a generator that never does fails the bench instead of hanging it.
        const deadline = setTimeout(
          () => reject(new Error(`the load generator gave no answer ${seconds + 60} s after a ${seconds} s load of ${urlPath}`)),
          (seconds + 60) * 1000,
        );
        pending = {
          resolve: (r) => {
            clearTimeout(deadline);
            resolve(r);
          },
          reject: (e) => {
            clearTimeout(deadline);
            reject(e);
          },
        };
        const request: LoadRequest = { base, path: urlPath, ids, headers, seconds, connections: CONNECTIONS };
        child.send(request);
      });
    },
    stop: () => child.disconnect(),
  };
}

/** The answers that were not 2xx, by status ("1356 (503 1356)"), or 0. */
const notOk = (r: LoadResult): string | number => {
  const codes = Object.entries(r.statuses).filter(([code]) => !code.startsWith('2'));
  return r.non2xx === 0 ? 0 : `${r.non2xx} (${codes.map(([code, count]) => `${code} ${count}`).join(', ')})`;
};

/** Field by field: the median round's req/s, p50 and p99 (each its own median). */
function medianOf(rs: LoadResult[]): LoadResult {
  return {
    rps: median(rs.map((r) => r.rps)),
    answeredRps: median(rs.map((r) => r.answeredRps)),
    p50: median(rs.map((r) => r.p50)),
    p99: median(rs.map((r) => r.p99)),
    non2xx: rs.reduce((n, r) => n + r.non2xx, 0),
    statuses: rs.reduce<Record<string, number>>((all, r) => {
      for (const [code, count] of Object.entries(r.statuses)) all[code] = (all[code] ?? 0) + count;
      return all;
    }, {}),
    errors: rs.reduce((n, r) => n + r.errors, 0),
  };
}

async function main() {
  const loadSeconds = 3 * (2 * WARM_UP_S + ROUNDS * 2 * DURATION_S);
  process.stdout.write(
    `building the database, then ${loadSeconds} s of load (3 endpoints, ${ROUNDS} rounds of ${DURATION_S} s per server)\n`,
  );
  const prepared = await prepareDatabase();
  const keyDb = createDb(prepared.url, { maxConnections: 1 });
  const { key } = await createApiKey(keyDb, 'bench:api', 'enterprise');
  await keyDb.destroy();

  const ours = await startServer('ours.js', [], {
    DATABASE_URL: prepared.url,
    REDIS_URL,
    REDIS_PREFIX: `bench${process.pid}`,
    PORT: '0',
    LOG_LEVEL: 'info',
  });
  const baseline = await startServer('baseline.js', [prepared.url], {});

  const generator = startLoadGenerator(prepared.ids);
  const load = generator.load;
  // `:id` is a random one of 1,000 insights, per request.
  const endpoints: Array<[string, string]> = [
    ['list', '/api/insights?min_score=0.8&limit=20'],
    ['detail', '/api/insights/:id'],
    ['trend_data', '/api/insights/:id/trend-data'],
  ];
  const auth = { authorization: `Bearer ${key}` };
  const results: Record<string, { ours: LoadResult; baseline: LoadResult }> = {};
  const rounds: Array<Record<string, string | number>> = [];
  try {
    for (const [name, urlPath] of endpoints) {
      process.stdout.write(`${name}: warming up, then ${ROUNDS} rounds of ${DURATION_S} s each for ours and the baseline…\n`);
      await load(ours.url, urlPath, auth, WARM_UP_S);
      await load(baseline.url, urlPath, {}, WARM_UP_S);
      const oursRounds: LoadResult[] = [];
      const baselineRounds: LoadResult[] = [];
      for (let n = 1; n <= ROUNDS; n += 1) {
        const o = await load(ours.url, urlPath, auth, DURATION_S);
        const b = await load(baseline.url, urlPath, {}, DURATION_S);
        oursRounds.push(o);
        baselineRounds.push(b);
        rounds.push({
          endpoint: name,
          round: n,
          'ours req/s': Math.round(o.rps),
          'ours p50': o.p50,
          'ours p99': o.p99,
          'ours non-2xx': notOk(o),
          'baseline req/s': Math.round(b.rps),
          'baseline p99': b.p99,
          ratio: round(o.rps / b.rps, 2),
        });
      }
      results[name] = { ours: medianOf(oursRounds), baseline: medianOf(baselineRounds) };
    }
  } finally {
    generator.stop();
    ours.child.disconnect();
    baseline.child.disconnect();
    await new Promise((r) => setTimeout(r, 500));
    await prepared.dropDatabase();
  }

  printTable(`Every round (${DURATION_S} s each, ours then the baseline)`, rounds);
  printTable(
    `GET endpoints, ${INSIGHTS.toLocaleString('en')} insights, ${CONNECTIONS} connections: median of ${ROUNDS} rounds of ${DURATION_S} s`,
    Object.entries(results).flatMap(([name, r]) => [
      {
        endpoint: name,
        server: 'ours',
        'req/s': round(r.ours.rps, 0),
        'p50 ms': r.ours.p50,
        'p99 ms': r.ours.p99,
        'non-2xx': notOk(r.ours),
        errors: r.ours.errors,
      },
      {
        endpoint: name,
        server: 'baseline',
        'req/s': round(r.baseline.rps, 0),
        'p50 ms': r.baseline.p50,
        'p99 ms': r.baseline.p99,
        'non-2xx': notOk(r.baseline),
        errors: r.baseline.errors,
      },
      {
        endpoint: name,
        server: 'ratio',
        'req/s': round(r.ours.rps / r.baseline.rps, 2),
        'p50 ms': '',
        'p99 ms': '',
        'non-2xx': '',
        errors: '',
      },
    ]),
  );
  const list = results.list!;
  printJsonLine({
    bench: 'api',
    insights: INSIGHTS,
    connections: CONNECTIONS,
    seconds: DURATION_S,
    rounds: ROUNDS,
    list_p99_ms_rounds: rounds.filter((r) => r.endpoint === 'list').map((r) => r['ours p99']),
    list_rps: round(list.ours.rps, 0),
    list_p50_ms: list.ours.p50,
    list_p99_ms: list.ours.p99,
    baseline_rps: round(list.baseline.rps, 0),
    baseline_p99_ms: list.baseline.p99,
    ratio: round(list.ours.rps / list.baseline.rps, 2),
    detail_rps: round(results.detail!.ours.rps, 0),
    detail_baseline_rps: round(results.detail!.baseline.rps, 0),
    detail_p99_ms: results.detail!.ours.p99,
    trend_data_rps: round(results.trend_data!.ours.rps, 0),
    trend_data_baseline_rps: round(results.trend_data!.baseline.rps, 0),
    trend_data_p99_ms: results.trend_data!.ours.p99,
    // req/s above count 2xx answers only; these are every answer, for comparison with figures before 2026-11-28.
    list_answered_rps: round(list.ours.answeredRps, 0),
    non_2xx: Object.fromEntries(Object.entries(results).map(([name, r]) => [name, notOk(r.ours)])),
    errors: Object.values(results).reduce((n, r) => n + r.ours.errors + r.ours.non2xx + r.baseline.errors + r.baseline.non2xx, 0),
  });
}

await main();
