// The one way a job is made: from its declaration (job-catalogue.ts) and a
// payload its schema types. The name, options and id come from the
// declaration; a producer adds only when (delay) and how urgently (priority).
import type { Static, TSchema } from '@sinclair/typebox';
import type { FlowJob, Job, JobsOptions, Queue } from 'bullmq';
import type { JobDeclaration } from './job-catalogue.js';

/**
 * Where a job's trace comes from: the W3C traceparent of the span active when
 * it is made. Set by src/observability/tracing.ts when tracing starts (a floor
 * above this one, so it plugs itself in here); none while tracing is off.
 */
let traceparentNow: () => string | undefined = () => undefined;
export function carryTraceFrom(source: (() => string | undefined) | undefined): void {
  traceparentNow = source ?? (() => undefined);
}

/** What a producer may choose for one enqueue: everything else is the declaration's. */
export interface EnqueueChoice {
  delay?: number;
  priority?: number;
}

export interface JobRequest<P extends TSchema> {
  name: string;
  data: Static<P>;
  opts: JobsOptions;
}

/** Where jobs go: a queue, checked to be the one the declaration names. */
type Target = Pick<Queue, 'name' | 'add' | 'addBulk' | 'getJob'>;

function options<P extends TSchema>(job: JobDeclaration<P, unknown[]>, data: Static<P>): JobsOptions {
  return typeof job.options === 'function' ? job.options(data) : job.options;
}

/** The job id the declaration's rule gives `data` (undefined: the job has no rule, each enqueue is new). */
export function jobIdOf<P extends TSchema, K extends unknown[]>(job: JobDeclaration<P, K>, data: Static<P>, ...key: K): string | undefined {
  return job.id?.(data, ...key);
}

/** The name, data and options of a job, for addBulk and flows. */
export function jobRequest<P extends TSchema, K extends unknown[]>(
  job: JobDeclaration<P, K>,
  data: Static<P>,
  key: K,
  choice: EnqueueChoice = {},
): JobRequest<P> {
  const jobId = job.id?.(data, ...key);
  // The trace the job belongs to, in BullMQ's own slot for it (its span's parent or link: runtime/workers.ts).
  const traceparent = traceparentNow();
  return {
    name: job.name,
    data,
    opts: {
      ...options(job as JobDeclaration<P, unknown[]>, data),
      ...(jobId === undefined ? {} : { jobId }),
      ...choice,
      ...(traceparent === undefined ? {} : { telemetry: { metadata: traceparent } }),
    },
  };
}

/** A child or parent of a BullMQ flow on the declaration's queue. */
export function flowJob<P extends TSchema, K extends unknown[]>(
  job: JobDeclaration<P, K>,
  data: Static<P>,
  key: K,
  prefix: string,
  children?: FlowJob[],
): FlowJob {
  return { ...jobRequest(job, data, key), queueName: job.queue, prefix, ...(children ? { children } : {}) };
}

function checkTarget(queue: Target, job: JobDeclaration<TSchema, never>): void {
  // A job added to the wrong queue waits for a worker that never comes: refuse it here.
  if (queue.name !== job.queue) throw new Error(`job "${job.name}" runs on queue "${job.queue}", not "${queue.name}"`);
}

/** Adds one job. With an id rule, adding the same job twice is one job (BullMQ deduplicates by id). */
export async function enqueue<P extends TSchema, K extends unknown[]>(
  queue: Target,
  job: JobDeclaration<P, K>,
  data: Static<P>,
  ...key: K
): Promise<Job> {
  checkTarget(queue, job as unknown as JobDeclaration<TSchema, never>);
  const request = jobRequest(job, data, key);
  return queue.add(request.name, request.data, request.opts);
}

/** Adds one job with a delay or priority of the producer's choosing. */
export async function enqueueWith<P extends TSchema, K extends unknown[]>(
  queue: Target,
  job: JobDeclaration<P, K>,
  choice: EnqueueChoice,
  data: Static<P>,
  ...key: K
): Promise<Job> {
  checkTarget(queue, job as unknown as JobDeclaration<TSchema, never>);
  const request = jobRequest(job, data, key, choice);
  return queue.add(request.name, request.data, request.opts);
}

/** Adds many jobs of one declaration in one round trip. */
export async function enqueueMany<P extends TSchema, K extends unknown[]>(
  queue: Target,
  job: JobDeclaration<P, K>,
  items: ReadonlyArray<{ data: Static<P>; key: K; choice?: EnqueueChoice }>,
): Promise<void> {
  if (items.length === 0) return;
  checkTarget(queue, job as unknown as JobDeclaration<TSchema, never>);
  await queue.addBulk(items.map(({ data, key, choice }) => jobRequest(job, data, key, choice)));
}

/**
 * Makes sure the job will run: adds it if missing, retries it if it failed
 * (e.g. it stalled too often while workers were being killed), and runs a
 * completed one again. A job that is waiting, delayed or active is left alone.
 * The careful path of sweepers and relays: the work it stands for must itself
 * be idempotent, since a completed job is run a second time. Only for jobs with
 * an id rule.
 */
export async function ensureEnqueued<P extends TSchema, K extends unknown[]>(
  queue: Target,
  job: JobDeclaration<P, K>,
  data: Static<P>,
  ...key: K
): Promise<'added' | 'retried' | 'present'> {
  return ensureEnqueuedWith(queue, job, {}, data, ...key);
}

/** ensureEnqueued, adding (if it must) with a delay or priority of the producer's choosing (a fair turn). */
export async function ensureEnqueuedWith<P extends TSchema, K extends unknown[]>(
  queue: Target,
  job: JobDeclaration<P, K>,
  choice: EnqueueChoice,
  data: Static<P>,
  ...key: K
): Promise<'added' | 'retried' | 'present'> {
  checkTarget(queue, job as unknown as JobDeclaration<TSchema, never>);
  const request = jobRequest(job, data, key, choice);
  const jobId = request.opts.jobId;
  if (jobId === undefined) throw new Error(`job "${job.name}" has no id rule: it cannot be ensured, only enqueued`);
  const existing = await queue.getJob(jobId);
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
  await queue.add(request.name, request.data, request.opts);
  return 'added';
}
