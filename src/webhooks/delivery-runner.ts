// One attempt at a delivery, with its I/O: the delivery's row, the rendered
// body, the delivery gate (its account's slots, its subscription's circuit),
// the signed POST, the attempt's record and what the decision
// (domain/webhooks/delivery-decision.ts) says to write. Deliveries in flight
// together share their reads and their writes (Batcher). The deliver job
// (jobs/webhook-deliver.job.ts) turns the outcome into BullMQ's terms.
import { Batcher } from '../db/batcher.js';
import type { Db } from '../db/connection.js';
import type { AddressPolicy } from '../domain/webhooks/address-policy.js';
import { afterAttempt, beforeAttempt } from '../domain/webhooks/delivery-decision.js';
import { gateSleep, receiverFailing } from '../domain/webhooks/fairness.js';
import { webhookDeliveries, webhookLatency } from '../observability/metrics.js';
import { finishDelivery, loadDeliveries, recordAttempts, type AttemptRecord } from './delivery.repository.js';
import type { DeliveryGate } from './delivery-gate.js';
import { loadEventsWithInsights, type EventWithInsight } from './event.repository.js';
import { webhookBody } from './payload.js';
import type { SecretBox } from './secret-box.js';
import { send } from './sender.js';
import { disableBySystem, setFailingSince, signingSecrets } from './subscription.repository.js';

export interface DeliverDeps {
  db: Db;
  box: SecretBox;
  policy: AddressPolicy;
  /** Overall deadline of one attempt (WEBHOOK_TIMEOUT_MS). */
  timeoutMs?: number;
  baseUrl: string;
  disableAfterMs: number;
  onChange?: () => Promise<void>;
  /** Slots per account and circuits per subscription (none: every attempt goes, as in tests of the sender alone). */
  gate?: DeliveryGate;
  /** Wakes a parked delivery's job (its account handed it a slot); false if it is not asleep (yet). */
  wake?: (jobId: string) => Promise<boolean>;
}

/** How long a held delivery (its account suspended) sleeps before it looks again; `accounts resume` wakes it at once. */
export const HELD_DELIVERY_RECHECK_MS = 60_000;

/** The job's side of an attempt: its id, and its attempts so far. */
export interface AttemptJob {
  id: string;
  deliveryId: string;
  attemptsMade: number;
  attemptsStarted: number;
  maxAttempts: number;
}

export type DeliveryOutcome =
  | { kind: 'done'; result: Record<string, unknown> }
  /** Sleep this long without spending an attempt (held, or the gate said not now). */
  | { kind: 'sleep'; ms: number }
  /** Parked by its account's slots: sleep (without spending an attempt) until woken, `ms` at most; see wokenWhileParking. */
  | { kind: 'park'; ms: number }
  /** Failed: retried on the schedule, or (`final`) never again. */
  | { kind: 'failed'; message: string; final: boolean };

/**
 * Rendered bodies by event id: every delivery of an event sends the same
 * bytes. The deliveries of a new event arrive together, so the first one's
 * read is shared by the others (and by other events' first reads, batched).
 */
class BodyCache {
  private readonly bodies = new Map<string, Promise<string>>();
  constructor(private readonly events: Batcher<string, EventWithInsight | undefined>) {}

  get(eventId: string, baseUrl: string): Promise<string> {
    let body = this.bodies.get(eventId);
    if (!body) {
      body = this.events.submit(eventId).then((event) => {
        if (!event) throw new Error(`outbox event ${eventId} does not exist`);
        return webhookBody(event, event.insight, baseUrl);
      });
      if (this.bodies.size >= 5_000) this.bodies.delete(this.bodies.keys().next().value!);
      this.bodies.set(eventId, body);
      body.catch(() => this.bodies.delete(eventId)); // a failed read is not cached
    }
    return body;
  }
}

export class DeliveryRunner {
  private readonly bodies: BodyCache;
  private readonly deliveries: Batcher<string, Awaited<ReturnType<typeof loadDeliveries>>[number]>;
  private readonly attempts: Batcher<AttemptRecord, void>;

  constructor(private readonly deps: DeliverDeps) {
    this.bodies = new BodyCache(new Batcher((ids: string[]) => loadEventsWithInsights(deps.db, ids)));
    this.deliveries = new Batcher((ids: string[]) => loadDeliveries(deps.db, ids));
    this.attempts = new Batcher((rows: AttemptRecord[]) => recordAttempts(deps.db, rows));
  }

