// research / research-step: one of the 40 steps of a run. The step runner
// (src/research/step-runner.ts) takes the run up, runs the step and records it;
// this handler turns its outcome into BullMQ's terms: waiting on Google sleeps
// without spending an attempt, a final failure stops retrying.
import { UnrecoverableError, type Job } from 'bullmq';
import type { ResearchStepPayload } from '../src/queue/job-catalogue.js';
import { sleepWithoutAttempt } from '../src/queue/wait.js';
import { RunGoneError, StepRunner, type ResearchStepDeps } from '../src/research/step-runner.js';

export function researchStepProcessor(deps: ResearchStepDeps) {
  const runner = new StepRunner(deps, (error) => error instanceof UnrecoverableError);
  // The payload was checked against ResearchStepPayload before this runs (runtime/job-dispatch.ts).
  return async (job: Job<ResearchStepPayload>, token?: string) => {
    const { runId, step, turn } = job.data;
    let outcome;
    try {
      outcome = await runner.run({
        runId,
        step,
        attempt: job.attemptsMade + 1,
        maxAttempts: job.opts.attempts ?? 1,
        ...(turn === undefined ? {} : { turn }),
      });
    } catch (error) {
      if (error instanceof RunGoneError) throw new UnrecoverableError(error.message);
      throw error;
    }
    if (outcome.kind === 'done') return outcome.result;
    if (outcome.kind === 'wait') throw await sleepWithoutAttempt(job, token, outcome.ms);
    if (outcome.final) throw new UnrecoverableError(outcome.error instanceof Error ? outcome.error.message : String(outcome.error));
    throw outcome.error;
  };
}
