// Issue 50, item 1: steps by name. A deploy that inserts, removes or reorders
// research steps must never let a run in flight read another step's output. A
// run records the chain it started on and finishes on it; a run started after
// the deploy takes the new chain. Played here with two step runners over one
// database: the code before the deploy, and the code after it, which carries
// both chains.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import type { StepQueue } from '../../src/research/step-queue.js';
import { RoutedTrendsGateway } from '../../src/providers/router.js';
import { runProgress, runSteps } from '../../src/research/run-steps.js';
import { createRun, findRun, stepsOf, type RunRow } from '../../src/research/run.repository.js';
import { stepChains, type StepChains, type StepContext, type StepDefinition, type StepName } from '../../src/research/step-contract.js';
import { RunGoneError, StepRunner, type ResearchStepDeps } from '../../src/research/step-runner.js';
import { RESEARCH_CHAINS, STEPS } from '../../src/research/steps.js';
import { DirectTrendsGateway } from '../../src/providers/gateway.js';
import { SyntheticTrendsProvider } from '../../src/providers/synthetic/provider.js';
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

/** A step the new chain inserts after growth: it reads growth's output by name and hands on what it read. */
const probe = {
  name: 'growth_probe',
  run: async (ctx: StepContext) => ({ read_growth: ctx.out('growth') }),
  summarize: () => 'probe',
} as unknown as StepDefinition;

/** Today's chain with growth_probe inserted after growth and score_pain and score_intent swapped. */
function changedChain(): StepDefinition[] {
  const steps = [...STEPS];
  steps.splice(steps.findIndex((s) => s.name === 'growth') + 1, 0, probe);
  const pain = steps.findIndex((s) => s.name === 'score_pain');
  const intent = steps.findIndex((s) => s.name === 'score_intent');
  [steps[pain], steps[intent]] = [steps[intent]!, steps[pain]!];
  return steps;
}

/** Where a chain's jobs would go: the runner enqueues each next step here, and the test runs it. */
function jobsOf() {
  const next: Array<{ runId: string; step: number }> = [];
  const stepQueue = {
    enqueueNext: async (runId: string, step: number) => void next.push({ runId, step }),
    enqueueStep: async (runId: string, step: number) => void next.push({ runId, step }),
    finished: async () => {},
  } as unknown as StepQueue;
  return { stepQueue, next };
}

function runnerOf(chains: StepChains, stepQueue: StepQueue): StepRunner {
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
    chains,
  };
  return new StepRunner(deps);
}

/** Runs the run's steps, as the worker would take their jobs, until it has no next step or reaches `until`. */
async function drive(runner: StepRunner, jobs: ReturnType<typeof jobsOf>, runId: string, from: number, until = Infinity): Promise<number> {
  let step = from;
  for (;;) {
    const outcome = await runner.run({ runId, step, attempt: 1, maxAttempts: 1 });
    expect(outcome.kind, JSON.stringify(outcome)).toBe('done');
    const next = jobs.next.findIndex((j) => j.runId === runId);
    if (next < 0) return step; // the last step: published, nothing enqueued
    step = jobs.next.splice(next, 1)[0]!.step;
    if (step > until) return step;
  }
}

const newRun = (idea: string, chain?: string) =>
  createRun(database.db, { idea, ideaKey: idea, hints: [], provider: 'synthetic', source: 'synthetic', ...(chain ? { chain } : {}) });

const outputsOf = async (run: RunRow) => new Map((await stepsOf(database.db, run.id)).map((s) => [s.name, s]));