  /** Gives the slot back; the account's parked delivery it is handed to is woken now. */
  private async leave(owner: string, subscriptionId: string, jobId: string, outcome: 'ok' | 'failing' | 'other'): Promise<void> {
    const { gate, wake } = this.deps;
    if (!gate) return;
    const { woken } = await gate.leaveAndWake(owner, subscriptionId, jobId, outcome);
    // Not asleep yet (still lying down): it finds the wake-up itself (wokenWhileParking).
    // Once awake, its wake-up is left to lapse (60 s): one write less a delivery; found again, it would only wake a parked job once more.
    if (woken && wake) await wake(woken);
  }

  /** After a parked job has gone to sleep: whether a slot was handed to it meanwhile (then it wakes itself). */
  async wokenWhileParking(jobId: string): Promise<boolean> {
    return ((await this.deps.gate?.claimWakes([jobId])) ?? []).length > 0;
  }

  async attempt(job: AttemptJob): Promise<DeliveryOutcome> {
    const { deps } = this;
    const row = await this.deliveries.submit(job.deliveryId);
    if (!row) return { kind: 'done', result: { skipped: 'no such delivery' } };
    const before = beforeAttempt({
      status: row.status,
      subscriptionExists: row.sub_id !== null,
      subscriptionState: row.state,
      disabledReason: row.disabled_reason,
      accountSuspended: row.account_status === 'suspended',
    });
    if (before.kind === 'skip') return { kind: 'done', result: { skipped: before.reason } };
    if (before.kind === 'hold') return { kind: 'sleep', ms: HELD_DELIVERY_RECHECK_MS };
    if (before.kind === 'close') {
      await finishDelivery(deps.db, row.id, 'failed', before.error);
      return { kind: 'done', result: { skipped: before.reason } };
    }
    const subscriptionId = row.sub_id!;
    const body = await this.bodies.get(row.event_id, deps.baseUrl);
    const owner = row.account_id ?? 'operators';
    if (deps.gate) {
      const entry = await deps.gate.enter(owner, subscriptionId, job.id);
      if (!entry.go) {
        const { baseMs, spreadMs } = gateSleep(entry);
        return { kind: entry.why === 'account' ? 'park' : 'sleep', ms: baseMs + Math.floor(Math.random() * spreadMs) };
      }
    }
    const attempt = row.attempts + 1;
    const at = new Date();
    const secrets = signingSecrets(deps.box, {
      secret_encrypted: row.secret_encrypted!, // the join found the subscription (checked above)
      previous_secret_encrypted: row.previous_secret_encrypted,
      previous_secret_expires_at: row.previous_secret_expires_at,
    });
    let result: Awaited<ReturnType<typeof send>>;
    try {
      // The event id is the webhook-id: identical across retries and replays, so receivers can deduplicate.
      result = await send(row.url!, { id: row.event_id, body, secrets }, deps.policy, deps.timeoutMs);
    } catch (error) {
      await this.leave(owner, subscriptionId, job.id, 'other');
      throw error;
    }
    const code = result.statusCode;
    const decision = afterAttempt({
      statusCode: code,
      refused: result.refused,
      error: result.error,
      deliveryId: row.id,
      attempt,
      attemptsMade: job.attemptsMade,
      maxAttempts: job.maxAttempts,
      failingSince: row.failing_since,
      disableAfterMs: deps.disableAfterMs,
      now: new Date(),
    });
    const delivered = decision.kind === 'delivered';
    await this.leave(owner, subscriptionId, job.id, delivered ? 'ok' : receiverFailing(code, result.refused) ? 'failing' : 'other');
    if (code !== null) webhookLatency.observe(result.latencyMs / 1000);
    webhookDeliveries.inc({ outcome: decision.label });
    // One write (shared with the other deliveries finishing now): the attempt log and the delivery's new state.
    await this.attempts.submit({
      deliveryId: row.id,
      attempt,
      at,
      statusCode: code,
      latencyMs: result.latencyMs,
      error: result.error,
      succeeded: delivered,
    });

    if (decision.kind === 'delivered') {
      if (decision.clearFailing) await setFailingSince(deps.db, subscriptionId, false);
      return { kind: 'done', result: { status: code, attempt } };
    }
    if (decision.markFailing) await setFailingSince(deps.db, subscriptionId, true);
    if (decision.kind === 'retry') return { kind: 'failed', message: decision.message, final: false };
    if (decision.disable) {
      await disableBySystem(deps.db, subscriptionId, decision.disable);
      await deps.onChange?.();
    }
    await finishDelivery(deps.db, row.id, 'failed', decision.error);
    return { kind: 'failed', message: decision.message, final: true };
  }
}
