// The job table holds every declared job to one handler (the compiler checks it:
// see the @ts-expect-error lines, which fail `tsc` if a broken table compiles)
// and every payload to its schema: a job whose payload does not match fails that job alone.
import { pino } from 'pino';
import { UnrecoverableError, type Job } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { JOB } from '../../src/queue/job-catalogue.js';
import { JOBS, QUEUES } from '../../src/queue/queue-names.js';
import { dispatcher, type JobHandlers } from '../../src/runtime/job-dispatch.js';
import { jobTable, type PipelineParts } from '../../src/runtime/job-table.js';
import { loadConfig } from '../../src/config.js';

/** The real table, built from collaborators that are never called: building it runs no job. */
function realTable(): JobHandlers {
  const config = loadConfig({ DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/unused', REDIS_URL: 'redis://127.0.0.1:6379' });
  const never = new Proxy(
    {},
    {
      get: () => () => {
        throw new Error('not called while building the table');
      },
    },
  );
  const queues = Object.fromEntries(Object.values(QUEUES).map((q) => [q, never])) as PipelineParts['queues'];
  return jobTable({
    db: never as PipelineParts['db'],
    redis: never as PipelineParts['redis'],
    redisKeys: { queuePrefix: (q: string) => `test:${q}` } as PipelineParts['redisKeys'],
    config,
    logger: pino({ level: 'silent' }),
    queues,
    stepQueue: never as PipelineParts['stepQueue'],
    trendsFor: () => never as ReturnType<PipelineParts['trendsFor']>,
    egress: { routes: [] } as unknown as PipelineParts['egress'],
    googleProvider: never as PipelineParts['googleProvider'],
    deliveryGate: never as PipelineParts['deliveryGate'],
    flows: never as PipelineParts['flows'],
    box: never as PipelineParts['box'],
    subscriptionsIndex: never as PipelineParts['subscriptionsIndex'],
    announce: async () => {},
  });
}

const fakeJob = (name: string, data: unknown) => ({ name, data, id: '1', attemptsMade: 0, opts: {} }) as unknown as Job;

describe('the job table', () => {
  it('gives every declared job one handler, and each queue dispatches exactly its own jobs', () => {
    const table = realTable();
    expect(Object.keys(table).sort()).toEqual(Object.keys(JOB).sort());
    for (const handler of Object.values(table)) expect(typeof handler).toBe('function');
    // Every declared job name is dispatched by its queue's processor, and by no other.
    expect(
      Object.values(JOB)
        .map((d) => d.name)
        .sort(),
    ).toEqual(Object.values(JOBS).sort());
  });

  it('does not compile without a handler for a job, with one twice, or with one for a job not declared', () => {
    const { webhookMatch: _dropped, ...withoutMatch } = realTable();
    // @ts-expect-error: the table lacks webhookMatch (TS2741 "Property 'webhookMatch' is missing").
    const missing: JobHandlers = withoutMatch;
    const sweep: JobHandlers['sweep'] = async () => undefined;
    const twice = {
      ...realTable(),
      sweep,
      // @ts-expect-error: a second sweep in one table (TS1117 "multiple properties with the same name").
      sweep,
    } satisfies JobHandlers;
    const unknown = {
      ...realTable(),
      // @ts-expect-error: no job is declared as "reindex" (TS2353 "Object literal may only specify known properties").
      reindex: sweep,
    } satisfies JobHandlers;
    expect([missing, twice, unknown].every(Boolean)).toBe(true);
  });
});

describe('a job with a payload that does not match its schema', () => {
  const ran: unknown[] = [];
  const table: JobHandlers = {
    ...realTable(),
    webhookMatch: async (job) => void ran.push(job.data.eventId),
    webhookDeliver: async (job) => void ran.push(job.data.deliveryId),
    sweep: async () => void ran.push('sweep'),
  };
  const webhooks = dispatcher(QUEUES.webhooks, table);

  it('fails for good with what is wrong and where, and its processor never sees it; the next good job runs', async () => {
    const bad = webhooks(fakeJob(JOBS.webhookMatch, { eventId: 42 }));
    await expect(bad).rejects.toThrow(UnrecoverableError);
    await expect(bad).rejects.toThrow(/^match: invalid payload at \/eventId: /);
    await expect(webhooks(fakeJob(JOBS.webhookDeliver, {}))).rejects.toThrow(/^deliver: invalid payload at \/deliveryId: /);
    await expect(webhooks(fakeJob(JOBS.webhookDeliver, null))).rejects.toThrow(UnrecoverableError);
    expect(ran).toEqual([]);
    await webhooks(fakeJob(JOBS.webhookMatch, { eventId: 'evt_1' }));
    expect(ran).toEqual(['evt_1']);
  });

  it('a job name the queue has no processor for fails that job, saying so', async () => {
    await expect(webhooks(fakeJob(JOBS.sweep, {}))).rejects.toThrow(/^queue webhooks has no processor for job "sweep"$/);
  });
});
