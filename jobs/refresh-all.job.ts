// ingest / refresh-all: the daily refresh, planned. Insights are grouped by
// popularity, five to a Google request (domain/trends/google/batching.ts), one
// refresh-group job per group, all children of one refresh-leftovers job that
// regroups what the groups could not serve once they are done (a BullMQ flow).
// Groups delayed by a Google 429 storm still run later: the schedule catches
// up, and the same request the same day is never asked twice (trends job ids).
// If the plan cannot finish before the next refresh at the current rate, the
// log says so.
import type { FlowProducer, Job } from 'bullmq';
import type { Db } from '../src/db/connection.js';
import { refreshEstimate, type RefreshPacing } from '../src/domain/trends/google/refresh-estimate.js';
import type { Logger } from '../src/logger.js';
import { flowJob } from '../src/queue/enqueue.js';
import { JOB } from '../src/queue/job-catalogue.js';
import { planRefresh } from '../src/refresh/plan.js';

export interface RefreshAllDeps {
  db: Db;
  flows: FlowProducer;
  /** The ingest queue's key prefix (flows name their queues). */
  ingestPrefix: string;
  provider: string;
  logger?: Logger;
  /** When set, the job warns if the plan cannot finish before the next refresh at this rate. */
  pacing?: RefreshPacing;
}

export function refreshAllProcessor(deps: RefreshAllDeps) {
  return async (job: Job) => {
    const now = new Date();
    const day = now.toISOString().slice(0, 10);
    const plan = await planRefresh(deps.db, deps.provider);
    // One parent per trigger (the scheduler's job id is unique per run); the groups are its children.
    const parent = flowJob(JOB.refreshLeftovers, {}, [now, String(job.id)], deps.ingestPrefix);
    const parentId = parent.opts!.jobId!;
    await deps.flows.add({
      ...parent,
      children: plan.groups.map((insightIds, i) => flowJob(JOB.refreshGroup, { insightIds, round: 1 }, [parentId, i], deps.ingestPrefix)),
    });
    const check = deps.pacing === undefined ? undefined : refreshEstimate(plan, deps.provider, deps.pacing);
    if (check && !check.fits) {
      deps.logger?.warn(
        { insights: plan.insights, requests: plan.requests, minutesNeeded: check.minutesNeeded, minutesAvailable: check.minutesAvailable },
        `today's refresh cannot finish before the next one starts: ${check.advice}`,
      );
    }
    return { insights: plan.insights, groups: plan.groups.length, day, ...(check ? { fits: check.fits } : {}) };
  };
}
