// The job table holds every job name to one processor and every payload to
// its schema: a table that breaks either fails start with a message that says
// what to fix, and a job whose payload does not match fails that job alone.
import { pino } from 'pino';
import { UnrecoverableError, type Job } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { JOB } from '../../src/queue/job-catalogue.js';
import { JOBS, QUEUES, type QueueName } from '../../src/queue/queue-names.js';
import { checkJobTable, dispatcher, handle, type JobEntry } from '../../src/runtime/job-dispatch.js';
import { jobTable, type PipelineParts } from '../../src/runtime/job-table.js';
import { loadConfig } from '../../src/config.js';

/** The real table, built from collaborators that are never called: building it runs no job. */
function realTable(): JobEntry[] {
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
  it('gives every declared job exactly one processor, on a declared queue, with a payload schema', () => {
    const table = realTable();
    expect(() => checkJobTable(table)).not.toThrow();
    expect(table.map((e) => e.job).sort()).toEqual(Object.values(JOBS).sort());
  });

  it('fails start naming a job without a processor, one with two, and a row without a payload schema', () => {
    const table = realTable();
    const withoutMatch = table.filter((e) => e.job !== JOBS.webhookMatch);
    const sweep = table.find((e) => e.job === JOBS.sweep)!;
    const broken = [
      ...withoutMatch,
      { ...sweep, queue: QUEUES.ingest as QueueName },
      { ...table.find((e) => e.job === JOBS.relay)!, payload: undefined as never },
    ];
    let message = '';
    try {
      checkJobTable(broken);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/^The job table \(src\/runtime\/job-table\.ts\) is not consistent/);
    expect(message).toContain('job "match" has no processor');
    expect(message).toContain('job "sweep" has 2 processors (queues maintenance, ingest)');
    expect(message).toContain('job "relay" has 2 processors');
    expect(message).toContain('job "relay" has no payload schema');
  });
});

describe('a job with a payload that does not match its schema', () => {
  const ran: unknown[] = [];
  const table = [
    handle(JOB.webhookMatch, async (job) => void ran.push(job.data.eventId)),
    handle(JOB.webhookDeliver, async (job) => void ran.push(job.data.deliveryId)),
    handle(JOB.sweep, async () => void ran.push('sweep')),
  ];
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
