// npm run bench:providers — what research and the daily refresh cost with each
// provider configuration, through a real worker process: requests sent to each
// provider and dollars billed, per research run and per refreshed insight, with
// the dimensions each configuration scores and whether the insight gets
// monthly searches. Providers on loopback: the loopback Google (answering as
// Google does in late 2026, limits off: requests are counted here, not paced)
// and the loopback DataForSEO (billing FAKE_PRICES per task: the price a real
// account pays is in each of its answers, and `insights budget` reads that).
// Baseline measured in the same run: TRENDS_PROVIDER=google, the only
// configuration before providers were declared. Ends with one JSON line.
import { Queue } from 'bullmq';
import { startGoogleOnLoopback, type GoogleOnLoopback } from '../scripts/lib/google-on-loopback/index.js';
import { startDataForSeoOnLoopback, FAKE_PRICES, type DataForSeoOnLoopback } from '../scripts/lib/dataforseo-on-loopback.js';
import { ServiceProcess } from '../scripts/lib/service-process.js';
import { QUEUES } from '../src/queue/queue-names.js';
import { createRedis } from '../src/redis/connection.js';
import { redisKeys } from '../src/redis/keys.js';
import { StepQueue } from '../src/research/step-queue.js';
import { startRun } from '../src/research/start-run.js';
import { enqueue } from '../src/queue/enqueue.js';
import { JOB } from '../src/queue/job-catalogue.js';
import { createBenchDatabase } from './lib/database.js';
import { removePrefixKeys } from './lib/redis-cleanup.js';
import { median, printJsonLine, printTable, round } from './lib/report.js';
import { researchIdeas, waitFor as waitForIn } from './lib/research-ideas.js';

const RUNS = Number(process.env.BENCH_RESEARCH_RUNS ?? 10);
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const CONFIGS = ['google', 'dataforseo', 'google,dataforseo'] as const;
const ideas = researchIdeas(RUNS);
const say = (line: string) => process.stdout.write(`${line}\n`);

const waitFor = <T>(probe: () => Promise<T>, ok: (v: T) => boolean, timeoutMs: number, what: string) =>
  waitForIn('bench:providers', probe, ok, timeoutMs, what);

/** What the loopback DataForSEO answered (and billed) since `from`. */
function billed(fake: DataForSeoOnLoopback, from: number) {
  const answered = fake.requests.slice(from).filter((r) => r.status === 200 && r.code === 20000);
  return {
    requests: answered.length,
    usd: answered.reduce((usd, r) => usd + (r.endpoint === 'other' ? 0 : FAKE_PRICES[r.endpoint]), 0),
  };
}

