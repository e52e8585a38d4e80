// npm run bench:webhooks — 100,000 subscriptions, 1,000 + 1,000 insights.
//  1. matching time per insight: our index vs a naive full scan (same run, same data);
//  2. steady publishing (100 insights/s): publish-to-delivered latency at a loopback receiver;
//  3. a burst of 1,000 insights: deliveries/s, against a bare HTTP POST loop to the same receiver;
//     the burst's deliveries are all one account's (the subscriptions have no account: the
//     operators'), and another account pings its own subscription 5 times during the burst:
//     how long each ping takes to arrive (issue 48: fair turns, nothing asleep on a timer).
// Criteria mix (documented, deterministic): 99 % of subscriptions follow 1–2 keywords from a
// 20,000-word vocabulary (half also a category, 70 % a minimum score 0.30–0.95, 20 % a source,
// 30 % only insight.created); 1 % are broad: one category and a minimum score of 0.90–0.99.
import { fork } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { pino } from 'pino';
import { loadConfig } from '../src/config.js';
import { CATEGORY_VALUES } from '../src/domain/catalog.js';
import { newId } from '../src/domain/ids.js';
import { eventText, matches, SubscriptionIndex, type MatchableEvent } from '../src/domain/webhooks/matching.js';
import { upsertInsight } from '../src/insights/insight.repository.js';
import { createRedis, waitForRedis } from '../src/redis/connection.js';
import { startTestWorkers } from '../test/support/services.js';
import { SecretBox } from '../src/webhooks/secret-box.js';
import { enabledCriteria } from '../src/webhooks/subscription.repository.js';
import { generateWebhookSecret } from '../src/domain/webhooks/signing.js';
import { benchResources } from './lib/resources.js';
import { createBenchDatabase } from './lib/database.js';
import { removePrefixKeys } from './lib/redis-cleanup.js';
import { median, printJsonLine, printTable, round } from './lib/report.js';
import { enqueue } from '../src/queue/enqueue.js';
import { createAccount } from '../src/accounts/account.repository.js';
import { createPingDelivery } from '../src/webhooks/delivery.repository.js';
import { JOB } from '../src/queue/job-catalogue.js';

const SUBS = Number(process.env.BENCH_SUBSCRIPTIONS ?? 100_000);
const INSIGHTS = Number(process.env.BENCH_INSIGHTS ?? 1_000);
const RATE = Number(process.env.BENCH_PUBLISH_RATE ?? 100);
const VOCAB = 20_000;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const here = path.dirname(fileURLToPath(import.meta.url));
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))] ?? 0;
const categories = CATEGORY_VALUES.filter((c) => c !== 'uncategorized');

// A seeded PRNG so every run publishes the same insights.
let seed = 42;
const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const word = () => `kw${Math.floor(rand() * VOCAB)}`;