describe('a deploy that changes the chain of steps mid-run', () => {
  it('lets a run in flight finish on its own chain, reading its own steps by name, while a new run takes the new chain', async () => {
    const oldChain = RESEARCH_CHAINS.current;
    const deployed = stepChains([oldChain.steps, changedChain()]);
    const newChain = deployed.current;
    expect(newChain.id).not.toBe(oldChain.id);
    expect(newChain.steps).toHaveLength(oldChain.steps.length + 1);

    // Before the deploy: a run starts on today's chain and gets as far as trajectory (past growth, before the scores).
    const jobs = jobsOf();
    const before = runnerOf(RESEARCH_CHAINS, jobs.stepQueue);
    const inFlight = await newRun('meal planning app for shift workers');
    expect(inFlight.chain).toBe(oldChain.id);
    const trajectory = oldChain.steps.findIndex((s) => s.name === 'trajectory') + 1;
    const resumeAt = await drive(before, jobs, inFlight.id, 1, trajectory);
    expect(resumeAt).toBe(trajectory + 1);

    // The deploy: the new code carries both chains. A run submitted now takes the new one.
    const after = runnerOf(deployed, jobs.stepQueue);
    const fresh = await newRun('meal planning app for night nurses', newChain.id);
    await drive(after, jobs, fresh.id, 1);
    // The run in flight carries on under the new code, from where it was.
    await drive(after, jobs, inFlight.id, resumeAt);

    const a = (await findRun(database.db, inFlight.id))!;
    const b = (await findRun(database.db, fresh.id))!;
    expect([a.status, b.status]).toEqual(['succeeded', 'succeeded']);
    expect([a.chain, b.chain]).toEqual([oldChain.id, newChain.id]);

    // The run in flight recorded exactly its own chain's steps, each at its own chain's position, and none of the new one.
    const aSteps = await stepsOf(database.db, a.id);
    expect(aSteps.map((s) => [s.step, s.name, s.status])).toEqual(oldChain.steps.map((s, i) => [i + 1, s.name, 'done']));
    // The new run recorded the new chain: the inserted step, and the two swapped, at their new positions.
    const bSteps = await stepsOf(database.db, b.id);
    expect(bSteps.map((s) => [s.step, s.name, s.status])).toEqual(newChain.steps.map((s, i) => [i + 1, s.name, 'done']));
    const bOut = await outputsOf(b);
    expect(bOut.get('growth_probe')!.output).toEqual({ read_growth: bOut.get('growth')!.output });

    // Each aggregate read its own run's score of each dimension, by name, whatever position it had.
    for (const [run, out] of [
      [a, await outputsOf(a)],
      [b, bOut],
    ] as const) {
      const aggregate = out.get('aggregate')!.output as { dimensions: Record<string, unknown> };
      for (const dimension of ['pain', 'intent', 'demand', 'whitespace'])
        expect(aggregate.dimensions[dimension], `${run.id} ${dimension}`).toEqual(out.get(`score_${dimension}`)!.output);
      expect(run.insight_id).not.toBeNull();
    }

    // One step-list builder shows each run by its own chain: 40 steps for the run in flight, 41 for the new one.
    expect(runSteps(a, aSteps, deployed).map((s) => s.name)).toEqual(oldChain.steps.map((s) => s.name));
    expect(runSteps(b, bSteps, deployed).map((s) => [s.step, s.name, s.status])).toEqual(
      newChain.steps.map((s, i) => [i + 1, s.name, 'done']),
    );
    expect(runProgress(b, deployed)).toEqual({ done: 41, total: 41, current: null });
    expect(runProgress({ ...a, status: 'running', next_step: 37 }, deployed).current).toBe('score_pain');
    // Position 38 of the new chain: one further on for the inserted step, and score_intent before score_pain.
    expect(runProgress({ ...b, status: 'running', next_step: 38 }, deployed).current).toBe('score_intent');
  });

  it('fails a run whose chain the code no longer carries, saying so, rather than run steps not its own', async () => {
    const jobs = jobsOf();
    const runner = runnerOf(RESEARCH_CHAINS, jobs.stepQueue);
    const orphan = await newRun('a run on a chain dropped since', 'c0ffee00c0ffee00');
    await expect(runner.run({ runId: orphan.id, step: 1, attempt: 1, maxAttempts: 3 })).rejects.toThrow(RunGoneError);
    const failed = (await findRun(database.db, orphan.id))!;
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatch(/chain of steps c0ffee00c0ffee00, which this version no longer runs/);
    expect(await stepsOf(database.db, orphan.id)).toEqual([]);
    expect(jobs.next).toEqual([]);
  });

  it('keeps step names to the form the table accepts, once per chain', () => {
    const bad = { ...probe, name: 'Growth Probe' as StepName } as StepDefinition;
    expect(() => stepChains([[...STEPS, bad]])).toThrow(/not snake_case/);
    expect(() => stepChains([[...STEPS, STEPS[0]!]])).toThrow(/appears twice/);
  });
});
