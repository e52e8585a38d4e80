// Deliveries of a suspended account's subscriptions sleep without spending an
// attempt (webhook-deliver.job.ts). When the account is resumed they are woken
// at once rather than at their next look.
import type { Config } from '../config.js';
import { deliveryJob } from '../queue/queues.js';
import { ensureJob } from '../queue/ensure-job.js';
import type { Resources } from './resources.js';
import { openQueues } from './queues.js';
import { pendingDeliveriesOfAccount } from '../webhooks/delivery.repository.js';

/** Wakes the pending deliveries of the account's subscriptions; returns how many. */
export async function releaseHeldDeliveries(resources: Resources, config: Config, accountId: string): Promise<number> {
  const pending = await pendingDeliveriesOfAccount(resources.db, accountId);
  if (pending.length === 0) return 0;
  const { queues, close } = openQueues(resources, config);
  try {
    for (const delivery of pending) {
      const job = deliveryJob(delivery);
      const existing = await queues.webhooks.getJob(job.opts.jobId);
      if (existing && (await existing.getState()) === 'delayed') await existing.promote();
      else await ensureJob(queues.webhooks, job.name, job.data, job.opts);
    }
  } finally {
    await close();
  }
  return pending.length;
}
