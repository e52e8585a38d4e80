// Issue 53, item 3: a research step's delivery goes on with its run's next steps
// itself (StepRunner.run, RESEARCH_GO_ON_MS) instead of a queue round trip per
// step. Each step it runs must still be recorded as its own job would record it;
// a step that cannot end now (waits on Google, fails) goes to its own job with
// nothing of it recorded; the time allowed ends the delivery; and a redelivery
// of the first job (a crash mid-way) only finds the run and sends it on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { WaitingForTrendsError } from '../../src/providers/gateway.js';
import { RoutedTrendsGateway } from '../../src/providers/router.js';
import { SyntheticTrendsProvider } from '../../src/providers/synthetic/provider.js';
import type { StepQueue } from '../../src/research/step-queue.js';
import { createRun, findRun, stepsOf } from '../../src/research/run.repository.js';
import { stepChains, type StepChains, type StepDefinition } from '../../src/research/step-contract.js';
import { StepRunner, type ResearchStepDeps } from '../../src/research/step-runner.js';
import { RESEARCH_CHAINS, STEPS } from '../../src/research/steps.js';
import { DirectTrendsGateway } from '../../src/providers/gateway.js';
import type { TestDatabase } from '../support/database.js';
import type { TestRedis } from '../support/redis.js';
import { createTestStack, type TestStack } from '../support/stack.js';

let database: TestDatabase;
let redis: TestRedis;
let stack: TestStack;
beforeAll(async () => {
  stack = await createTestStack();
  ({ database, redis } = stack);
});
afterAll(() => stack?.close());

/** The jobs the runner makes: each next step handed to its own job, and each careful re-enqueue. */
function jobsOf() {
  const next: Array<{ runId: string; step: number }> = [];
  const careful: Array<{ runId: string; step: number }> = [];
  const finished: string[] = [];
  const stepQueue = {
    enqueueNext: async (runId: string, step: number) => void next.push({ runId, step }),
    enqueueStep: async (runId: string, step: number) => void careful.push({ runId, step }),
    finished: async (runId: string) => void finished.push(runId),
  } as unknown as StepQueue;
  return { stepQueue, next, careful, finished };
}

function runnerOf(stepQueue: StepQueue, goOnForMs: number, chains: StepChains = RESEARCH_CHAINS): StepRunner {
  const world = new SyntheticTrendsProvider(() => new Date('2026-11-28T00:00:00Z'));
  const gateway = new RoutedTrendsGateway(['synthetic'], () => new DirectTrendsGateway(world));
  const deps: ResearchStepDeps = {
    db: database.db,
    redis: redis.redis,
    redisKeys: redis.keys,
    stepQueue,
    trendsFor: () => gateway,
    logger: createLogger('silent'),
    anchorFor: () => 'weather',
    geo: 'US',
    goOnForMs,
    chains,
  };
  return new StepRunner(deps);
}

/** Today's chain with the step at `position` (from 1) replaced by `run` (same name, so the same chain id). */
function chainWith(position: number, run: StepDefinition['run']): StepChains {
  const steps = [...STEPS];
  steps[position - 1] = { ...steps[position - 1]!, run } as StepDefinition;
  return stepChains([steps]);
}

const newRun = (idea: string) => createRun(database.db, { idea, ideaKey: idea, hints: [], provider: 'synthetic', source: 'synthetic' });
const total = RESEARCH_CHAINS.current.steps.length;

