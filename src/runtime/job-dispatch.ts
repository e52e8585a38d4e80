// How a queue's worker finds the processor of a job: one processor per queue,
// switching on the job name, every payload checked against its schema before
// the processor sees it (payloads are `unknown` until checked: older or newer
// code may have enqueued them). No job module is imported here.
import { Kind, type Static, type TSchema } from '@sinclair/typebox';
import { UnrecoverableError, type Job, type Processor } from 'bullmq';
import { JOB, type JobDeclaration } from '../queue/job-catalogue.js';
import { checkPayload, QUEUES, type JobName, type QueueName } from '../queue/queue-names.js';

/** One row of the job table: which queue runs the job, what it accepts, what runs it. */
export interface JobEntry<S extends TSchema = TSchema> {
  queue: QueueName;
  job: JobName;
  payload: S;
  processor: (job: Job<Static<S>>, token?: string) => Promise<unknown>;
}

/** The row of a declared job (job-catalogue.ts): its processor typed by the declaration's payload. */
export function handle<S extends TSchema, K extends unknown[]>(
  declaration: JobDeclaration<S, K>,
  processor: (job: Job<Static<S>>, token?: string) => Promise<unknown>,
): JobEntry {
  return { queue: declaration.queue, job: declaration.name, payload: declaration.payload, processor } as unknown as JobEntry;
}

/**
 * Fails start, with every problem in one message, unless each job name has
 * exactly one processor on a known queue, with a payload schema.
 */
export function checkJobTable(entries: readonly JobEntry[]): void {
  const problems: string[] = [];
  const queues = new Set<string>(Object.values(QUEUES));
  const declared = new Map<string, JobDeclaration>(Object.values(JOB).map((d) => [d.name, d as unknown as JobDeclaration]));
  for (const { name } of declared.values()) {
    const rows = entries.filter((e) => e.job === name);
    if (rows.length === 0) problems.push(`job "${name}" has no processor`);
    if (rows.length > 1) problems.push(`job "${name}" has ${rows.length} processors (queues ${rows.map((r) => r.queue).join(', ')})`);
  }
  for (const e of entries) {
    const declaration = declared.get(e.job);
    if (!declaration) problems.push(`job "${e.job}" is not declared in JOB (src/queue/job-catalogue.ts)`);
    else if (declaration.queue !== e.queue) problems.push(`job "${e.job}" is declared on queue "${declaration.queue}", not "${e.queue}"`);
    if (!queues.has(e.queue)) problems.push(`job "${e.job}" names queue "${e.queue}", which is not declared in QUEUES`);
    if (typeof e.processor !== 'function') problems.push(`job "${e.job}" has no processor function`);
    if (typeof e.payload !== 'object' || e.payload === null || !(Kind in e.payload)) problems.push(`job "${e.job}" has no payload schema`);
  }
  if (problems.length > 0)
    throw new Error(
      `The job table (src/runtime/job-table.ts) is not consistent: ${problems.join('; ')}. Fix the table before starting workers.`,
    );
}

/** The one processor of `queue`: checks the payload, then runs the job's processor; a name it does not know fails that job. */
export function dispatcher(queue: QueueName, entries: readonly JobEntry[]): Processor {
  const byName = new Map(entries.filter((e) => e.queue === queue).map((e) => [e.job as string, e]));
  return async (job, token) => {
    const entry = byName.get(job.name);
    if (!entry) throw new UnrecoverableError(`queue ${queue} has no processor for job "${job.name}"`);
    checkPayload(entry.payload, job.data, job.name);
    return entry.processor(job, token);
  };
}
