// A job whose payload is not what its processor accepts (enqueued by older or
// newer code, or by hand) fails that job for good with a message saying what
// is wrong, and the workers go on with the next job.
import { Job, type Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOBS } from '../../src/queue/queue-names.js';
import { type Pipeline } from '../../src/runtime/workers.js';
import { until } from '../support/pipeline.js';
import { createTestStack, type TestStack } from '../support/stack.js';

let pipeline: Pipeline;

let stack: TestStack;
beforeAll(async () => {
  stack = await createTestStack({ workers: true });
  pipeline = stack.pipeline!;
});
afterAll(() => stack.close());

const settled = (queue: Queue, job: Job) =>
  until(
    async () => ({ state: await job.getState(), job: await Job.fromId(queue, job.id!) }),
    ({ state }) => state === 'failed' || state === 'completed',
    60_000,
    `job ${job.name} to finish`,
  );

describe('a job with a payload its processor does not accept', () => {
  it('fails at once, for good, naming the job and the field; the next good job on the queue runs', async () => {
    const cases = [
      { queue: pipeline.queues.webhooks, name: JOBS.webhookMatch, data: { eventId: 7 }, message: /^match: invalid payload at \/eventId: / },
      { queue: pipeline.queues.webhooks, name: JOBS.webhookDeliver, data: {}, message: /^deliver: invalid payload at \/deliveryId: / },
      {
        queue: pipeline.queues.ingest,
        name: JOBS.refreshInsight,
        data: { insightId: 'not-an-insight' },
        message: /^refresh-insight: invalid payload at \/insightId: /,
      },
      {
        queue: pipeline.queues.ingest,
        name: JOBS.refreshGroup,
        data: { insightIds: [] },
        message: /^refresh-group: invalid payload at \/insightIds: /,
      },
    ];
    for (const c of cases) {
      const job = await c.queue.add(c.name, c.data, { attempts: 3 });
      const { state, job: after } = await settled(c.queue, job);
      expect(state, c.name).toBe('failed');
      expect(after?.failedReason, c.name).toMatch(c.message);
      expect(after?.attemptsMade, `${c.name} is not retried`).toBe(1);
    }
    const match = await settled(pipeline.queues.webhooks, await pipeline.queues.webhooks.add(JOBS.webhookMatch, { eventId: 'evt_gone' }));
    expect(match.state).toBe('completed');
    expect(match.job?.returnvalue).toEqual({ skipped: 'no such event' });
    const relay = await settled(pipeline.queues.maintenance, await pipeline.queues.maintenance.add(JOBS.relay, {}));
    expect(relay.state).toBe('completed');
    expect(relay.job?.returnvalue).toEqual({ unmatched: 0, revived: 0 });
  });
});
