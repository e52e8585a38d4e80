// npm run bench:google — what research and the refresh cost in Google's scarce
// requests, and how many research runs a route finishes in an hour under
// today's limits, through the real google provider in a real worker process
// talking to the loopback Google (scripts/lib/google-on-loopback, answering as
// Google does today) through CONNECT proxies. Baselines measured in the same run:
//   research  the same ideas with TRENDS_REQUEST_PLAN=single (one keyword per
//             request, as before) — jobs, HTTPS requests and every dimension's score;
//   refresh   one request per insight (what it was), against groups of five;
//   accuracy  on real 5-keyword answers (TRENDS_BATCHES_FILE): the series the
//             refresh serves, against what one-keyword requests serve;
//   proxies   one proxy against three at the same per-proxy rate, and three with
//             one blocked by Google;
//   limits    research runs completed in an hour by one route against Google's
//             limits of late 2026 (a warm address: the cookie from the home page
//             only; 12 HTTPS requests a minute per address; embed pages at least
//             6 s apart, an over-quota token otherwise; blocks of 30 minutes with
//             Retry-After that start over when asked again early), with the
//             shipped pacing (10 requests a minute, embed pages 8 s apart,
//             cooldowns of 10 to 60 minutes) against the previous settings (12 a
//             minute, embed pages at the request pace), on a clock scaled by
//             BENCH_TIME_SCALE (default 20: an hour is 3 minutes).
// Ends with one JSON line.
import path from 'node:path';
import { Queue } from 'bullmq';
import { newId } from '../src/domain/ids.js';
import { scoreDemand } from '../src/domain/scoring/dimension-scores.js';
import { DIMENSIONS } from '../src/domain/scoring/dimensions.js';
import { assessMomentum } from '../src/domain/scoring/momentum.js';
import { JOBS, QUEUES } from '../src/queue/queue-names.js';
import { createRedis } from '../src/redis/connection.js';
import { redisKeys } from '../src/redis/keys.js';
import { StepQueue } from '../src/research/step-queue.js';
import { startRun } from '../src/research/start-run.js';
import { routesFrom } from '../src/providers/google/egress/routes.js';
import { GoogleTrendsProvider, timeRange } from '../src/providers/google/provider.js';
import { upsertInsight } from '../src/insights/insight.repository.js';
import { startGoogleOnLoopback, type GoogleOnLoopback } from '../scripts/lib/google-on-loopback/index.js';
import { ServiceProcess } from '../scripts/lib/service-process.js';
import { MIN_PEAK_IN_BATCH } from '../src/domain/trends/google/batching.js';
import { measureBatchedSeries, summarize } from './lib/batches.js';
import { createBenchDatabase, type BenchDatabase } from './lib/database.js';
import { removePrefixKeys } from './lib/redis-cleanup.js';
import { median, printJsonLine, printTable, round } from './lib/report.js';
import { researchIdeas, waitFor as waitForIn } from './lib/research-ideas.js';
import { requireDataFile, SHARED_DATA } from './lib/shared-data.js';
import { enqueue, enqueueMany } from '../src/queue/enqueue.js';
import { JOB } from '../src/queue/job-catalogue.js';
import { COUNTED_FAMILY_OF, emptyFamilyCounts, perUnit, type ExchangeKind, type FamilyCounts } from '../src/providers/google/families.js';

const RESEARCH_RUNS = Number(process.env.BENCH_RESEARCH_RUNS ?? 12);
const REFRESH_INSIGHTS = Number(process.env.BENCH_REFRESH_INSIGHTS ?? 100);
const PROXY_WINDOW_S = Number(process.env.BENCH_PROXY_WINDOW_S ?? 20);
const PROXY_RATE = 120; // HTTPS requests per proxy per minute in the throughput comparison
const SCALE = Number(process.env.BENCH_TIME_SCALE ?? 20);
const MINUTE_MS = 60_000 / SCALE;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const BATCHES_FILE = requireDataFile(
  'google',
  process.env.TRENDS_BATCHES_FILE ?? path.join(SHARED_DATA, 'trends-batches/gtab-us-batches.csv'),
  'set TRENDS_BATCHES_FILE to a file in the format of bench/lib/batches.ts',
);

