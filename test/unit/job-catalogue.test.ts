// The job catalogue: each job's id rule and options come from its declaration,
// and a producer cannot put a job on a queue no worker of it reads.
import type { Job, JobsOptions, Queue } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { enqueue, enqueueMany, enqueueWith, jobIdOf, jobRequest } from '../../src/queue/enqueue.js';
import { deliveryPayload, JOB, REPLAY_PRIORITY } from '../../src/queue/job-catalogue.js';
import { JOBS, QUEUES } from '../../src/queue/queue-names.js';

/** A queue that records what it is given. */
function recordingQueue(name: string) {
  const added: Array<{ name: string; data: unknown; opts: JobsOptions }> = [];
  const queue = {
    name,
    add: async (jobName: string, data: unknown, opts: JobsOptions) => {
      added.push({ name: jobName, data, opts });
      return { id: opts.jobId } as Job;
    },
    addBulk: async (jobs: Array<{ name: string; data: unknown; opts: JobsOptions }>) => {
      added.push(...jobs);
      return [] as Job[];
    },
    getJob: async () => undefined,
  } as unknown as Queue;
  return { queue, added };
}

describe('the job catalogue', () => {
  it('declares every job name once, each on a declared queue', () => {
    const declared = Object.values(JOB).map((d) => d.name);
    expect(new Set(declared).size).toBe(declared.length);
    expect([...declared].sort()).toEqual(Object.values(JOBS).sort());
    for (const d of Object.values(JOB)) expect(Object.values(QUEUES)).toContain(d.queue);
  });

  it('makes ids from the payload, never the clock, where a second enqueue must be the same job', () => {
    expect(jobIdOf(JOB.researchStep, { runId: 'run_1', step: 7 })).toBe('run_1-step-7');
    expect(jobIdOf(JOB.webhookMatch, { eventId: 'evt_1' })).toBe('match-evt_1');
    expect(jobIdOf(JOB.webhookDeliver, deliveryPayload({ id: 'dlv_1' }))).toBe('deliver-dlv_1');
    expect(jobIdOf(JOB.webhookDeliver, deliveryPayload({ id: 'dlv_1', replays: 2 }))).toBe('deliver-dlv_1-replay-2');
    const request = { kind: 'autocomplete' as const, term: 'pizza' };
    const monday = new Date('2026-11-23T08:00:00Z');
    const same = jobIdOf(JOB.trendsFetch, { request, provider: 'google' }, monday);
    // The same request the same UTC day is one job; the next day it is asked again.
    expect(
      jobIdOf(JOB.trendsFetch, { request: { term: 'pizza', kind: 'autocomplete' }, provider: 'google' }, new Date('2026-11-23T23:00:00Z')),
    ).toBe(same);
    expect(jobIdOf(JOB.trendsFetch, { request, provider: 'google' }, new Date('2026-11-24T00:00:00Z'))).not.toBe(same);
    expect(same).toMatch(/^trends-[0-9a-f]{32}$/);
    expect(jobIdOf(JOB.refreshGroup, { insightIds: ['ins_a'], round: 1 }, 'refresh-x', 3)).toBe('refresh-x-g3');
    expect(jobIdOf(JOB.refreshGroup, { insightIds: ['ins_a'], round: 2 }, 'refresh-x', 3)).toBe('refresh-x-round2-3');
    // Scheduled jobs have no rule: their schedulers name each run.
    expect(jobIdOf(JOB.sweep, {})).toBeUndefined();
  });

  it('puts replays behind fresh deliveries and keeps the declared retries', () => {
    const fresh = jobRequest(JOB.webhookDeliver, deliveryPayload({ id: 'dlv_1' }), []);
    const replay = jobRequest(JOB.webhookDeliver, deliveryPayload({ id: 'dlv_1', replays: 1 }), []);
    expect(fresh.opts.priority).toBeUndefined();
    expect(replay.opts.priority).toBe(REPLAY_PRIORITY);
    expect(fresh.opts.attempts).toBe(8);
    expect(replay.opts.jobId).toBe('deliver-dlv_1-replay-1');
  });

  it('refuses a job on a queue its workers do not read, and adds one with its name, options and id', async () => {
    const research = recordingQueue(QUEUES.research);
    await expect(enqueue(recordingQueue(QUEUES.webhooks).queue, JOB.researchStep, { runId: 'run_1', step: 1 })).rejects.toThrow(
      'job "research-step" runs on queue "research", not "webhooks"',
    );
    await enqueue(research.queue, JOB.researchStep, { runId: 'run_1', step: 1 });
    await enqueue(research.queue, JOB.researchStep, { runId: 'run_1', step: 2 });
    // A run's first step waits its turn (FIFO); its next steps go ahead of runs not started (LIFO), as
    // before the catalogue: every step LIFO made a run's 40 steps take ~60 % longer in bench:flow.
    expect(research.added).toEqual([
      {
        name: 'research-step',
        data: { runId: 'run_1', step: 1 },
        opts: expect.objectContaining({ jobId: 'run_1-step-1', lifo: false, attempts: 4 }),
      },
      {
        name: 'research-step',
        data: { runId: 'run_1', step: 2 },
        opts: expect.objectContaining({ jobId: 'run_1-step-2', lifo: true, attempts: 4 }),
      },
    ]);
  });

  it('lets a producer choose only when and how urgently', async () => {
    const trends = recordingQueue(QUEUES.trends);
    await enqueueWith(
      trends.queue,
      JOB.trendsFetch,
      { priority: 3 },
      { request: { kind: 'autocomplete', term: 'x' }, provider: 'google' },
      new Date(),
    );
    expect(trends.added[0]!.opts).toMatchObject({ priority: 3, attempts: 5 });
    const webhooks = recordingQueue(QUEUES.webhooks);
    await enqueueMany(webhooks.queue, JOB.webhookMatch, []);
    expect(webhooks.added).toEqual([]);
  });
});
