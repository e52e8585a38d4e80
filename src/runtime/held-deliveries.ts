// Deliveries of a suspended account's subscriptions sleep without spending an
// attempt (src/webhooks/delivery-runner.ts). When the account is resumed they are woken
// at once rather than at their next look.
import { ensureEnqueued, jobIdOf } from '../queue/enqueue.js';
import { deliveryPayload, JOB } from '../queue/job-catalogue.js';
import type { Services } from './services.js';
import { pendingDeliveriesOfAccount, runTracesOfDeliveries } from '../webhooks/delivery.repository.js';
import { inTraceOf, tracingEnabled } from '../observability/tracing.js';

/** Wakes the pending deliveries of the account's subscriptions; returns how many. */
export async function releaseHeldDeliveries({ db, queues }: Pick<Services, 'db' | 'queues'>, accountId: string): Promise<number> {
  const pending = await pendingDeliveriesOfAccount(db, accountId);
  if (pending.length === 0) return 0;
  // A job made again is made in its run's trace, as the sweeper makes it.
  const traces = tracingEnabled()
    ? await runTracesOfDeliveries(
        db,
        pending.map((d) => d.id),
      )
    : undefined;
  for (const delivery of pending) {
    const data = deliveryPayload(delivery);
    const existing = await queues.webhooks.getJob(jobIdOf(JOB.webhookDeliver, data)!);
    if (existing && (await existing.getState()) === 'delayed') await existing.promote();
    else await inTraceOf(traces?.get(delivery.id), () => ensureEnqueued(queues.webhooks, JOB.webhookDeliver, data));
  }
  return pending.length;
}
