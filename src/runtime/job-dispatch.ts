// How a queue's worker finds the handler of a job: one processor per queue,
// switching on the job name, every payload checked against its schema before
// the handler sees it (payloads are `unknown` until checked: older or newer
// code may have enqueued them). No job module is imported here.
//
// The job table (job-table.ts) is a record keyed by each job's key in the
// catalogue (JOB, job-catalogue.ts), typed by JobHandlers: a job without a
// handler, a handler twice, or a handler for a job not declared fails `tsc`,
// not the start of a worker (graphile-worker's TaskList is the model).
import type { Static } from '@sinclair/typebox';
import { UnrecoverableError, type Job, type Processor } from 'bullmq';
import { JOB } from '../queue/job-catalogue.js';
import { checkPayload, type QueueName } from '../queue/queue-names.js';

/** A job's key in the catalogue (researchStep, webhookDeliver, …): each names one job. */
export type JobKey = keyof typeof JOB;

/** What runs a job: its payload typed by the job's declaration. */
export type JobHandler<K extends JobKey> = (job: Job<Static<(typeof JOB)[K]['payload']>>, token?: string) => Promise<unknown>;

/** The job table's type: exactly one handler for every declared job, by its key. */
export type JobHandlers = { readonly [K in JobKey]: JobHandler<K> };

/** Fails the job for good unless its payload matches the schema (checkPayload); past it, the job's data has the schema's type. */
function assertPayload<K extends JobKey>(key: K, job: Job): asserts job is Job<Static<(typeof JOB)[K]['payload']>> {
  checkPayload(JOB[key].payload, job.data, job.name);
}

/** The handler of one job as the queue's processor calls it: the payload checked first. */
function checked<K extends JobKey>(key: K, handlers: JobHandlers): Processor {
  const handler: JobHandler<K> = handlers[key];
  return async (job, token) => {
    assertPayload(key, job);
    return handler(job, token);
  };
}

/** The one processor of `queue`: checks the payload, then runs the job's handler; a name it does not know fails that job. */
export function dispatcher(queue: QueueName, handlers: JobHandlers): Processor {
  const keys = (Object.keys(JOB) as JobKey[]).filter((key) => JOB[key].queue === queue);
  const byName = new Map<string, Processor>(keys.map((key) => [JOB[key].name, checked(key, handlers)]));
  return async (job, token) => {
    const run = byName.get(job.name);
    if (!run) throw new UnrecoverableError(`queue ${queue} has no processor for job "${job.name}"`);
    return run(job, token);
  };
}
