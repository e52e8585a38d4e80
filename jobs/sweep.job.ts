// maintenance / sweep: work whose job was lost gets its job again. Research
// runs whose next step was committed but never enqueued (a crash between the
// two) or whose job was lost or failed, and runs recorded to the end but never
// published (a crash between step 40's commit and its read-model bump);
// webhook deliveries still pending whose job is gone or failed (it stalled too
// often while workers were being killed).
// Both kinds of work are idempotent, so a job that was merely slow costs nothing.
import type { Queue } from 'bullmq';
import type { Db } from '../src/db/connection.js';
import { ensureEnqueued } from '../src/queue/enqueue.js';
import { deliveryPayload, JOB } from '../src/queue/job-catalogue.js';
import type { ResearchChain } from '../src/research/chain.js';
import { quietUnfinishedRuns } from '../src/research/run.repository.js';
import { quietPendingDeliveries } from '../src/webhooks/delivery.repository.js';
import { STEP_COUNT } from '../src/research/step-contract.js';

export interface SweepDeps {
  db: Db;
  chain: ResearchChain;
  webhooks: Queue;
  /** Work untouched for this long is checked. */
  quietMs?: number;
}

export function sweepProcessor(deps: SweepDeps) {
  const quietMs = deps.quietMs ?? 30_000;
  return async () => {
    const runs = await quietUnfinishedRuns(deps.db, quietMs);
    let resumed = 0;
    for (const run of runs) {
      // Past the last step: every step is recorded but the run was never published; step 40's job publishes it.
      await deps.chain.enqueueStep(run.id, Math.min(run.next_step, STEP_COUNT));
      resumed += 1;
    }
    const deliveries = await quietPendingDeliveries(deps.db, quietMs);
    let revivedDeliveries = 0;
    for (const delivery of deliveries) {
      const outcome = await ensureEnqueued(deps.webhooks, JOB.webhookDeliver, deliveryPayload(delivery));
      if (outcome !== 'present') revivedDeliveries += 1;
    }
    return { checked: runs.length, resumed, pendingDeliveries: deliveries.length, revivedDeliveries };
  };
}
