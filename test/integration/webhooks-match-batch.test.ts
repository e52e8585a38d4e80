// Match jobs of events matched at the same time share their statements (one
// INSERT of every delivery, one set of Redis calls, one relayed UPDATE), and
// keep each event's guarantees: one delivery per (event, subscription), and an
// event stays unrelayed until its deliveries are committed and enqueued, so a
// batch that fails half-way (a worker killed, Redis gone) loses nothing and a
// second run adds nothing twice.
import type { Job } from 'bullmq';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookMatchProcessor } from '../../jobs/webhook-match.job.js';
import { newId } from '../../src/domain/ids.js';
import { upsertInsight } from '../../src/insights/insight.repository.js';
import { jobIdOf } from '../../src/queue/enqueue.js';
import { JOB } from '../../src/queue/job-catalogue.js';
import { QUEUES } from '../../src/queue/queue-names.js';
import { createRedis } from '../../src/redis/connection.js';
import { SubscriptionIndexCache } from '../../src/webhooks/subscription-index.cache.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { dimensionsWith } from '../support/fixtures.js';

let t: TestApp;
let webhooks: Queue;
let connection: ReturnType<typeof createRedis>;

beforeAll(async () => {
  t = await createTestApp({ webhookAllowedCidrs: ['127.0.0.1/32'] });
  connection = createRedis(t.redis.url, 'worker');
  webhooks = new Queue(QUEUES.webhooks, { connection, prefix: t.redis.keys.queuePrefix(QUEUES.webhooks) });
});
afterAll(async () => {
  await webhooks.close();
  connection.disconnect();
  await t.close();
});

const EVENTS = 30;
const SUBSCRIPTIONS = 3;

async function seed(): Promise<{ eventIds: string[]; subscriptionIds: string[] }> {
  const { db } = t.database;
  const subscriptionIds = Array.from({ length: SUBSCRIPTIONS }, () => newId('subscription'));
  await db
    .insertInto('webhook_subscriptions')
    .values(
      subscriptionIds.map((id) => ({
        id,
        url: 'http://127.0.0.1:9/unused',
        secret_encrypted: 'unused: nothing is sent in this test',
        keywords: JSON.stringify(['harp']),
        state: 'enabled',
      })) as never,
    )
    .execute();
  const eventIds: string[] = [];
  for (let i = 0; i < EVENTS; i += 1) {
    const insightId = newId('insight');
    await upsertInsight(db, {
      id: insightId,
      idea_key: `harp batch ${i}`,
      title: `Harp tuning app ${i}`,
      idea: `Harp tuning app ${i}`,
      primary_keyword: 'harp',
      keywords: ['harp'],
      category: 'arts-entertainment',
      source: 'research',
      overall_score: 0.6,
      confidence: 0.5,
      dimensions: dimensionsWith(0.6),
      summary: '',
      status: 'active',
    });
    const eventId = newId('event');
    await db.insertInto('outbox_events').values({ id: eventId, type: 'insight.created', insight_id: insightId, payload: '{}' }).execute();
    eventIds.push(eventId);
  }
  return { eventIds, subscriptionIds };
}

/** Runs the match jobs of every event at once, as a worker with free slots does in a burst. */
function matchAll(queue: Queue, eventIds: string[]) {
  const run = webhookMatchProcessor({
    db: t.database.db,
    webhooks: queue,
    index: new SubscriptionIndexCache(t.database.db, t.redis.redis, t.redis.keys.subscriptionsVersion),
  });
  return Promise.allSettled(eventIds.map((eventId) => run({ data: { eventId } } as Job<{ eventId: string }>)));
}

describe('match jobs of a burst share their statements', () => {
  it('a batch whose enqueue fails leaves every event unrelayed with its deliveries committed; the retry enqueues each delivery once, adding no second row', async () => {
    const { db } = t.database;
    const { eventIds, subscriptionIds } = await seed();
    // A delivery left by a crash before its job was enqueued: the match must enqueue it, not add another.
    const leftOver = newId('delivery');
    await db
      .insertInto('webhook_deliveries')
      .values({ id: leftOver, event_id: eventIds[0]!, subscription_id: subscriptionIds[0]!, status: 'pending' })
      .execute();

    // Redis refuses the jobs (the worker's connection is gone, or it is killed before its addBulk).
    const broken = Object.create(webhooks, {
      addBulk: { value: () => Promise.reject(new Error('Connection is closed.')) },
    }) as Queue;
    const failed = await matchAll(broken, eventIds);
    expect(failed.every((r) => r.status === 'rejected')).toBe(true);
    const unrelayed = await db
      .selectFrom('outbox_events')
      .select('id')
      .where('id', 'in', eventIds)
      .where('relayed_at', 'is', null)
      .execute();
    expect(unrelayed).toHaveLength(EVENTS);
    const afterFailure = await db
      .selectFrom('webhook_deliveries')
      .select(['id', 'event_id', 'subscription_id'])
      .where('event_id', 'in', eventIds)
      .execute();
    expect(afterFailure).toHaveLength(EVENTS * SUBSCRIPTIONS);
    expect(await webhooks.count()).toBe(0);

    const retried = await matchAll(webhooks, eventIds);
    expect(retried.map((r) => r.status)).toEqual(eventIds.map(() => 'fulfilled'));
    const deliveries = await db
      .selectFrom('webhook_deliveries')
      .select(['id', 'event_id', 'subscription_id'])
      .where('event_id', 'in', eventIds)
      .execute();
    expect(deliveries.map((d) => d.id).sort()).toEqual(afterFailure.map((d) => d.id).sort());
    expect(deliveries.map((d) => d.id)).toContain(leftOver);
    expect(new Set(deliveries.map((d) => `${d.event_id} ${d.subscription_id}`)).size).toBe(EVENTS * SUBSCRIPTIONS);
    const relayed = await db
      .selectFrom('outbox_events')
      .select('id')
      .where('id', 'in', eventIds)
      .where('relayed_at', 'is not', null)
      .execute();
    expect(relayed).toHaveLength(EVENTS);
    // One job per delivery, under its delivery's job id.
    const jobs = await webhooks.getJobs(['wait', 'prioritized', 'delayed']);
    expect(jobs.map((j) => j.id).sort()).toEqual(deliveries.map((d) => jobIdOf(JOB.webhookDeliver, { deliveryId: d.id })).sort());

    // Matched again (the relay revives a job that had run): nothing new.
    const again = await matchAll(webhooks, eventIds);
    expect(again.every((r) => r.status === 'fulfilled')).toBe(true);
    expect(await db.selectFrom('webhook_deliveries').select('id').where('event_id', 'in', eventIds).execute()).toHaveLength(
      EVENTS * SUBSCRIPTIONS,
    );
    expect(await webhooks.count()).toBe(EVENTS * SUBSCRIPTIONS);
    await webhooks.obliterate({ force: true });
  });
});
