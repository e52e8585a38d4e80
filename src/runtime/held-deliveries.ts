// Deliveries of a suspended account's subscriptions sleep without spending an
// attempt (src/webhooks/delivery-runner.ts). When the account is resumed they are woken
// at once rather than at their next look.
import { ensureEnqueued, jobIdOf } from '../queue/enqueue.js';
import { deliveryPayload, JOB } from '../queue/job-catalogue.js';
import type { Resources } from './resources.js';
import { openQueues } from './producer-queues.js';
import { pendingDeliveriesOfAccount, runTracesOfDeliveries } from '../webhooks/delivery.repository.js';
import { inTraceOf, tracingEnabled } from '../observability/tracing.js';

/** Wakes the pending deliveries of the account's subscriptions; returns how many. */
export async function releaseHeldDeliveries(resources: Resources, accountId: string): Promise<number> {
  const pending = await pendingDeliveriesOfAccount(resources.db, accountId);
  if (pending.length === 0) return 0;
  const { queues, close } = openQueues(resources);
  try {
    // A job made again is made in its run's trace, as the sweeper makes it.
    const traces = tracingEnabled()
      ? await runTracesOfDeliveries(
          resources.db,
          pending.map((d) => d.id),
        )
      : undefined;
    for (const delivery of pending) {
      const data = deliveryPayload(delivery);
      const existing = await queues.webhooks.getJob(jobIdOf(JOB.webhookDeliver, data)!);
      if (existing && (await existing.getState()) === 'delayed') await existing.promote();
      else await inTraceOf(traces?.get(delivery.id), () => ensureEnqueued(queues.webhooks, JOB.webhookDeliver, data));
    }
  } finally {
    await close();
  }
  return pending.length;
}
