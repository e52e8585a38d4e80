// webhooks / deliver: one signed POST per attempt. 2xx is done; 410 disables
// the subscription; anything else is retried on the schedule (retry.ts) until
// the attempts run out, then the delivery is kept as failed for replay. A
// subscription failing without a break for too long is disabled. Each attempt
// passes the delivery gate first (its account's slots, its subscription's
// circuit): one that may not go now waits without spending an attempt, so no
// account, and no silent receiver, holds the slots everyone shares. The
// attempt is src/webhooks/delivery-runner.ts; the decision, pure, is
// src/domain/webhooks/delivery-decision.ts.
import type { Static } from '@sinclair/typebox';
import { UnrecoverableError, type Job } from 'bullmq';
import { MAX_ATTEMPTS } from '../src/domain/webhooks/retry.js';
import type { WebhookDeliverPayload } from '../src/queue/job-catalogue.js';
import { sleepWithoutAttempt } from '../src/queue/wait.js';
import { DeliveryRunner, type DeliverDeps } from '../src/webhooks/delivery-runner.js';

export function webhookDeliverProcessor(deps: DeliverDeps) {
  const runner = new DeliveryRunner(deps);
  return async (job: Job<Static<typeof WebhookDeliverPayload>>, token?: string) => {
    const outcome = await runner.attempt({
      id: String(job.id),
      deliveryId: job.data.deliveryId,
      attemptsMade: job.attemptsMade,
      attemptsStarted: job.attemptsStarted ?? 1,
      maxAttempts: job.opts.attempts ?? MAX_ATTEMPTS,
    });
    if (outcome.kind === 'done') return outcome.result;
    if (outcome.kind === 'sleep') throw await sleepWithoutAttempt(job, token, outcome.ms);
    if (outcome.kind === 'park') {
      const asleep = await sleepWithoutAttempt(job, token, outcome.ms);
      if (await runner.wokenWhileParking(String(job.id))) await job.promote();
      throw asleep;
    }
    throw outcome.final ? new UnrecoverableError(outcome.message) : new Error(outcome.message);
  };
}
