// Runs take turns by account (issue 48): with 100 runs of one account
// queued, another account's run is taken within the next few first steps, and
// the position it is shown says so; one account alone is not held back; runs
// whose first step was lost with Redis's data come back, in turn, from the
// sweeper. Workers here record which first step they were given and do
// nothing else, so the order is BullMQ's own.
import { Queue, Worker } from 'bullmq';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sweepProcessor } from '../../jobs/sweep.job.js';
import { QUEUES } from '../../src/queue/queue-names.js';
import { createRedis } from '../../src/redis/connection.js';
import { StepQueue } from '../../src/research/step-queue.js';
import { ResearchService } from '../../src/research/research-service.js';
import { createTestApp, TEST_RESEARCH, type TestApp } from '../support/app.js';

let t: TestApp;
let queue: Queue;
let webhooks: Queue;
let stepQueue: StepQueue;
let service: ResearchService;
const connections = [] as ReturnType<typeof createRedis>[];
const connection = () => {
  const c = createRedis(t.redis.url, 'worker');
  connections.push(c);
  return c;
};

beforeAll(async () => {
  t = await createTestApp();
  queue = new Queue(QUEUES.research, { connection: connection(), prefix: t.redis.keys.queuePrefix(QUEUES.research) });
  webhooks = new Queue(QUEUES.webhooks, { connection: connection(), prefix: t.redis.keys.queuePrefix(QUEUES.webhooks) });
  stepQueue = new StepQueue(queue);
  // Runs on live Google, as the issue's accounts' (no step runs here: the estimate is what is read).
  service = new ResearchService(t.database.db, stepQueue, { ...TEST_RESEARCH, provider: 'google', reuseDays: 0 });
});
// Each test starts from an empty queue, no turns and no unfinished run.
afterEach(async () => {
  await queue.obliterate({ force: true });
  const keys = await t.redis.redis.keys(`${t.redis.keys.queuePrefix(QUEUES.research)}*`);
  if (keys.length > 0) await t.redis.redis.del(...keys);
  await sql`update research_runs set status = 'cancelled' where status in ('queued', 'running', 'waiting')`.execute(t.database.db);
});
afterAll(async () => {
  await queue.close();
  await webhooks.close();
  for (const c of connections) c.disconnect();
  await t.close();
});

async function submit(accountId: string, plan: 'free' | 'enterprise', idea: string): Promise<string> {
  const submitted = await service.submit({ accountId, plan }, { idea });
  if (submitted.kind !== 'run') throw new Error(`expected a run, got ${submitted.kind}`);
  return submitted.run.id;
}

/** Takes `count` jobs off the research queue, one at a time, and answers their run ids in the order taken. */
async function take(count: number): Promise<string[]> {
  const taken: string[] = [];
  let done!: () => void;
  const all = new Promise<void>((resolve) => (done = resolve));
  const worker = new Worker(
    QUEUES.research,
    async (job) => {
      taken.push((job.data as { runId: string }).runId);
      if (taken.length === count) done();
    },
    { connection: connection(), prefix: t.redis.keys.queuePrefix(QUEUES.research), concurrency: 1 },
  );
  worker.on('error', () => {});
  await all;
  await worker.close();
  return taken.slice(0, count);
}

describe('research runs take turns by account', () => {
  it("with 100 runs of an Enterprise account queued, a Free account's run is taken within the next 3 first steps, and is shown as about next", async () => {
    const enterprise = await t.researchKey('enterprise');
    const free = await t.researchKey('free');
    const backlog: string[] = [];
    for (let i = 0; i < 100; i += 1)
      backlog.push(await submit(enterprise.accountId, 'enterprise', `Fair queue backlog idea ${i} for dog walkers`));
    const freeRun = await submit(free.accountId, 'free', 'Fair queue idea of a free account for cat sitters');

    const run = await t.database.db.selectFrom('research_runs').selectAll().where('id', '=', freeRun).executeTakeFirstOrThrow();
    const schedule = await service.schedule(run);
    expect(schedule.position).toBeLessThanOrEqual(2);
    expect(schedule.basis).toMatch(/\d runs? ahead in turn/);
    // One run ahead at most, at the test settings' pace (10 requests a minute): minutes, not the backlog's hours.
    const perRunMs = schedule.estimatedFinishAt!.getTime() - schedule.estimatedStartAt!.getTime();
    expect(schedule.estimatedStartAt!.getTime() - Date.now()).toBeLessThanOrEqual(perRunMs + 60_000);

    const firstThree = await take(3);
    expect(firstThree).toContain(freeRun);
    expect(firstThree[0]).toBe(backlog[0]);
  });

  it("one account alone: its runs wait for no turn of anyone's, nothing sleeps, and they are taken in the order submitted", async () => {
    const alone = await t.researchKey('enterprise');
    const runs: string[] = [];
    for (let i = 0; i < 5; i += 1) runs.push(await submit(alone.accountId, 'enterprise', `Lone account idea ${i} for bakers`));
    const counts = await queue.getJobCounts('delayed', 'prioritized', 'wait');
    expect(counts.delayed).toBe(0);
    expect((counts.prioritized ?? 0) + (counts.wait ?? 0)).toBe(5);
    const first = await t.database.db.selectFrom('research_runs').selectAll().where('id', '=', runs[0]!).executeTakeFirstOrThrow();
    expect((await service.schedule(first)).position).toBe(1);
    expect(await take(5)).toEqual(runs);
  });

  it("runs whose first step was lost with Redis's data get it back from the sweeper, still in turn", async () => {
    const a = await t.researchKey('enterprise');
    const b = await t.researchKey('free');
    const aRuns: string[] = [];
    for (let i = 0; i < 6; i += 1) aRuns.push(await submit(a.accountId, 'enterprise', `Lost in Redis idea ${i} for florists`));
    const bRun = await submit(b.accountId, 'free', 'Lost in Redis idea of another account for tailors');
    // Redis restarted without its data: the jobs and the turns are gone; Postgres still has the runs, queued.
    await queue.obliterate({ force: true });
    const keys = await t.redis.redis.keys(`${t.redis.keys.queuePrefix(QUEUES.research)}*`);
    if (keys.length > 0) await t.redis.redis.del(...keys);
    await sql`update research_runs set updated_at = now() - interval '1 hour' where status = 'queued'`.execute(t.database.db);

    const swept = await sweepProcessor({ db: t.database.db, stepQueue, webhooks, quietMs: 1_000 })();
    expect(swept.resumed).toBe(7);
    const order = await take(7);
    expect(new Set(order)).toEqual(new Set([...aRuns, bRun]));
    expect(order.indexOf(bRun)).toBeLessThanOrEqual(2);
  });
});
