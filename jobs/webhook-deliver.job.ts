// webhooks / deliver: one signed POST per attempt. 2xx is done; 410 disables
// the subscription; anything else is retried on the schedule (retry.ts) until
// the attempts run out, then the delivery is kept as failed for replay. A
// subscription failing without a break for too long is disabled. Each attempt
// passes the delivery gate first (its account's slots, its subscription's
// circuit): one that may not go now waits without spending an attempt, so no
// account, and no silent receiver, holds the slots everyone shares.
import type { Static } from '@sinclair/typebox';
import { UnrecoverableError, type Job } from 'bullmq';
import type { Db } from '../src/db/connection.js';
import type { AddressPolicy } from '../src/domain/webhooks/address-policy.js';
import { MAX_ATTEMPTS } from '../src/domain/webhooks/retry.js';
import { webhookBody } from '../src/webhooks/payload.js';
import type { SecretBox } from '../src/webhooks/secret-box.js';
import { send } from '../src/webhooks/sender.js';
import { webhookDeliveries, webhookLatency } from '../src/observability/metrics.js';
import { disableBySystem, setFailingSince, signingSecrets } from '../src/webhooks/subscription.repository.js';
import { Batcher } from '../src/db/batcher.js';
import { sleepWithoutAttempt } from '../src/queue/wait.js';
import type { WebhookDeliverPayload } from '../src/queue/job-catalogue.js';
import { finishDelivery, loadDeliveries, recordAttempts, type AttemptRecord } from '../src/webhooks/delivery.repository.js';
import type { DeliveryGate } from '../src/webhooks/delivery-gate.js';
import { gateSleep, receiverFailing } from '../src/domain/webhooks/fairness.js';
import { loadEventsWithInsights, type EventWithInsight } from '../src/webhooks/event.repository.js';

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
}

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

/** How long a held delivery (its account suspended) sleeps before it looks again; `accounts resume` wakes it at once. */
export const HELD_DELIVERY_RECHECK_MS = 60_000;

export function webhookDeliverProcessor(deps: DeliverDeps) {
  // Deliveries in flight together share their reads and their writes.
  const bodies = new BodyCache(new Batcher((ids: string[]) => loadEventsWithInsights(deps.db, ids)));
  const deliveries = new Batcher((ids: string[]) => loadDeliveries(deps.db, ids));
  const attempts = new Batcher((rows: AttemptRecord[]) => recordAttempts(deps.db, rows));
  return async (job: Job<Static<typeof WebhookDeliverPayload>>, token?: string) => {
    const row = await deliveries.submit(job.data.deliveryId);
    if (!row) return { skipped: 'no such delivery' };
    if (row.status === 'succeeded') return { skipped: 'already delivered' };
    // Held, not dropped, while the subscription's account is suspended: no attempt is spent.
    if (row.account_status === 'suspended') throw await sleepWithoutAttempt(job, token, HELD_DELIVERY_RECHECK_MS);
    const finish = (status: 'succeeded' | 'failed', error: string | null) => finishDelivery(deps.db, row.id, status, error);
    if (!row.sub_id || row.state !== 'enabled') {
      await finish('failed', row.sub_id ? `subscription disabled: ${row.disabled_reason ?? ''}` : 'subscription removed');
      return { skipped: 'subscription not enabled' };
    }
    const subscription = {
      secret_encrypted: row.secret_encrypted!, // the join found the subscription (checked above)
      previous_secret_encrypted: row.previous_secret_encrypted,
      previous_secret_expires_at: row.previous_secret_expires_at,
    };
    const body = await bodies.get(row.event_id, deps.baseUrl);

    const owner = row.account_id ?? 'operators';
    const jobId = String(job.id);
    if (deps.gate) {
      const entry = await deps.gate.enter(owner, row.sub_id, jobId);
      if (!entry.go) {
        // Every start but this one that was not a spent attempt was a time it was held back (or held for its suspended account).
        const heldBefore = (job.attemptsStarted ?? 1) - 1 - job.attemptsMade;
        const { baseMs, spreadMs } = gateSleep(entry, heldBefore);
        throw await sleepWithoutAttempt(job, token, baseMs + Math.floor(Math.random() * spreadMs));
      }
    }
    const attempt = row.attempts + 1;
    const at = new Date();
    // The event id is the webhook-id: identical across retries and replays, so receivers can deduplicate.
    let result: Awaited<ReturnType<typeof send>>;
    try {
      result = await send(
        row.url!,
        { id: row.event_id, body, secrets: signingSecrets(deps.box, subscription) },
        deps.policy,
        deps.timeoutMs,
      );
    } catch (error) {
      await deps.gate?.leave(owner, row.sub_id, jobId, 'other');
      throw error;
    }
    const code = result.statusCode;
    const ok = code !== null && code >= 200 && code < 300;
    await deps.gate?.leave(owner, row.sub_id, jobId, ok ? 'ok' : receiverFailing(code, result.refused) ? 'failing' : 'other');
    if (code !== null) webhookLatency.observe(result.latencyMs / 1000);
    webhookDeliveries.inc({
      outcome: ok
        ? 'delivered'
        : code === 410
          ? 'gone'
          : result.refused
            ? 'blocked'
            : job.attemptsMade + 1 >= (job.opts.attempts ?? MAX_ATTEMPTS)
              ? 'failed'
              : 'retry',
    });
    // One write (shared with the other deliveries finishing now): the attempt log and the delivery's new state.
    await attempts.submit({
      deliveryId: row.id,
      attempt,
      at,
      statusCode: code,
      latencyMs: result.latencyMs,
      error: result.error,
      succeeded: ok,
    });

    if (ok) {
      if (row.failing_since) await setFailingSince(deps.db, row.sub_id, false);
      return { status: code, attempt };
    }
    if (result.refused) {
      // The address policy will refuse it on every attempt: fail now, with the reason, instead of retrying for hours.
      await finish('failed', `${result.error ?? 'refused by the address policy'} (replay with: insights webhooks replay ${row.id})`);
      throw new UnrecoverableError(result.error ?? 'refused by the address policy');
    }
    if (code === 410) {
      await disableBySystem(deps.db, row.sub_id, 'the endpoint answered 410 Gone');
      await deps.onChange?.();
      await finish('failed', '410 Gone: subscription disabled');
      throw new UnrecoverableError('410 Gone: subscription disabled');
    }
    const failingSince = row.failing_since ?? new Date();
    if (!row.failing_since) await setFailingSince(deps.db, row.sub_id, true);
    const reason = result.error ?? `the receiver answered ${code}`;
    if (Date.now() - failingSince.getTime() > deps.disableAfterMs) {
      await disableBySystem(deps.db, row.sub_id, `failing without a break since ${failingSince.toISOString()}`);
      await deps.onChange?.();
      await finish('failed', `${reason}; subscription disabled after a long failure streak`);
      throw new UnrecoverableError(reason);
    }
    // This job's own attempts: a replay gets the whole schedule again.
    if (job.attemptsMade + 1 >= (job.opts.attempts ?? MAX_ATTEMPTS)) {
      await finish('failed', `${reason} (after ${attempt} attempts; replay with: insights webhooks replay ${row.id})`);
      throw new UnrecoverableError(reason);
    }
    throw new Error(reason);
  };
}
