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
import { setSubscriptionState, signingSecrets } from '../src/webhooks/subscription.repository.js';

export interface DeliverDeps {
  db: Db;
  box: SecretBox;
  policy: AddressPolicy;
  baseUrl: string;
  disableAfterMs: number;
  onChange?: () => Promise<void>;
}

export function webhookDeliverProcessor(deps: DeliverDeps) {
  return async (job: Job) => {
    const deliveryId = String((job.data as { deliveryId?: unknown }).deliveryId ?? '');
    const delivery = await deps.db.selectFrom('webhook_deliveries').selectAll().where('id', '=', deliveryId).executeTakeFirst();
    if (!delivery) return { skipped: 'no such delivery' };
    if (delivery.status === 'succeeded') return { skipped: 'already delivered' };
    const finish = (status: 'succeeded' | 'failed', error: string | null) =>
      deps.db.updateTable('webhook_deliveries').set({ status, last_error: error, finished_at: new Date() }).where('id', '=', delivery.id).execute();

    const subscription = await deps.db.selectFrom('webhook_subscriptions').selectAll().where('id', '=', delivery.subscription_id).executeTakeFirst();
    if (!subscription || subscription.state === 'disabled') {
      await finish('failed', subscription ? `subscription disabled: ${subscription.disabled_reason ?? ''}` : 'subscription removed');
      return { skipped: 'subscription not enabled' };
    }
    const event = await deps.db.selectFrom('outbox_events').selectAll().where('id', '=', delivery.event_id).executeTakeFirstOrThrow();
    const insight = event.insight_id ? await findInsight(deps.db, event.insight_id) : undefined;
    const body = webhookBody(event, insight, deps.baseUrl);

    const attempt = delivery.attempts + 1;
    // The event id is the webhook-id: identical across retries and replays, so receivers can deduplicate.
    const result = await send(subscription.url, { id: event.id, body, secrets: signingSecrets(deps.box, subscription) }, deps.policy);
    await deps.db
      .insertInto('webhook_attempts')
      .values({ delivery_id: delivery.id, attempt, status_code: result.statusCode, latency_ms: result.latencyMs, error: result.error })
      .execute();
    await deps.db
      .updateTable('webhook_deliveries')
      .set({ attempts: attempt, last_status_code: result.statusCode, last_error: result.error })
      .where('id', '=', delivery.id)
      .execute();

    const code = result.statusCode;
    if (code !== null && code >= 200 && code < 300) {
      await finish('succeeded', null);
      if (subscription.failing_since) {
        await deps.db.updateTable('webhook_subscriptions').set({ failing_since: null }).where('id', '=', subscription.id).execute();
      }
      return { status: code, attempt };
    }
    if (code === 410) {
      await setSubscriptionState(deps.db, subscription.id, 'disabled', 'the endpoint answered 410 Gone');
      await deps.onChange?.();
      await finish('failed', '410 Gone: subscription disabled');
      throw new UnrecoverableError('410 Gone: subscription disabled');
    }
    const failingSince = subscription.failing_since ?? new Date();
    if (!subscription.failing_since) {
      await deps.db.updateTable('webhook_subscriptions').set({ failing_since: sql<Date>`coalesce(failing_since, now())` }).where('id', '=', subscription.id).execute();
    }
    const reason = result.error ?? `the receiver answered ${code}`;
    if (Date.now() - failingSince.getTime() > deps.disableAfterMs) {
      await setSubscriptionState(deps.db, subscription.id, 'disabled', `failing without a break since ${failingSince.toISOString()}`);
      await deps.onChange?.();
      await finish('failed', `${reason}; subscription disabled after a long failure streak`);
      throw new UnrecoverableError(reason);
    }
    // This job's own attempts: a replay gets the whole schedule again.
    if (job.attemptsMade + 1 >= (job.opts.attempts ?? MAX_ATTEMPTS)) {
      await finish('failed', `${reason} (after ${attempt} attempts; replay with: insights webhooks replay ${delivery.id})`);
      throw new UnrecoverableError(reason);
    }
    throw new Error(reason);
  };
}
