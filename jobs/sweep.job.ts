// maintenance / sweep: work whose job was lost gets its job again. Research
// runs whose next step was committed but never enqueued (a crash between the
// two) or whose job was lost or failed, and runs recorded to the end but never
// published (a crash between the last step's commit and its read-model bump);
// webhook deliveries still pending whose job is gone or failed (it stalled too
// often while workers were being killed).
// Both kinds of work are idempotent, so a job that was merely slow costs nothing.
import type { Queue } from 'bullmq';
import type { Db } from '../src/db/connection.js';
import { inTraceOf, tracingEnabled } from '../src/observability/tracing.js';
import { ensureEnqueued } from '../src/queue/enqueue.js';
import { deliveryPayload, JOB } from '../src/queue/job-catalogue.js';
import { resumeStep, runOwner, type StepQueue } from '../src/research/step-queue.js';
import { quietUnfinishedRuns, unfinishedRunIds } from '../src/research/run.repository.js';
import { quietPendingDeliveries, runTracesOfDeliveries } from '../src/webhooks/delivery.repository.js';

export interface SweepDeps {
  db: Db;
  stepQueue: StepQueue;
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
      await deps.stepQueue.enqueueStep(run.id, resumeStep(run), runOwner(run));
      resumed += 1;
    }
    // Turns of runs that ended without giving theirs back (a crash, a cancel): the first ones hold
    // the others' turns back, so they are the ones checked.
    const first = await deps.stepQueue.turns.first(100);
    const live = new Set(await unfinishedRunIds(deps.db, first));
    await deps.stepQueue.turns.leave(...first.filter((id) => !live.has(id)));
    const deliveries = await quietPendingDeliveries(deps.db, quietMs);
    let revivedDeliveries = 0;
    // A job made again here is made in its run's trace: the job that carried the trace is what was lost.
    const traces = tracingEnabled()
      ? await runTracesOfDeliveries(
          deps.db,
          deliveries.map((d) => d.id),
        )
      : undefined;
    for (const delivery of deliveries) {
      const outcome = await inTraceOf(traces?.get(delivery.id), () =>
        ensureEnqueued(deps.webhooks, JOB.webhookDeliver, deliveryPayload(delivery)),
      );
      if (outcome !== 'present') revivedDeliveries += 1;
    }
    return { checked: runs.length, resumed, pendingDeliveries: deliveries.length, revivedDeliveries };
  };
}
