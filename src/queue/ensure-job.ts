import type { JobsOptions, Queue } from 'bullmq';

/**
 * Makes sure a job with this id will run: adds it if missing, retries it if it
 * failed (e.g. it stalled too often while workers were being killed), and runs
 * a completed one again. A job that is waiting, delayed or active is left
 * alone. The careful path of sweepers and relays: the work it stands for must
 * itself be idempotent, since a completed job is run a second time.
 */
export async function ensureJob(
  queue: Queue,
  name: string,
  data: unknown,
  opts: JobsOptions & { jobId: string },
): Promise<'added' | 'retried' | 'present'> {
  const existing = await queue.getJob(opts.jobId);
  if (existing) {
    const state = await existing.getState();
    if (state === 'failed') {
      await existing.retry('failed');
      return 'retried';
    }
    if (state === 'completed') await existing.remove();
    // 'unknown': the job's hash outlived its place in every list (a Redis failover loses the
    // latest writes, which are replicated asynchronously). Adding with its id would be
    // deduplicated against that orphan and do nothing, so the orphan goes first.
    else if (state === 'unknown') await existing.remove();
    else return 'present';
  }
  await queue.add(name, data, opts);
  return 'added';
}