const receiver = fork(path.join(here, 'servers', 'receiver.js'), [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
const arrivals = new Map<string, number>();
let received = 0;
const port = await new Promise<number>((resolve) =>
  receiver.on('message', (m: { port?: number; arrivals?: Array<[string, number]>; total?: number }) => {
    if (m.port) resolve(m.port);
    if (m.arrivals) for (const [id, at] of m.arrivals) if (!arrivals.has(id)) arrivals.set(id, at);
    if (m.total) received = m.total;
  }),
);
const receiverUrl = `http://127.0.0.1:${port}/hook`;

const database = await createBenchDatabase('webhooks', 20);
const { db } = database;
const key = randomBytes(32).toString('base64');
const box = new SecretBox(Buffer.from(key, 'base64'));
const sealed = box.seal(generateWebhookSecret());
await sql`
  insert into webhook_subscriptions (id, url, secret_encrypted, min_score, categories, sources, keywords, event_types, state)
  select 'sub_' || lpad(to_hex(g), 20, '0'), ${receiverUrl}, ${sealed},
    case when g % 100 = 0 then 0.90 + (abs(hashtext(g::text || 'm')) % 10) / 100.0
         when abs(hashtext(g::text || 'm')) % 10 < 7 then 0.30 + (abs(hashtext(g::text || 's')) % 66) / 100.0 else null end,
    case when g % 100 = 0 or abs(hashtext(g::text || 'c')) % 2 = 0
         then jsonb_build_array((${JSON.stringify(categories)}::jsonb) ->> (abs(hashtext(g::text || 'cat')) % ${categories.length})) else '[]'::jsonb end,
    case when g % 100 <> 0 and abs(hashtext(g::text || 'src')) % 5 = 0 then '["synthetic"]'::jsonb else '[]'::jsonb end,
    case when g % 100 = 0 then '[]'::jsonb
         when abs(hashtext(g::text || 'k2')) % 4 = 0 then jsonb_build_array('kw' || (abs(hashtext(g::text || 'k')) % ${VOCAB}), 'kw' || (abs(hashtext(g::text || 'kk')) % ${VOCAB}))
         else jsonb_build_array('kw' || (abs(hashtext(g::text || 'k')) % ${VOCAB})) end,
    case when abs(hashtext(g::text || 'e')) % 10 < 3 then '["insight.created"]'::jsonb else '[]'::jsonb end,
    'enabled'
  from generate_series(1, ${SUBS}) g`.execute(db);

// 1. Matching: index vs naive scan over the same subscriptions.
const subs = await enabledCriteria(db);
const buildStart = performance.now();
const index = new SubscriptionIndex(subs);
const buildMs = performance.now() - buildStart;
const events: MatchableEvent[] = Array.from({ length: INSIGHTS }, (_, i) => ({
  type: 'insight.created',
  category: categories[Math.floor(rand() * categories.length)]!,
  source: 'synthetic',
  score: 0.2 + rand() * 0.78,
  text: eventText([`Benchmark insight ${i}`, word(), word(), word()]),
}));
const oursMs: number[] = [];
const naiveMs: number[] = [];
let matchedTotal = 0;
for (const e of events) {
  let t = performance.now();
  const ours = index.match(e);
  oursMs.push(performance.now() - t);
  t = performance.now();
  const naive = subs.filter((s) => matches(s, e));
  naiveMs.push(performance.now() - t);
  if (ours.length !== naive.length) throw new Error(`index and scan disagree: ${ours.length} vs ${naive.length}`);
  matchedTotal += ours.length;
}

// 2 and 3: the real pipeline.
const redis = createRedis(REDIS_URL);
await waitForRedis(redis, REDIS_URL);
const prefix = `benchwh${process.pid}`;
const resources = benchResources(database, redis, REDIS_URL, prefix);
const config = loadConfig({ REDIS_PREFIX: prefix, WEBHOOK_ENCRYPTION_KEY: key, WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32' });
const pipeline = await startTestWorkers(resources, config, pino({ level: 'silent' }));

const published = new Map<string, number>();
async function publish(i: number, phase: string): Promise<void> {
  const e = events[i % events.length]!;
  const insightId = newId('insight');
  const eventId = newId('event');
  await db.transaction().execute(async (trx) => {
    await upsertInsight(trx, {
      id: insightId,
      idea_key: `${phase}-${i}`,
      title: e.text,
      idea: e.text,
      primary_keyword: 'bench',
      keywords: [],
      category: e.category as never,
      source: 'synthetic',
      overall_score: Math.round(e.score * 1000) / 1000,
      confidence: 0.5,
      dimensions: {} as never,
      summary: '',
      status: 'active',
    });
    await trx.insertInto('outbox_events').values({ id: eventId, type: 'insight.created', insight_id: insightId, payload: '{}' }).execute();
  });
  published.set(eventId, Date.now());
  await enqueue(pipeline.queues.webhooks, JOB.webhookMatch, { eventId });
}
async function deliveredCount(): Promise<number> {
  const { n } = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('status', '=', 'succeeded')
    .executeTakeFirstOrThrow();
  return Number(n);
}
/** Whether an error is the pool's wait for a connection running out (a loaded machine), not a failure of the pipeline. */
const poolWait = (error: unknown) => String((error as Error).message).includes('timeout exceeded when trying to connect');
async function allDelivered(): Promise<number> {
  for (;;) {
    // The benchmark's own polling: on a loaded machine its wait for a pooled connection may run out; it asks again.
    const patiently = <T>(query: Promise<T>) =>
      query.catch((error: unknown) => {
        if (poolWait(error)) return undefined;
        throw error;
      });
    const delivered = (await patiently(pendingNow())) === 0 ? await patiently(deliveredCount()) : undefined;
    if (delivered !== undefined) return delivered;
    await new Promise((r) => setTimeout(r, 50));
  }
}
async function pendingNow(): Promise<number> {
  const { pending } = await db
    .selectFrom('outbox_events')
    .select((eb) => eb.fn.countAll<number>().as('pending'))
    .where((eb) =>
      eb.or([
        eb('relayed_at', 'is', null),
        eb.exists(
          eb
            .selectFrom('webhook_deliveries as d')
            .select('d.id')
            .whereRef('d.event_id', '=', 'outbox_events.id')
            .where('d.status', '=', 'pending'),
        ),
      ]),
    )
    .executeTakeFirstOrThrow();
  return Number(pending);
}

const steadyStart = Date.now();
for (let i = 0; i < INSIGHTS; i += 1) {
  await publish(i, 'steady');
  const due = steadyStart + ((i + 1) * 1000) / RATE;
  if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
}
const steadyDelivered = await allDelivered();
await new Promise((r) => setTimeout(r, 100));
const latencies = [...published.entries()].filter(([id]) => arrivals.has(id)).map(([id, at]) => arrivals.get(id)! - at);
published.clear();

// Another account, with a subscription of its own that no insight matches: it pings during the burst.
const other = await createAccount(db, 'bench other account', 'pro');
const otherSub = `sub_${randomBytes(10).toString('hex')}`;
await db
  .insertInto('webhook_subscriptions')
  .values({
    id: otherSub,
    url: receiverUrl,
    secret_encrypted: sealed,
    keywords: JSON.stringify(['never-matched-bench-keyword']),
    event_types: JSON.stringify(['ping']),
    state: 'enabled',
    account_id: other.id,
  } as never)
  .execute();
const pings: Array<{ eventId: string; at: number }> = [];
async function ping(): Promise<void> {
  const sent = await db.transaction().execute((trx) => createPingDelivery(trx, otherSub, { message: 'bench ping' }));
  pings.push({ eventId: sent.eventId, at: Date.now() });
  await enqueue(pipeline.queues.webhooks, JOB.webhookDeliver, { deliveryId: sent.deliveryId });
}

const burstBefore = steadyDelivered;
const burstStart = Date.now();
const pinging = (async () => {
  // While the burst's deliveries queue up: from 0.5 s into the burst, one ping every 0.3 s.
  await new Promise((r) => setTimeout(r, 500));
  for (let i = 0; i < 5; i += 1) {
    await ping();
    await new Promise((r) => setTimeout(r, 300));
  }
})();
// 50 publishers at once: a thousand at once waited over 5 s for a pooled connection on a loaded machine (2026-11-28).
// Under a load average of about 20 even 50 sometimes did, and the run died; a publisher tries
// again instead, as the research job it stands for would be retried.
async function publishPatiently(i: number): Promise<void> {
  for (let tries = 1; ; tries += 1) {
    try {
      return await publish(i, 'burst');
    } catch (error) {
      if (tries >= 5 || !poolWait(error)) throw error;
    }
  }
}
let next = 0;
await Promise.all(
  Array.from({ length: 50 }, async () => {
    while (next < INSIGHTS) await publishPatiently(next++);
  }),
);
await pinging;
const burstDelivered = (await allDelivered()) - burstBefore - pings.length;
const burstSeconds = (Date.now() - burstStart) / 1000;
await new Promise((r) => setTimeout(r, 100));
const pingMs = pings.map((p) => (arrivals.get(p.eventId) ?? Number.NaN) - p.at);

// Bare baseline: the same number of plain POSTs to the same receiver, 50 at a time.
const agent = new http.Agent({ keepAlive: true, maxSockets: 50 });
const baseStart = Date.now();
let sent = 0;
await Promise.all(
  Array.from({ length: 50 }, async () => {
    while (sent < burstDelivered) {
      sent += 1;
      await new Promise<void>((resolve, reject) => {
        const req = http.request(receiverUrl, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
          res.resume();
          res.on('end', () => resolve());
        });
        req.on('error', reject);
        req.end('{"bench":true}');
      });
    }
  }),
);
const baseSeconds = (Date.now() - baseStart) / 1000;

await pipeline.close();
await removePrefixKeys(redis, prefix);
redis.disconnect();
receiver.disconnect();
await database.drop();

printTable(
  `Matching ${INSIGHTS} insights against ${SUBS.toLocaleString('en')} subscriptions (index built in ${round(buildMs, 0)} ms; ${round(matchedTotal / INSIGHTS, 1)} matches per insight)`,
  [
    { matcher: 'ours (index)', 'p50 ms': round(median(oursMs), 3), 'p99 ms': round(pct(oursMs, 0.99), 3) },
    { matcher: 'naive full scan', 'p50 ms': round(median(naiveMs), 3), 'p99 ms': round(pct(naiveMs, 0.99), 3) },
  ],
);
printTable('Delivery to a loopback receiver', [
  {
    phase: `steady ${RATE} insights/s`,
    deliveries: steadyDelivered,
    'latency p50 ms': median(latencies),
    'latency p99 ms': pct(latencies, 0.99),
    'deliveries/s': '',
  },
  {
    phase: `burst of ${INSIGHTS}`,
    deliveries: burstDelivered,
    'latency p50 ms': '',
    'latency p99 ms': '',
    'deliveries/s': round(burstDelivered / burstSeconds, 0),
  },
  {
    phase: `another account's ${pings.length} pings during the burst`,
    deliveries: pingMs.filter((ms) => !Number.isNaN(ms)).length,
    'latency p50 ms': median(pingMs),
    'latency p99 ms': Math.max(...pingMs),
    'deliveries/s': '',
  },
  {
    phase: 'baseline: bare POST loop',
    deliveries: burstDelivered,
    'latency p50 ms': '',
    'latency p99 ms': '',
    'deliveries/s': round(burstDelivered / baseSeconds, 0),
  },
]);
printJsonLine({
  bench: 'webhooks',
  subscriptions: SUBS,
  insights: INSIGHTS,
  matches_per_insight: round(matchedTotal / INSIGHTS, 2),
  match_p50_ms: round(median(oursMs), 3),
  match_p99_ms: round(pct(oursMs, 0.99), 3),
  naive_match_p50_ms: round(median(naiveMs), 3),
  naive_match_p99_ms: round(pct(naiveMs, 0.99), 3),
  deliveries_per_s: round(burstDelivered / burstSeconds, 0),
  baseline_posts_per_s: round(burstDelivered / baseSeconds, 0),
  latency_p50_ms: median(latencies),
  latency_p99_ms: pct(latencies, 0.99),
  other_account_ping_max_ms: Math.max(...pingMs),
  receiver_requests: received,
});
process.exit(0);
