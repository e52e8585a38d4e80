import { DelayedError, type Job } from 'bullmq';

/**
 * Puts the job back to sleep for `ms` without spending an attempt: waiting on
 * Google is not a failure. Throw what this returns from the processor.
 */
export async function sleepWithoutAttempt(job: Job, token: string | undefined, ms: number): Promise<DelayedError> {
  await job.moveToDelayed(Date.now() + ms, token);
  return new DelayedError();
}