async function measure(config: (typeof CONFIGS)[number], google: GoogleOnLoopback) {
  // A DataForSEO of its own per configuration: its per-minute limits start afresh, as on a new account.
  const fake = await startDataForSeoOnLoopback({ balanceUsd: 1_000 });
  const db = await createBenchDatabase(`providers_${config.replace(',', '_')}`, 4);
  const prefix = `bp${process.pid}${config.replace(',', '')}`;
  const worker = new ServiceProcess('worker', {
    DATABASE_URL: db.url,
    REDIS_URL,
    REDIS_PREFIX: prefix,
    TRENDS_PROVIDER: config,
    TRENDS_GEO: 'US',
    NODE_EXTRA_CA_CERTS: google.certificates.caPath,
    TRENDS_PROXY_URLS: google.proxies[0]!.url,
    TRENDS_REQUESTS_PER_MINUTE: '0',
    TRENDS_EMBED_GAP_MS: '0',
    TRENDS_WAIT_MS: '2000',
    ...fake.env,
    DATAFORSEO_RETRY_MS: '1000',
    LOG_LEVEL: 'warn',
  });
  const connection = createRedis(REDIS_URL, 'worker');
  const queue = (name: string) => new Queue(name, { connection, prefix: redisKeys(prefix).queuePrefix(name) });
  const research = queue(QUEUES.research);
  const ingest = queue(QUEUES.ingest);
  try {
    await worker.ready;
    google.google.resetCounts();
    const fakeFrom = fake.requests.length;
    const stepQueue = new StepQueue(research);
    const started = Date.now();
    for (const idea of ideas) await startRun(db.db, stepQueue, { idea, hints: [], provider: config.replace(',', '+'), source: 'research' });
    const runs = await waitFor(
      () => db.db.selectFrom('research_runs').select(['status', 'error']).execute(),
      (rows) => rows.every((r) => r.status === 'succeeded' || r.status === 'failed'),
      900_000,
      `${config} research runs`,
    );
    const failed = runs.filter((r) => r.status === 'failed');
    if (failed.length > 0) throw new Error(`bench:providers: ${failed.length} ${config} runs failed: ${failed[0]!.error}`);
    const researchSeconds = (Date.now() - started) / 1000;
    const googleResearch = google.google.totalRequests();
    const paidResearch = billed(fake, fakeFrom);
    const insights = await db.db.selectFrom('insights').select(['dimensions', 'search_volume']).execute();
    const dimensions = insights.map((i) => Object.values(i.dimensions).filter((d) => d.score !== null).length);

    // The refresh of the insights just researched: every one, in groups of up to five per request.
    google.google.resetCounts();
    const refreshFrom = fake.requests.length;
    const refreshStarted = new Date();
    await enqueue(ingest, JOB.refreshAll, {});
    await waitFor(
      () =>
        db.db
          .selectFrom('trend_points')
          .select((eb) => eb.fn.count<number>('insight_id').distinct().as('n'))
          .where('fetched_at', '>=', refreshStarted)
          .executeTakeFirstOrThrow(),
      (r) => Number(r.n) >= insights.length,
      600_000,
      `${config} refresh`,
    );
    const paidRefresh = billed(fake, refreshFrom);
    return {
      config,
      runs: runs.length,
      researchSeconds: round(researchSeconds, 1),
      perRun: {
        googleRequests: round(googleResearch / runs.length, 2),
        paidRequests: round(paidResearch.requests / runs.length, 2),
        usd: round(paidResearch.usd / runs.length, 4),
      },
      perRefreshedInsight: {
        googleRequests: round(google.google.totalRequests() / insights.length, 2),
        paidRequests: round(paidRefresh.requests / insights.length, 2),
        usd: round(paidRefresh.usd / insights.length, 4),
      },
      medianDimensions: median(dimensions),
      withMonthlySearches: insights.filter((i) => i.search_volume !== null).length,
      insights: insights.length,
    };
  } finally {
    await worker.kill('SIGTERM');
    await Promise.all([research.close(), ingest.close()]);
    await removePrefixKeys(connection, prefix);
    connection.disconnect();
    await db.drop();
    await fake.stop();
  }
}

async function main() {
  const google = await startGoogleOnLoopback({ proxies: 1 });
  google.google.setLimits({ requestsPerMinute: 0, embedMinGapMs: 0 });
  try {
    say(`bench:providers — ${RUNS} research runs (market US) and their refresh, per provider configuration`);
    const results = [];
    for (const config of CONFIGS) results.push(await measure(config, google));
    const baseline = results[0]!;
    printTable(
      'Per research run and per refreshed insight (requests sent, dollars billed by the loopback DataForSEO)',
      results.map((r) => ({
        providers: r.config,
        'google req/run': r.perRun.googleRequests,
        'dataforseo req/run': r.perRun.paidRequests,
        '$/run': r.perRun.usd,
        'google req/refresh': r.perRefreshedInsight.googleRequests,
        'dataforseo req/refresh': r.perRefreshedInsight.paidRequests,
        '$/refresh': r.perRefreshedInsight.usd,
        'dimensions (median)': r.medianDimensions,
        'monthly searches': `${r.withMonthlySearches}/${r.insights}`,
        'research s': r.researchSeconds,
      })),
    );
    const ratio = (a: number, b: number) => (b > 0 ? round(a / b, 2) : null);
    printJsonLine({
      bench: 'providers',
      date: new Date().toISOString().slice(0, 10),
      runs: RUNS,
      baseline: 'google',
      results,
      // Google requests a run still needs, against Google alone (the baseline).
      googleRequestsPerRunVsBaseline: Object.fromEntries(
        results.map((r) => [r.config, ratio(r.perRun.googleRequests, baseline.perRun.googleRequests)]),
      ),
    });
  } finally {
    await google.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
