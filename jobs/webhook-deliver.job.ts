// webhooks / deliver: one signed POST per attempt. 2xx is done; 410 disables
// the subscription; anything else is retried on the schedule (retry.ts) until
// the attempts run out, then the delivery is kept as failed for replay. A
// subscription failing without a break for too long is disabled.
import { UnrecoverableError, type Job } from 'bullmq';
import { sql } from 'kysely';
import type { Db } from '../src/db/connection.js';
import type { AddressPolicy } from '../src/domain/webhooks/address-policy.js';
import { MAX_ATTEMPTS } from '../src/domain/webhooks/retry.js';
import { findInsight } from '../src/insights/insight.repository.js';
import { webhookBody } from '../src/webhooks/payload.js';
import type { SecretBox } from '../src/webhooks/secret-box.js';
import { send } from '../src/webhooks/sender.js';
import { webhookDeliveries, webhookLatency } from '../src/observability/metrics.js';
import { setSubscriptionState, signingSecrets } from '../src/webhooks/subscription.repository.js';

export interface DeliverDeps {
  db: Db;
  box: SecretBox;
  policy: AddressPolicy;
  baseUrl: string;
  disableAfterMs: number;
  onChange?: () => Promise<void>;
}

/** Rendered bodies by event id: every delivery of an event sends the same bytes. */
class BodyCache {
  private readonly bodies = new Map<string, string>();
  async get(db: Db, eventId: string, baseUrl: string): Promise<string> {
    const hit = this.bodies.get(eventId);
    if (hit !== undefined) return hit;
    const event = await db.selectFrom('outbox_events').selectAll().where('id', '=', eventId).executeTakeFirstOrThrow();
    const insight = event.insight_id ? await findInsight(db, event.insight_id) : undefined;
    const body = webhookBody(event, insight, baseUrl);
    if (this.bodies.size >= 5_000) this.bodies.delete(this.bodies.keys().next().value!);
    this.bodies.set(eventId, body);
    return body;
  }
}

export function webhookDeliverProcessor(deps: DeliverDeps) {
  const bodies = new BodyCache();
  return async (job: Job) => {
    const deliveryId = String((job.data as { deliveryId?: unknown }).deliveryId ?? '');
    // One read: the delivery with its subscription.
    const row = await deps.db
      .selectFrom('webhook_deliveries as d')
      .leftJoin('webhook_subscriptions as s', 's.id', 'd.subscription_id')
      .select([
        'd.id',
        'd.status',
        'd.attempts',
        'd.event_id',
        'd.subscription_id',
        's.id as sub_id',
        's.url',
        's.state',
        's.disabled_reason',
        's.secret_encrypted',
        's.previous_secret_encrypted',
        's.previous_secret_expires_at',
        's.failing_since',
      ])
      .where('d.id', '=', deliveryId)
      .executeTakeFirst();
    if (!row) return { skipped: 'no such delivery' };
    if (row.status === 'succeeded') return { skipped: 'already delivered' };
    const finish = (status: 'succeeded' | 'failed', error: string | null) =>
      deps.db.updateTable('webhook_deliveries').set({ status, last_error: error, finished_at: new Date() }).where('id', '=', row.id).execute();
    if (!row.sub_id || row.state !== 'enabled') {
      await finish('failed', row.sub_id ? `subscription disabled: ${row.disabled_reason ?? ''}` : 'subscription removed');
      return { skipped: 'subscription not enabled' };
    }
    const subscription = {
      secret_encrypted: row.secret_encrypted!, // the join found the subscription (checked above)
      previous_secret_encrypted: row.previous_secret_encrypted,
      previous_secret_expires_at: row.previous_secret_expires_at,
    };
    const body = await bodies.get(deps.db, row.event_id, deps.baseUrl);

    const attempt = row.attempts + 1;
    // The event id is the webhook-id: identical across retries and replays, so receivers can deduplicate.
    const result = await send(row.url!, { id: row.event_id, body, secrets: signingSecrets(deps.box, subscription) }, deps.policy);
    const code = result.statusCode;
    const ok = code !== null && code >= 200 && code < 300;
    if (code !== null) webhookLatency.observe(result.latencyMs / 1000);
    webhookDeliveries.inc({
      outcome: ok ? 'delivered' : code === 410 ? 'gone' : /blocked|refusing/.test(result.error ?? '') ? 'blocked' : job.attemptsMade + 1 >= (job.opts.attempts ?? MAX_ATTEMPTS) ? 'failed' : 'retry',
    });
    // One write: the attempt log and the delivery's new state together.
    await deps.db
      .with('logged', (qb) =>
        qb.insertInto('webhook_attempts').values({ delivery_id: row.id, attempt, status_code: code, latency_ms: result.latencyMs, error: result.error }),
      )
      .updateTable('webhook_deliveries')
      .set({
        attempts: attempt,
        last_status_code: code,
        last_error: result.error,
        ...(ok ? { status: 'succeeded' as const, finished_at: new Date() } : {}),
      })
      .where('id', '=', row.id)
      .execute();

    if (ok) {
      if (row.failing_since) await deps.db.updateTable('webhook_subscriptions').set({ failing_since: null }).where('id', '=', row.sub_id).execute();
      return { status: code, attempt };
    }
    if (code === 410) {
      await setSubscriptionState(deps.db, row.sub_id, 'disabled', 'the endpoint answered 410 Gone');
      await deps.onChange?.();
      await finish('failed', '410 Gone: subscription disabled');
      throw new UnrecoverableError('410 Gone: subscription disabled');
    }
    const failingSince = row.failing_since ?? new Date();
    if (!row.failing_since) {
      await deps.db.updateTable('webhook_subscriptions').set({ failing_since: sql<Date>`coalesce(failing_since, now())` }).where('id', '=', row.sub_id).execute();
    }
    const reason = result.error ?? `the receiver answered ${code}`;
    if (Date.now() - failingSince.getTime() > deps.disableAfterMs) {
      await setSubscriptionState(deps.db, row.sub_id, 'disabled', `failing without a break since ${failingSince.toISOString()}`);
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