describe('a step delivery that goes on with its run', () => {
  it('runs a whole run in one delivery, each step recorded once at its own position, and publishes it', async () => {
    const jobs = jobsOf();
    const runner = runnerOf(jobs.stepQueue, 60_000);
    const run = await newRun('rota app for dental practices');
    const outcome = await runner.run({ runId: run.id, step: 1, attempt: 1, maxAttempts: 4 });
    expect(outcome).toEqual({ kind: 'done', result: { step: total, name: STEPS.at(-1)!.name, steps: total } });
    expect(jobs.next).toEqual([]);
    expect(jobs.careful).toEqual([]);
    expect(jobs.finished).toEqual([run.id]);
    const done = (await findRun(database.db, run.id))!;
    expect(done.status).toBe('succeeded');
    expect(done.insight_id).not.toBeNull();
    const steps = await stepsOf(database.db, run.id);
    expect(steps.map((s) => [s.step, s.name, s.status, s.attempts])).toEqual(STEPS.map((s, i) => [i + 1, s.name, 'done', 1]));

    // The first job delivered again (its worker died after going on): it records nothing and runs nothing.
    const again = await runner.run({ runId: run.id, step: 1, attempt: 1, maxAttempts: 4 });
    expect(again).toEqual({ kind: 'done', result: { skipped: 'run is succeeded' } });
    expect((await stepsOf(database.db, run.id)).length).toBe(total);
  });

  it('hands a step that waits on Google to its own job, with nothing of it recorded, and that job runs it', async () => {
    const waitAt = 5;
    let waits = 1;
    const original = STEPS[waitAt - 1]!;
    const chains = chainWith(waitAt, async (ctx) => {
      if (waits-- > 0) throw new WaitingForTrendsError('the comparison is queued');
      return (original.run as (c: typeof ctx) => Promise<unknown>)(ctx) as never;
    });
    const jobs = jobsOf();
    const runner = runnerOf(jobs.stepQueue, 60_000, chains);
    const run = await newRun('inventory app for florists');
    const outcome = await runner.run({ runId: run.id, step: 1, attempt: 1, maxAttempts: 4 });
    expect(outcome).toEqual({ kind: 'done', result: { step: waitAt - 1, name: STEPS[waitAt - 2]!.name, steps: waitAt - 1 } });
    expect(jobs.next).toEqual([{ runId: run.id, step: waitAt }]);
    const atHandOff = (await findRun(database.db, run.id))!;
    // Not marked waiting by the step gone on with: its own job decides that, with its own wake-up.
    expect([atHandOff.status, atHandOff.next_step, atHandOff.waiting_reason]).toEqual(['running', waitAt, null]);
    expect((await stepsOf(database.db, run.id)).map((s) => s.step)).toEqual([1, 2, 3, 4]);

    // The step's own job: its first attempt, which goes on to the end.
    const own = await runner.run({ runId: run.id, step: waitAt, attempt: 1, maxAttempts: 4 });
    expect(own).toEqual({ kind: 'done', result: { step: total, name: STEPS.at(-1)!.name, steps: total - waitAt + 1 } });
    const steps = await stepsOf(database.db, run.id);
    expect(steps.map((s) => [s.step, s.status, s.attempts])).toEqual(STEPS.map((_, i) => [i + 1, 'done', 1]));
    expect((await findRun(database.db, run.id))!.status).toBe('succeeded');
  });

  it('hands a failing step to its own job, whose attempts are the only ones recorded', async () => {
    const failAt = 3;
    let failures = 2;
    const original = STEPS[failAt - 1]!;
    const chains = chainWith(failAt, async (ctx) => {
      if (failures-- > 0) throw new Error('a passing fault');
      return (original.run as (c: typeof ctx) => Promise<unknown>)(ctx) as never;
    });
    const jobs = jobsOf();
    const runner = runnerOf(jobs.stepQueue, 60_000, chains);
    const run = await newRun('booking app for dog groomers');
    await runner.run({ runId: run.id, step: 1, attempt: 1, maxAttempts: 4 });
    expect(jobs.next).toEqual([{ runId: run.id, step: failAt }]);
    expect((await stepsOf(database.db, run.id)).map((s) => s.step)).toEqual([1, 2]);
    // Its own job's first attempt fails (recorded), the second goes on to the end.
    const first = await runner.run({ runId: run.id, step: failAt, attempt: 1, maxAttempts: 4 });
    expect(first.kind).toBe('failed');
    const second = await runner.run({ runId: run.id, step: failAt, attempt: 2, maxAttempts: 4 });
    expect(second.kind).toBe('done');
    const steps = await stepsOf(database.db, run.id);
    expect(steps.find((s) => s.step === failAt)!.attempts).toBe(2);
    expect(steps.every((s) => s.status === 'done')).toBe(true);
    expect(steps.length).toBe(total);
  });

  it('hands the next step to its own job once the time allowed is spent', async () => {
    const jobs = jobsOf();
    // No time at all: the job's own step, then the next one goes to its own job (a job per step, as before).
    const runner = runnerOf(jobs.stepQueue, 0);
    const run = await newRun('payroll app for food trucks');
    const outcome = await runner.run({ runId: run.id, step: 1, attempt: 1, maxAttempts: 4 });
    expect(outcome).toEqual({ kind: 'done', result: { step: 1, name: STEPS[0]!.name, steps: 1 } });
    expect(jobs.next).toEqual([{ runId: run.id, step: 2 }]);
    expect((await findRun(database.db, run.id))!.next_step).toBe(2);
  });
});