const PHASES = new Set((process.env.BENCH_PHASES ?? 'research,refresh,accuracy,proxies,limits').split(','));
/** Rounds of the limits phase, the shipped plan and the new one alternated in each (the median is reported). */
const LIMIT_ROUNDS = Number(process.env.BENCH_LIMIT_ROUNDS ?? 2);
const ideas = researchIdeas(RESEARCH_RUNS);

/**
 * The exchange each kind of request the loopback Google counts stands for (its families are the
 * product's own table, COUNTED_FAMILY_OF). Refusals and the sorry page are no family's; nor is
 * `dailytrends`, which the product stopped asking when Google retired it (404 since 2025-02-23).
 */
const LOOPBACK_EXCHANGE: Readonly<Record<string, ExchangeKind>> = {
  home: 'home_page',
  page: 'cookie_page',
  embed: 'embed_page',
  explore: 'explore',
  multiline: 'multiline',
  // The embed flow's relatedsearches too: widget data either way.
  relatedsearches: 'relatedsearches',
  comparedgeo: 'comparedgeo',
  autocomplete: 'autocomplete',
  trending_rss: 'trending_rss',
  trending_rpc: 'trending_rpc',
  trending_page: 'trending_page',
};
function familyCounts(counts: ReadonlyMap<string, number>): FamilyCounts {
  const out = emptyFamilyCounts();
  for (const [kind, n] of counts) {
    const exchange = LOOPBACK_EXCHANGE[kind];
    if (exchange) out[COUNTED_FAMILY_OF[exchange]] += n;
  }
  return out;
}
const say = (line: string) => process.stdout.write(`${line}\n`);
const row = (s: ReturnType<typeof summarize>) => ({
  series: s.series,
  'median mae': s.median ?? '—',
  'p95 mae': s.p95 ?? '—',
  'share <= 5': s.within5 ?? '—',
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const waitFor = <T>(probe: () => Promise<T>, ok: (v: T) => boolean, timeoutMs: number, what: string) =>
  waitForIn('bench:google', probe, ok, timeoutMs, what);

interface Phase {
  db: BenchDatabase;
  prefix: string;
  worker: ServiceProcess;
  queue(name: string): Queue;
  close(): Promise<void>;
}

async function phase(name: string, google: GoogleOnLoopback, env: Record<string, string>, keepDb = false): Promise<Phase> {
  const db = await createBenchDatabase(`google_${name}`, 4);
  const prefix = `bg${process.pid}${name}`;
  const worker = new ServiceProcess('worker', {
    DATABASE_URL: db.url,
    REDIS_URL,
    REDIS_PREFIX: prefix,
    TRENDS_PROVIDER: 'google',
    NODE_EXTRA_CA_CERTS: google.certificates.caPath,
    TRENDS_REQUESTS_PER_MINUTE: '0',
    TRENDS_EMBED_GAP_MS: '0',
    TRENDS_COOLDOWN_MS: '500',
    TRENDS_COOLDOWN_MAX_MS: '2000',
    TRENDS_WAIT_MS: '2000',
    LOG_LEVEL: 'warn',
    ...env,
  });
  await worker.ready;
  const connection = createRedis(REDIS_URL, 'worker');
  const queues: Queue[] = [];
  return {
    db,
    prefix,
    worker,
    queue(q: string) {
      // The worker's own key layout (a hash tag per queue): anything else is a queue no worker reads.
      const queue = new Queue(q, { connection, prefix: redisKeys(prefix).queuePrefix(q) });
      queues.push(queue);
      return queue;
    },
    async close() {
      await worker.kill('SIGTERM');
      await Promise.all(queues.map((q) => q.close()));
      await removePrefixKeys(connection, prefix);
      connection.disconnect();
      if (keepDb) await db.close();
      else await db.drop();
    },
  };
}

async function research(google: GoogleOnLoopback, plan: 'single' | 'batched' | 'shared') {
  google.google.resetCounts();
  google.google.resetClients();
  // Requests are counted here, not limited: the limits have a phase of their own.
  google.google.setLimits({ requestsPerMinute: 0, embedMinGapMs: 0 });
  const p = await phase(`research_${plan}`, google, { TRENDS_REQUEST_PLAN: plan, TRENDS_PROXY_URLS: google.proxies[0]!.url });
  try {
    const stepQueue = new StepQueue(p.queue(QUEUES.research));
    const started = Date.now();
    for (const idea of ideas) await startRun(p.db.db, stepQueue, { idea, hints: [], provider: 'google', source: 'research' });
    const runs = await waitFor(
      () => p.db.db.selectFrom('research_runs').select(['status', 'error']).execute(),
      (rows) => rows.every((r) => r.status === 'succeeded' || r.status === 'failed'),
      600_000,
      `${plan} research runs`,
    );
    const failed = runs.filter((r) => r.status === 'failed');
    if (failed.length > 0) throw new Error(`bench:google: ${failed.length} ${plan} runs failed: ${failed[0]!.error}`);
    const counts = await p.queue(QUEUES.trends).getJobCounts('completed', 'failed');
    const insights = await p.db.db
      .selectFrom('insights')
      .select(['idea_key', 'primary_keyword', 'dimensions', 'dimension_scores', 'overall_score'])
      .execute();
    // How far demand and momentum are from what the simulated world really holds (no sampling noise, no rounding of a shared scale).
    const now = new Date();
    const window = (tf: '12m' | '90d' | '30d') => timeRange(tf, now).split(' ') as [string, string];
    const truthError = new Map<string, { demand: number | null; momentum: number | null }>();
    for (const i of insights) {
      const [y0, y1] = window('12m');
      const year = google.world.timeline([i.primary_keyword, 'weather'], y0, y1, 'truth', { noise: false });
      const mean = (k: number) => year.reduce((sum, r) => sum + r.values[k]!, 0) / year.length;
      const trueDemand = scoreDemand({ anchor: 'weather', phraseMean: mean(0), anchorMean: mean(1) }).score;
      const [m0, m1] = window('30d');
      const [q0, q1] = window('90d');
      const days = (rows: ReturnType<typeof google.world.timeline>) =>
        rows.map((r) => ({ date: new Date(r.time * 1000).toISOString().slice(0, 10), value: r.values[0]!, isPartial: r.partial }));
      const trueMomentum = assessMomentum({
        days30: days(google.world.timeline([i.primary_keyword], m0, m1, 'truth', { noise: false })),
        days90: days(google.world.timeline([i.primary_keyword], q0, q1, 'truth', { noise: false })),
      }).momentum.score;
      const err = (a: number | null | undefined, b: number | null) =>
        typeof a === 'number' && typeof b === 'number' ? Math.abs(a - b) : null;
      truthError.set(i.idea_key, {
        demand: err(i.dimension_scores.demand, trueDemand),
        momentum: err(i.dimension_scores.momentum, trueMomentum),
      });
    }
    return {
      plan,
      runs: runs.length,
      seconds: (Date.now() - started) / 1000,
      jobs: (counts.completed ?? 0) + (counts.failed ?? 0),
      https: google.google.totalRequests(),
      families: familyCounts(google.google.counts),
      cookiePages: (google.google.counts.get('home') ?? 0) + (google.google.counts.get('page') ?? 0),
      embedPages: google.google.counts.get('embed') ?? 0,
      // The embed flow is the page and its data request.
      embedHttps: 2 * (google.google.counts.get('embed') ?? 0),
      scores: new Map(insights.map((i) => [i.idea_key, { ...i.dimension_scores, overall: i.overall_score }])),
      truthError,
    };
  } finally {
    await p.close();
  }
}

/** Popularity against the anchor, as research step 12 measures it: [keyword, anchor] over 12 months. */
async function levelOf(provider: GoogleTrendsProvider, google: GoogleOnLoopback, keyword: string): Promise<number | null> {
  const [route] = routesFrom([google.proxies[1]!.url]);
  const answer = await provider.fetch({ kind: 'interestOverTime', keywords: [keyword, 'weather'], timeframe: '12m', geo: '' }, route);
  if (answer.kind !== 'interestOverTime') return null;
  const mean = (i: number) => answer.points.reduce((s, p) => s + (p.values[i] ?? 0), 0) / Math.max(1, answer.points.length);
  return mean(1) > 0 && mean(0) > 0 ? mean(0) / mean(1) : null;
}

async function refresh(google: GoogleOnLoopback) {
  google.google.setLimits({ requestsPerMinute: 0, embedMinGapMs: 0 });
  const provider = new GoogleTrendsProvider({ ca: google.certificates.ca, timeoutMs: 10_000 });
  const p = await phase('refresh', google, { TRENDS_PROXY_URLS: google.proxies[0]!.url });
  try {
    // Keywords Google has data for: one without data is not refreshed (its previous series is kept), which says nothing about cost.
    const keywords: string[] = [];
    for (let i = 0; keywords.length < REFRESH_INSIGHTS; i += 1)
      if (google.world.hasData(`catalog idea ${i}`)) keywords.push(`catalog idea ${i}`);
    for (const keyword of keywords) {
      await upsertInsight(p.db.db, {
        id: newId('insight'),
        idea_key: keyword,
        title: keyword,
        idea: keyword,
        primary_keyword: keyword,
        keywords: [keyword],
        category: 'computers-electronics',
        source: 'research',
        overall_score: 0.5,
        confidence: 0.5,
        summary: 'bench',
        status: 'active',
        interest_level: await levelOf(provider, google, keyword),
        dimensions: Object.fromEntries(DIMENSIONS.map((d) => [d, { score: 0.5, evidence: {}, explanation: 'bench' }])) as never,
      });
    }
    const known = (await p.db.db.selectFrom('insights').select('interest_level').execute()).filter((r) => r.interest_level !== null).length;
    google.google.resetCounts();
    const started = Date.now();
    const ingest = p.queue(QUEUES.ingest);
    await enqueue(ingest, JOB.refreshAll, {});
    const refreshed = () =>
      p.db.db
        .selectFrom('trend_points')
        .select((eb) => eb.fn.count<number>('insight_id').distinct().as('n'))
        .where('fetched_at', '>=', new Date(started))
        .executeTakeFirstOrThrow();
    await waitFor(refreshed, (r) => Number(r.n) >= REFRESH_INSIGHTS, 600_000, 'every insight refreshed');
    const counts = await p.queue(QUEUES.trends).getJobCounts('completed', 'failed');
    const ingestCounts = await ingest.getJobCounts('completed', 'failed');
    const done = await ingest.getJobs(['completed'], 0, 10_000);
    const leftovers = done.find((j) => j.name === JOBS.refreshLeftovers)?.returnvalue as { leftover?: number; groups?: number } | undefined;
    const alone = done.filter((j) => j.name === JOBS.refreshInsight).length;
    // Accuracy on the simulated world: the served 30 days against a one-keyword 30-day answer without sampling noise.
    const now = new Date();
    const [start, end] = timeRange('30d', now).split(' ') as [string, string];
    const errors: number[] = [];
    for (const row of await p.db.db.selectFrom('insights').select(['id', 'primary_keyword']).execute()) {
      const served = await p.db.db
        .selectFrom('trend_points')
        .select(['date', 'value'])
        .where('insight_id', '=', row.id)
        .orderBy('date')
        .execute();
      const truth = google.world.timeline([row.primary_keyword], start, end, 'truth', { noise: false }).slice(-served.length);
      const max = Math.max(...truth.map((t) => t.values[0]!));
      errors.push(
        served.reduce((s, v, i) => s + Math.abs(v.value - Math.round(((truth[i]?.values[0] ?? 0) * 100) / Math.max(1, max))), 0) /
          Math.max(1, served.length),
      );
    }
    return {
      insights: REFRESH_INSIGHTS,
      knownLevels: known,
      jobs: (counts.completed ?? 0) + (counts.failed ?? 0),
      https: google.google.totalRequests(),
      families: familyCounts(google.google.counts),
      groupJobs: ingestCounts.completed ?? 0,
      firstRound: done.filter((j) => j.name === JOBS.refreshGroup && (j.data as { round?: number }).round === 1).length,
      leftover: leftovers?.leftover ?? 0,
      secondRound: leftovers?.groups ?? 0,
      alone,
      seconds: (Date.now() - started) / 1000,
      simMae: median(errors),
    };
  } finally {
    await p.close();
  }
}

/** Trends jobs completed per minute through `proxies`, each paced at PROXY_RATE requests per minute; `blocked` ones refused by Google. */
async function throughput(google: GoogleOnLoopback, proxies: number, blocked: number) {
  google.google.resetCounts();
  google.google.resetClients();
  google.google.setLimits({ requestsPerMinute: 0, embedMinGapMs: 0 });
  for (const p of google.proxies) google.google.block(p.egressAddress, false);
  for (const p of google.proxies.slice(0, blocked)) google.google.block(p.egressAddress, true);
  const p = await phase(`proxies_${proxies}_${blocked}`, google, {
    TRENDS_PROXY_URLS: google.proxies
      .slice(0, proxies)
      .map((x) => x.url)
      .join(','),
    TRENDS_REQUESTS_PER_MINUTE: String(PROXY_RATE),
    TRENDS_COOLDOWN_MS: '60000',
    TRENDS_COOLDOWN_MAX_MS: '60000',
  });
  try {
    const trends = p.queue(QUEUES.trends);
    const total = Math.ceil((PROXY_RATE * proxies * PROXY_WINDOW_S) / 60) * 3;
    const now = new Date();
    await enqueueMany(
      trends,
      JOB.trendsFetch,
      Array.from({ length: total }, (_, i) => ({
        data: { request: { kind: 'autocomplete' as const, term: `proxy term ${proxies} ${blocked} ${i}` }, provider: 'google' },
        key: [now] as [Date],
      })),
    );
    await sleep(PROXY_WINDOW_S * 1000);
    const counts = await trends.getJobCounts('completed', 'failed');
    for (const x of google.proxies) google.google.block(x.egressAddress, false);
    return { proxies, blocked, perMinute: ((counts.completed ?? 0) * 60) / PROXY_WINDOW_S, failed: counts.failed ?? 0 };
  } finally {
    await p.close();
  }
}

/** Distinct made-up ideas: every run asks Google for phrases of its own (no answer shared between runs). */
function limitIdeas(n: number): string[] {
  const syllables = ['ka', 'lor', 'vin', 'dre', 'mo', 'sul', 'tep', 'ri', 'gan', 'bo', 'zel', 'fu'];
  const kinds = ['repair service', 'subscription box', 'booking app', 'rental marketplace'];
  return Array.from({ length: n }, (_, i) => {
    const name = [i % 12, Math.floor(i / 12) % 12, (Math.floor(i / 144) + 3 * i) % 12].map((k) => syllables[k]).join('');
    return `${name.charAt(0).toUpperCase()}${name.slice(1)} ${kinds[i % kinds.length]}`;
  });
}

/** Google's limits of late 2026 in this benchmark, per address (on the scaled clock). */
const LIMITS = { requestsPerMinute: 12, embedGapS: 6, blockMinutes: 30, embedPenaltyMinutes: 2 } as const;

/**
 * Research runs one route completes in one (scaled) hour against Google's limits of late 2026,
 * with more runs waiting than it can finish. The pace, the embed gap (s, 0: at the request
 * pace) and the cooldowns are set at Google's scale.
 */
async function underLimits(
  google: GoogleOnLoopback,
  name: string,
  plan: 'batched' | 'shared',
  perMinute: number,
  embedGapS: number,
  cooldownMin: number,
  cooldownMax: number,
) {
  google.google.resetCounts();
  google.google.resetClients();
  google.google.setLimits({
    requestsPerMinute: LIMITS.requestsPerMinute,
    windowMs: MINUTE_MS,
    blockMs: LIMITS.blockMinutes * MINUTE_MS,
    embedMinGapMs: Math.round((LIMITS.embedGapS * MINUTE_MS) / 60),
    embedPenaltyMs: LIMITS.embedPenaltyMinutes * MINUTE_MS,
  });
  const p = await phase(`limits_${name}`, google, {
    TRENDS_REQUEST_PLAN: plan,
    TRENDS_PROXY_URLS: google.proxies[0]!.url,
    TRENDS_REQUESTS_PER_MINUTE: String(perMinute * SCALE),
    TRENDS_EMBED_GAP_MS: String(Math.round((embedGapS * MINUTE_MS) / 60)),
    TRENDS_EMBED_COOLDOWN_MS: String(Math.round(5 * MINUTE_MS)),
    TRENDS_COOLDOWN_MS: String(Math.round(cooldownMin * MINUTE_MS)),
    TRENDS_COOLDOWN_MAX_MS: String(Math.round(cooldownMax * MINUTE_MS)),
    TRENDS_WAIT_MS: '1000',
  });
  try {
    const stepQueue = new StepQueue(p.queue(QUEUES.research));
    const hourMs = 60 * MINUTE_MS;
    // More than a route can do in an hour at Google's budget (12 × 60 / 16 requests a run ≈ 45).
    for (const idea of limitIdeas(80)) await startRun(p.db.db, stepQueue, { idea, hints: [], provider: 'google', source: 'research' });
    const started = Date.now();
    await sleep(hourMs);
    const runs = await p.db.db.selectFrom('research_runs').select(['status', 'finished_at']).execute();
    const done = runs.filter(
      (r) => r.status === 'succeeded' && r.finished_at !== null && r.finished_at.getTime() <= started + hourMs,
    ).length;
    const client = google.proxies[0]!.egressAddress;
    const blocks = google.google.blocks(client);
    const blockedMs = blocks.reduce((sum, b) => sum + Math.min(b.until, started + hourMs) - Math.max(b.since, started), 0);
    return {
      name,
      plan,
      families: familyCounts(google.google.counts),
      perMinute,
      cooldowns: `${cooldownMin}-${cooldownMax} min`,
      runsPerHour: done,
      https: google.google.byClient.get(client) ?? 0,
      blocks: blocks.length,
      probes: blocks.reduce((n, b) => n + b.probes.length, 0),
      blockedMinutes: round(blockedMs / MINUTE_MS, 1),
      embedPages: google.google.counts.get('embed') ?? 0,
      overQuota: google.google.counts.get('embed-over-quota') ?? 0,
      failed: runs.filter((r) => r.status === 'failed').length,
    };
  } finally {
    await p.close();
  }
}

const perRun = (families: FamilyCounts, runs: number) => perUnit(families, runs);
const medianOf = (xs: number[]) => median(xs) ?? 0;

// Read first: a bad TRENDS_BATCHES_FILE should fail now, not after the runs.
const real = PHASES.has('accuracy') ? await measureBatchedSeries(BATCHES_FILE) : undefined;
const google = await startGoogleOnLoopback({ proxies: 3 });
const json: Record<string, unknown> = { bench: 'google', phases: [...PHASES] };
try {
  say(
    `bench:google — ${RESEARCH_RUNS} research runs per plan, a refresh of ${REFRESH_INSIGHTS} insights, proxies over ${PROXY_WINDOW_S} s windows, ${LIMIT_ROUNDS} alternated rounds under the limits (phases: ${[...PHASES].join(', ')})`,
  );
  if (PHASES.has('research')) {
    // Alternated as the limits are: the baseline plans first, each on fresh queues and a fresh database.
    const single = await research(google, 'single');
    const batched = await research(google, 'batched');
    const shared = await research(google, 'shared');
    const plans = [single, batched, shared];
    printTable(
      'Research: trends jobs and HTTPS requests to Google per run, by endpoint family (the embed flow: an embed page and its widget data request; page: the cookie pages)',
      plans.map((r) => ({
        plan: r.plan,
        runs: r.runs,
        'jobs/run': round(r.jobs / r.runs, 2),
        'https/run': round(r.https / r.runs, 2),
        ...perRun(r.families, r.runs),
        seconds: round(r.seconds, 1),
      })),
    );

    const diffsOf = (other: typeof single) => {
      const diffs: Record<string, { max: number; mean: number; compared: number }> = {};
      for (const dim of [...DIMENSIONS, 'overall']) {
        const d: number[] = [];
        for (const [idea, a] of single.scores) {
          const b = other.scores.get(idea);
          const x = (a as Record<string, number | null>)[dim];
          const y = b ? (b as Record<string, number | null>)[dim] : undefined;
          if (x === null && y === null) continue;
          d.push(typeof x === 'number' && typeof y === 'number' ? Math.abs(x - y) : 1);
        }
        diffs[dim] = {
          max: round(Math.max(0, ...d), 3),
          mean: round(d.reduce((s, v) => s + v, 0) / Math.max(1, d.length), 3),
          compared: d.length,
        };
      }
      return diffs;
    };
    const batchedDiffs = diffsOf(batched);
    const sharedDiffs = diffsOf(shared);
    printTable(
      'Scores against single (one request per term), per dimension (absolute difference, same ideas, same simulated world)',
      Object.keys(sharedDiffs).map((dimension) => ({
        dimension,
        'batched max': batchedDiffs[dimension]!.max,
        'batched mean': batchedDiffs[dimension]!.mean,
        'shared max': sharedDiffs[dimension]!.max,
        'shared mean': sharedDiffs[dimension]!.mean,
        compared: sharedDiffs[dimension]!.compared,
      })),
    );
    const truthRows = (['demand', 'momentum'] as const).map((dim) => {
      const errs = (r: typeof single) => [...r.truthError.values()].map((e) => e[dim]).filter((e): e is number => e !== null);
      const meanErr = (r: typeof single) => round(errs(r).reduce((x, y) => x + y, 0) / Math.max(1, errs(r).length), 3);
      return { dimension: dim, single: meanErr(single), batched: meanErr(batched), shared: meanErr(shared) };
    });
    printTable('Against the simulated world itself (noise-free): mean |score − truth| per plan', truthRows);
    Object.assign(json, {
      research_runs: RESEARCH_RUNS,
      jobs_per_research: round(shared.jobs / shared.runs, 2),
      https_per_research: round(shared.https / shared.runs, 2),
      https_per_research_by_family: perRun(shared.families, shared.runs),
      jobs_per_research_batched: round(batched.jobs / batched.runs, 2),
      https_per_research_batched: round(batched.https / batched.runs, 2),
      https_per_research_by_family_batched: perRun(batched.families, batched.runs),
      jobs_per_research_single: round(single.jobs / single.runs, 2),
      https_per_research_single: round(single.https / single.runs, 2),
      https_per_research_by_family_single: perRun(single.families, single.runs),
      score_max_abs_diff: Object.fromEntries(Object.entries(sharedDiffs).map(([k, v]) => [k, v.max])),
      score_max_abs_diff_batched: Object.fromEntries(Object.entries(batchedDiffs).map(([k, v]) => [k, v.max])),
      score_mean_abs_diff: Object.fromEntries(Object.entries(sharedDiffs).map(([k, v]) => [k, v.mean])),
      truth_error: Object.fromEntries(truthRows.map((r) => [r.dimension, { single: r.single, batched: r.batched, shared: r.shared }])),
    });
  }

  if (PHASES.has('refresh')) {
    const fresh = await refresh(google);
    printTable('Refresh: trends jobs and HTTPS requests per insight, by endpoint family', [
      { refresh: 'one request per insight (before)', 'jobs/insight': 1, 'https/insight': 2, 'mae vs truth (sim)': '—' },
      {
        refresh: `groups of up to 5 (${fresh.knownLevels}/${fresh.insights} levels known; ${fresh.firstRound} groups, ${fresh.leftover} left over, ${fresh.secondRound} regrouped, ${fresh.alone} alone)`,
        'jobs/insight': round(fresh.jobs / fresh.insights, 3),
        'https/insight': round(fresh.https / fresh.insights, 3),
        ...perUnit(fresh.families, fresh.insights),
        'mae vs truth (sim)': round(fresh.simMae, 2),
      },
    ]);
    Object.assign(json, {
      refresh_insights: fresh.insights,
      jobs_per_refresh: round(fresh.jobs / fresh.insights, 3),
      https_per_refresh: round(fresh.https / fresh.insights, 3),
      https_per_refresh_by_family: perUnit(fresh.families, fresh.insights),
      refresh_sim_mae: round(fresh.simMae, 2),
    });
  }

  if (real) {
    const served = summarize(real.served);
    const blind = summarize(real.blind);
    const one = summarize(real.single);
    const self = summarize(real.selfAgreement);
    const days =
      real.requestDays.min === real.requestDays.max ? `${real.requestDays.min}` : `${real.requestDays.min}-${real.requestDays.max}`;
    printTable(
      `Served 30-day series on real 5-keyword answers (${path.basename(BATCHES_FILE)}: ${real.requests} requests of ${days} days, ${real.keywords} keywords; ` +
        `mean absolute error against the keyword's precise other answers; ${real.unmeasurable} served series had none)`,
      [
        { served: 'Google against itself: two full-precision answers', ...row(self) },
        { served: 'one-keyword precision (the 100 of its 30 days)', ...row(one) },
        { served: `batched, our rule (peak >= ${MIN_PEAK_IN_BATCH})`, ...row(served) },
        { served: 'batched blindly', ...row(blind) },
      ],
    );
    Object.assign(json, {
      refresh_series_mae: served.median,
      refresh_series_within_5: served.within5,
      refresh_series_measured: served.series,
      refresh_series_unmeasurable: real.unmeasurable,
      single_request_series_mae: one.median,
      single_request_within_5: one.within5,
      google_self_agreement_within_5: self.within5,
      blind_batch_series_mae: blind.median,
      batches_file: path.basename(BATCHES_FILE),
      batches_request_days: real.requestDays,
    });
  }

  if (PHASES.has('proxies')) {
    const one1 = await throughput(google, 1, 0);
    const three = await throughput(google, 3, 0);
    const threeBlocked = await throughput(google, 3, 1);
    printTable(
      `Egress proxies: trends jobs per minute at ${PROXY_RATE} HTTPS requests a minute per proxy (one request per job, and a cookie page per route; jobs done in ${PROXY_WINDOW_S} s × 60 / ${PROXY_WINDOW_S})`,
      [one1, three, threeBlocked].map((t) => ({
        proxies: t.proxies,
        blocked: t.blocked,
        'jobs/min': round(t.perMinute, 1),
        failed: t.failed,
      })),
    );
    Object.assign(json, {
      proxy_jobs_per_min: {
        one: round(one1.perMinute, 1),
        three: round(three.perMinute, 1),
        three_one_blocked: round(threeBlocked.perMinute, 1),
      },
      proxies_ratio: round(three.perMinute / Math.max(1, one1.perMinute), 2),
      blocked_proxy_ratio: round(threeBlocked.perMinute / Math.max(1, one1.perMinute), 2),
      failed_jobs: one1.failed + three.failed + threeBlocked.failed,
    });
  }

  if (PHASES.has('limits')) {
    // The shipped client (TRENDS_REQUEST_PLAN=batched) and the new plan at the same shipped pacing, alternated.
    const rounds: Array<Awaited<ReturnType<typeof underLimits>>> = [];
    for (let i = 0; i < LIMIT_ROUNDS; i += 1) {
      rounds.push(await underLimits(google, `batched${i + 1}`, 'batched', 10, 8, 10, 60));
      rounds.push(await underLimits(google, `shared${i + 1}`, 'shared', 10, 8, 10, 60));
    }
    printTable(
      `Research runs completed in an hour by one route under Google's limits of late 2026 (a warm address; ${LIMITS.requestsPerMinute} HTTPS requests a minute; embed pages ${LIMITS.embedGapS} s apart; ${LIMITS.blockMinutes}-minute blocks with Retry-After that start over when asked early; clock scaled ×${SCALE}: an hour is ${round((60 * MINUTE_MS) / 1000, 0)} s). Shipped pacing in both: 10 requests/min, embed pages 8 s apart, cooldowns 10-60 min`,
      rounds.map((r) => ({
        round: r.name,
        plan: r.plan === 'batched' ? 'batched (shipped client, baseline)' : 'shared (one explore serves many widgets)',
        'runs/hour/route': r.runsPerHour,
        'https sent': r.https,
        ...perUnit(r.families, Math.max(1, r.runsPerHour)),
        'embed pages': r.embedPages,
        'over quota': r.overQuota,
        blocks: r.blocks,
        'minutes blocked': r.blockedMinutes,
        failed: r.failed,
      })),
    );
    const of = (plan: string) => rounds.filter((r) => r.plan === plan);
    const ours = medianOf(of('shared').map((r) => r.runsPerHour));
    const shipped = medianOf(of('batched').map((r) => r.runsPerHour));
    say(
      `runs/hour/route, median of ${LIMIT_ROUNDS}: shared ${ours}, batched (shipped) ${shipped}: ${round(ours / Math.max(1, shipped), 2)}×`,
    );
    Object.assign(json, {
      runs_per_hour_per_route: ours,
      runs_per_hour_per_route_shipped: shipped,
      runs_per_hour_ratio: round(ours / Math.max(1, shipped), 2),
      runs_per_hour_rounds: Object.fromEntries(rounds.map((r) => [r.name, r.runsPerHour])),
      limits: {
        requests_per_minute_per_address: LIMITS.requestsPerMinute,
        embed_gap_s: LIMITS.embedGapS,
        block_minutes: LIMITS.blockMinutes,
        warm_address: true,
        time_scale: SCALE,
      },
      limits_blocks: Object.fromEntries(rounds.map((r) => [r.name, r.blocks])),
      limits_embed_over_quota: Object.fromEntries(rounds.map((r) => [r.name, r.overQuota])),
      limits_failed_runs: rounds.reduce((n, r) => n + r.failed, 0),
    });
  }
  printJsonLine(json);
} finally {
  await google.stop();
}
