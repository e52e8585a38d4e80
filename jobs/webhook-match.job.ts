// webhooks / match: one job per outbox event. Finds the matching subscriptions,
// records one delivery per (event, subscription) — unique in the database —
// and enqueues their delivery jobs, each at its account's fair turn
// (src/queue/fair-share.ts); those its account's slots cannot take now are
// enqueued parked, asleep until a slot is theirs (webhooks/delivery-gate.ts).
// The jobs of events matched at the same time share their statements and
// Redis calls (a burst of 1,000 events is matched in batches, not one by one).
// Safe to run twice.
import type { Static } from '@sinclair/typebox';
import type { Job, Queue } from 'bullmq';
import type { Db } from '../src/db/connection.js';
import { eventText } from '../src/domain/webhooks/matching.js';
import { Batcher } from '../src/db/batcher.js';
import { loadEventsWithInsights, markEventsRelayed, runTracesOfEvents, unrelayedEvents } from '../src/webhooks/event.repository.js';
import { inTraceOf, tracingEnabled } from '../src/observability/tracing.js';
import { createPendingDeliveriesOf, deliveryOwners, type EventMatch, type OwnedDelivery } from '../src/webhooks/delivery.repository.js';
import type { DeliveryGate } from '../src/webhooks/delivery-gate.js';
import { jobIdOf } from '../src/queue/enqueue.js';
import { queueTurns } from '../src/queue/fair-share.js';
import { PARKED_SLEEP_MS } from '../src/domain/webhooks/fairness.js';
import { accountSubscriptionsTaking, minScoresOf, subscriptionsOfAccount } from '../src/webhooks/subscription.repository.js';
import { enqueueMany, ensureEnqueued } from '../src/queue/enqueue.js';
import { deliveryPayload, FIRST_DELIVERY_TURN, JOB, REPLAY_PRIORITY, type WebhookMatchPayload } from '../src/queue/job-catalogue.js';
import type { SubscriptionIndexCache } from '../src/webhooks/subscription-index.cache.js';
import { spendSharedDeliveries } from '../src/webhooks/sends.repository.js';
import { DEFAULT_WEBHOOK_SENDS, type WebhookSendLimits } from '../src/domain/webhooks/sends.js';

export interface MatchDeps {
  db: Db;
  webhooks: Queue;
  index: SubscriptionIndexCache;
  /** Parks what an account's slots cannot take now (none: every delivery is enqueued to run, as before issue 48). */
  gate?: DeliveryGate;
  /** The day's sends by plan (WEBHOOK_SENDS_PER_DAY_*): what an account's public research may send to other accounts. */
  sends?: WebhookSendLimits;
}

/**
 * Enqueues the deliveries at their accounts' turns; with a gate, the ones
 * their account's slots cannot take now asleep (woken by the gate when a slot
 * is theirs; woken now if a slot was handed to one before it was enqueued).
 */
export async function enqueueDeliveries(deps: Omit<MatchDeps, 'index'>, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  const owners = await deliveryOwners(deps.db, ids);
  await enqueueOwnedDeliveries(
    deps,
    ids.map((id, i) => ({ id, owner: owners[i]! })),
  );
}

/**
 * enqueueDeliveries for deliveries whose owners are known (the match job reads
 * them with the insert): a few Redis round trips for any number of them — one
 * for the turns, one per account for the gate, one addBulk, one for the wakes.
 */
export async function enqueueOwnedDeliveries(
  deps: Omit<MatchDeps, 'index' | 'db'>,
  deliveries: ReadonlyArray<{ id: string; owner: string; subscriptionId?: string }>,
): Promise<void> {
  // The same delivery twice in one batch (an event matched by two jobs at once) is one job and one slot.
  const unique = [...new Map(deliveries.map((d) => [d.id, d])).values()];
  if (unique.length === 0) return;
  const ids = unique.map((d) => d.id);
  const owners = unique.map((d) => d.owner);
  const jobIds = ids.map((id) => jobIdOf(JOB.webhookDeliver, deliveryPayload({ id }))!);
  // Fresh deliveries' turns stay below the replays' priority: replays wait behind every account's new events.
  const turns = await queueTurns(deps.webhooks, REPLAY_PRIORITY, FIRST_DELIVERY_TURN).take(
    owners.map((owner, i) => ({ owner, member: jobIds[i]! })),
  );
  const admitted = new Map<string, boolean>();
  if (deps.gate) {
    const byOwner = new Map<string, { jobs: string[]; subscriptions: Array<string | undefined> }>();
    owners.forEach((owner, i) => {
      const of = byOwner.get(owner) ?? { jobs: [], subscriptions: [] };
      of.jobs.push(jobIds[i]!);
      of.subscriptions.push(unique[i]!.subscriptionId);
      byOwner.set(owner, of);
    });
    for (const [owner, { jobs, subscriptions }] of byOwner)
      (await deps.gate.admit(owner, jobs, Date.now(), subscriptions)).forEach((go, i) => admitted.set(jobs[i]!, go));
  }
  const parked = jobIds.filter((id) => admitted.get(id) === false);
  await enqueueMany(
    deps.webhooks,
    JOB.webhookDeliver,
    ids.map((id, i) => ({
      data: deliveryPayload({ id }),
      key: [],
      choice: choiceOf(admitted.get(jobIds[i]!), turns[i]!),
    })),
  );
  for (const jobId of await (deps.gate?.claimWakes(parked) ?? [])) await wake(deps.webhooks, jobId);
}

