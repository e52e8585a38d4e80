// trends / trends-fetch: one request to live Google through the egress pool
// (src/providers/google/paced-fetch.ts says what each answer means). Waiting is a normal
// state, never a failure: a job that must wait moves itself to `delayed` (no
// attempt spent, no lock held) and says why in its progress, which the research
// step reads to sleep as long. It never rate-limits the worker: a worker rate
// limit left jobs it had already taken waiting past their lock ("Missing lock
// for job trends-… moveJobFromActiveToWait").
import { UnrecoverableError, type Job } from 'bullmq';
import type { TrendsFetchPayload } from '../src/queue/job-catalogue.js';
import { sleepWithoutAttempt } from '../src/queue/wait.js';
import { fetchThroughPool, type PacedFetchDeps, type TrendsWait } from '../src/providers/google/paced-fetch.js';
import { TRENDS_PRIORITY } from '../src/providers/gateway.js';
import { spendingFor } from '../src/observability/trends-purpose.js';

/** BullMQ's wait before the next attempt after attempt `attempt` failed (fixed or exponential backoff). */
function backoffMs(job: Job, attempt: number): number {
  const backoff = job.opts.backoff;
  if (typeof backoff === 'number') return backoff;
  const delay = backoff?.delay ?? 0;
  return backoff?.type === 'exponential' ? delay * 2 ** (attempt - 1) : delay;
}

/** Jobs that wake at the same moment (a cooldown's end) are spread over this much. */
const WAKE_SPREAD_MS = 500;

export function trendsFetchProcessor(deps: PacedFetchDeps & { wanted?: (jobId: string) => Promise<boolean> }) {
  return async (job: Job<TrendsFetchPayload>, token?: string) => {
    const { request, refusedBy = [] } = job.data;
    // Every run that waited for it was cancelled: Google's budget is not spent on it.
    if (deps.wanted && !(await deps.wanted(String(job.id))))
      throw new UnrecoverableError('nobody waits for it any more: its research runs were cancelled');
    // The priority says whose request it is (research runs go first): its exchanges are counted as that purpose's.
    const purpose = (job.opts.priority ?? TRENDS_PRIORITY.research) >= TRENDS_PRIORITY.background ? 'background' : 'research';
    const outcome = await spendingFor(purpose, () => fetchThroughPool(deps, String(job.id), request, refusedBy));
    if (outcome.kind === 'fail') throw new UnrecoverableError(outcome.message);
    if (outcome.kind === 'retry') {
      // Said at once to the runs waiting on it (their waiting reason reads this progress), with when it tries again.
      const attempt = job.attemptsMade + 1;
      const attempts = job.opts.attempts ?? 1;
      if (attempt < attempts) {
        const ms = backoffMs(job, attempt);
        await job.updateProgress({
          until: Date.now() + ms,
          reason: `${outcome.reason}, retrying ${attempt + 1} of ${attempts} at ${new Date(Date.now() + ms).toISOString().slice(11, 19)} UTC`,
        } satisfies TrendsWait);
      }
      throw outcome.error;
    }
    if (outcome.kind === 'answer') {
      if (job.progress) await job.updateProgress(0);
      return outcome.response;
    }
    if (outcome.refusedBy) await job.updateData({ ...job.data, refusedBy: outcome.refusedBy });
    await job.updateProgress({ until: Date.now() + outcome.ms, reason: outcome.reason } satisfies TrendsWait);
    throw await sleepWithoutAttempt(job, token, outcome.ms + Math.floor(Math.random() * WAKE_SPREAD_MS));
  };
}
