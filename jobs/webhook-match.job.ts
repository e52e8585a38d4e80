// webhooks / match: one job per outbox event. Finds the matching subscriptions,
// records one delivery per (event, subscription) — unique in the database —
// and enqueues their delivery jobs. Safe to run twice.
import type { Job, Queue } from 'bullmq';
import { sql } from 'kysely';
import type { Db } from '../src/db/connection.js';
import { newId } from '../src/domain/ids.js';
import { eventText } from '../src/domain/webhooks/matching.js';
import { Batcher } from '../src/db/batcher.js';
import { loadEventsWithInsights } from '../src/webhooks/event.repository.js';
import { ensureJob } from '../src/queue/ensure-job.js';
import { JOBS, MATCH_JOB_OPTIONS, matchJobId, WEBHOOK_DELIVERY_OPTIONS, deliveryJobId } from '../src/queue/queues.js';
import type { SubscriptionIndexCache } from '../src/webhooks/subscription-index.cache.js';

export function webhookMatchProcessor(deps: { db: Db; webhooks: Queue; index: SubscriptionIndexCache }) {
  // Events matched at the same time share one read (see Batcher).
  const events = new Batcher((ids: string[]) => loadEventsWithInsights(deps.db, ids));
  return async (job: Job) => {
    const eventId = String((job.data as { eventId?: unknown }).eventId ?? '');
    const event = await events.submit(eventId);
    if (!event) return { skipped: 'no such event' };
    let subscriptionIds: string[] = [];
    const { insight } = event;
    if (insight) {
      const index = await deps.index.get();
      const matched = index.match({
        type: event.type,
        category: insight.category,
        source: insight.source,
        score: insight.overall_score,
        text: eventText([insight.title, insight.idea, ...insight.keywords]),
      });
      subscriptionIds = matched;
      // A refresh notifies only subscriptions whose threshold the score has just crossed.
      const previous = (event.payload as { previous_score?: number }).previous_score;
      if (event.type === 'insight.updated' && typeof previous === 'number' && matched.length > 0) {
        const rows = await deps.db.selectFrom('webhook_subscriptions').select(['id', 'min_score']).where('id', 'in', matched).execute();
        subscriptionIds = rows.filter((r) => r.min_score !== null && previous < r.min_score).map((r) => r.id);
      }
    }
    // Every pending delivery of the event gets its job, new or left by a crash before its job
    // was enqueued (job ids make that idempotent). With new deliveries this is one statement:
    // its select cannot see its own insert's rows, hence the union with what the insert returns.
    const pendingQuery = deps.db.selectFrom('webhook_deliveries').select('id').where('event_id', '=', event.id).where('status', '=', 'pending');
    const pending =
      subscriptionIds.length === 0
        ? await pendingQuery.execute()
        : await deps.db
            .with('inserted', (qb) =>
              qb
                .insertInto('webhook_deliveries')
                .values(subscriptionIds.map((subscription_id) => ({ id: newId('delivery'), event_id: event.id, subscription_id, status: 'pending' as const })))
                .onConflict((oc) => oc.columns(['event_id', 'subscription_id']).doNothing())
                .returning('id'),
            )
            .selectFrom('inserted')
            .select('id')
            .union(pendingQuery)
            .execute();
    if (pending.length > 0) {
      await deps.webhooks.addBulk(pending.map((d) => ({ name: JOBS.webhookDeliver, data: { deliveryId: d.id }, opts: { ...WEBHOOK_DELIVERY_OPTIONS, jobId: deliveryJobId(d.id) } })));
    }
    await deps.db.updateTable('outbox_events').set({ relayed_at: sql<Date>`now()` }).where('id', '=', event.id).execute();
    return { matched: subscriptionIds.length, enqueued: pending.length };
  };
}

/**
 * maintenance / relay: outbox events not yet matched get their match job: nobody
 * announced them (a crash after commit), or their job was lost or failed (a
 * Redis restart, a worker killed while it ran).
 */
export function outboxRelayProcessor(deps: { db: Db; webhooks: Queue }) {
  return async () => {
    const events = await deps.db
      .selectFrom('outbox_events')
      .select('id')
      .where('relayed_at', 'is', null)
      .where('created_at', '<', sql<Date>`now() - interval '2 seconds'`)
      .orderBy('created_at')
      .limit(500)
      .execute();
    let revived = 0;
    for (const e of events) {
      const outcome = await ensureJob(deps.webhooks, JOBS.webhookMatch, { eventId: e.id }, { ...MATCH_JOB_OPTIONS, jobId: matchJobId(e.id) });
      if (outcome !== 'present') revived += 1;
    }
    return { unmatched: events.length, revived };
  };
}