/**
 * Wakes a parked job a slot was handed to. It may be awake already (the job
 * that freed the slot sent its delivery in its stead, or it woke itself):
 * BullMQ then refuses the promote, which is not a failure of the enqueue (it
 * failed the match job, and with it every event of its batch, until 2026-11-28).
 */
async function wake(webhooks: Queue, jobId: string): Promise<void> {
  try {
    await (await webhooks.getJob(jobId))?.promote();
  } catch (error) {
    if (!String((error as Error).message).includes('is not in the delayed state')) throw error;
  }
}

/**
 * Where a delivery's job goes: given a slot (`true`), it runs next, before
 * the other jobs' turns (priority 0: BullMQ's wait list), since the slot is
 * already held for it and an account has few such at once (its slots), and
 * its delivery then carries the account's parked backlog (delivery-runner.ts
 * carryOn) while matching goes on; parked (`false`), it sleeps until woken;
 * without a gate, it takes its turn.
 */
function choiceOf(admitted: boolean | undefined, turn: number): { priority: number; delay?: number } {
  if (admitted === true) return { priority: 0 };
  if (admitted === false) return { priority: turn, delay: PARKED_SLEEP_MS };
  return { priority: turn };
}

export function webhookMatchProcessor(deps: MatchDeps) {
  const sends = deps.sends ?? DEFAULT_WEBHOOK_SENDS;
  // Events matched at the same time share each round trip (see Batcher): one read of the events,
  // one INSERT of their deliveries (with their owners), one set of Redis calls enqueueing them,
  // one UPDATE marking them relayed. Each job still waits for its own event's deliveries to be
  // committed and enqueued before its event is marked relayed: a worker killed mid-batch leaves
  // the event unrelayed, and the relay gives it a new match job (idempotent: the unique key).
  const events = new Batcher((ids: string[]) => loadEventsWithInsights(deps.db, ids));
  const recorded = new Batcher(async (matches: EventMatch[]) => {
    const byEvent = new Map<string, OwnedDelivery[]>();
    for (const row of await createPendingDeliveriesOf(deps.db, matches))
      byEvent.set(row.eventId, [...(byEvent.get(row.eventId) ?? []), row]);
    return matches.map((m) => byEvent.get(m.eventId) ?? []);
  });
  const enqueued = new Batcher(async (batches: OwnedDelivery[][]) => {
    await enqueueOwnedDeliveries(deps, batches.flat());
    return batches.map(() => undefined);
  });
  const relayed = new Batcher(async (ids: string[]) => {
    await markEventsRelayed(deps.db, ids);
    return ids.map(() => undefined);
  });
  return async (job: Job<Static<typeof WebhookMatchPayload>>) => {
    const event = await events.submit(job.data.eventId);
    if (!event) return { skipped: 'no such event' };
    let subscriptionIds: string[] = [];
    let withheld = 0;
    const { insight } = event;
    const runAccount = (event.payload as { account_id?: unknown }).account_id;
    if (event.type === 'research.completed' || event.type === 'research.failed') {
      // The account's own research: its subscriptions alone.
      subscriptionIds = typeof runAccount === 'string' ? await accountSubscriptionsTaking(deps.db, runAccount, event.type) : [];
    } else if (insight) {
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
        const thresholds = await minScoresOf(deps.db, matched);
        subscriptionIds = thresholds.filter((s) => s.minScore !== null && previous < s.minScore).map((s) => s.id);
      }
      // A private insight is matched against its account's subscriptions only.
      if (insight.owner_account_id !== null)
        subscriptionIds = await subscriptionsOfAccount(deps.db, subscriptionIds, insight.owner_account_id);
      // An account's public research reaches other accounts' receivers on its day's sends, not on no one's.
      const publisher = insight.publisher_account_id;
      if (publisher && typeof (event.payload as { run_id?: unknown }).run_id === 'string' && subscriptionIds.length > 0) {
        const own = await subscriptionsOfAccount(deps.db, subscriptionIds, publisher);
        const others = subscriptionIds.filter((id) => !own.includes(id));
        const shared = await spendSharedDeliveries(deps.db, event.id, publisher, others, (plan) => sends.perDay[plan]);
        subscriptionIds = [...own, ...shared.allowed];
        withheld = shared.withheld;
      }
    }
    // Every pending delivery of the event gets its job, new or left by a crash before its job
    // was enqueued (job ids make that idempotent).
    const pending = await recorded.submit({ eventId: event.id, subscriptionIds });
    await enqueued.submit(pending);
    await relayed.submit(event.id);
    return { matched: subscriptionIds.length, enqueued: pending.length, ...(withheld > 0 ? { withheld } : {}) };
  };
}

/**
 * maintenance / relay: outbox events not yet matched get their match job: nobody
 * announced them (a crash after commit), or their job was lost or failed (a
 * Redis restart, a worker killed while it ran).
 */
export function outboxRelayProcessor(deps: { db: Db; webhooks: Queue }) {
  return async () => {
    const events = await unrelayedEvents(deps.db);
    let revived = 0;
    // A match job made here is made in the trace of the run its event announces (nobody announced it there).
    const traces = tracingEnabled() ? await runTracesOfEvents(deps.db, events) : undefined;
    for (const eventId of events) {
      const outcome = await inTraceOf(traces?.get(eventId), () => ensureEnqueued(deps.webhooks, JOB.webhookMatch, { eventId }));
      if (outcome !== 'present') revived += 1;
    }
    return { unmatched: events.length, revived };
  };
}
