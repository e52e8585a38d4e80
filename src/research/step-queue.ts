// Enqueuing research steps. Job ids are deterministic (`run_…-step-N`, N the
// step's position in the run's own chain, research_runs.chain) so a
// double enqueue is harmless; Postgres, not the id, is the guard against
// running a step twice (ids stop deduplicating once a job is removed).
// Runs take turns by account (src/queue/fair-share.ts): a run's turn is its
// first step's priority and its Google requests' (step-runner.ts), so one
// account's backlog delays another account's run by about a run, not by the
// backlog; the turn is held until the run ends.
import type { Queue } from 'bullmq';
import { enqueue, ensureEnqueuedWith } from '../queue/enqueue.js';
import { HeldTurns } from '../queue/fair-share.js';
import { JOB } from '../queue/job-catalogue.js';
import type { RunRow } from './run.repository.js';
import { RESEARCH_CHAINS } from './steps.js';

/**
 * The largest turn of a run: its Google requests' priority is the turn
 * (researchTurnPriority), and the daily refresh and discovery ask Google at a
 * priority above every run's (TRENDS_PRIORITY.background).
 */
export const RUN_TURN_LIMIT = 1_000_000;

/** Whose turn a run takes: its account's, or the operators' (CLI, discovery, demo). */
export function runOwner(run: Pick<RunRow, 'account_id'>): string {
  return run.account_id ?? 'operators';
}

/**
 * The step a quiet run's job is for: its next step, or, past its last (every step recorded but the
 * run never published), its last step, whose job publishes it. A run whose chain this code no
 * longer carries gets its next step's job, which fails the run saying so.
 */
export function resumeStep(run: Pick<RunRow, 'next_step' | 'chain'>): number {
  const chain = RESEARCH_CHAINS.find(run.chain);
  return chain ? Math.min(run.next_step, chain.steps.length) : run.next_step;
}

/** The research queue as a run's steps use it: each step enqueued once, in its run's turn. */
export class StepQueue {
  /** Each unfinished run's turn (src/queue/fair-share.ts), in the research queue's hash tag. */
  readonly turns: HeldTurns;

  constructor(readonly queue: Queue) {
    this.turns = new HeldTurns(queue, RUN_TURN_LIMIT);
  }

  /**
   * A run just recorded: it takes its account's next turn and its first step
   * waits at that priority. A run that holds a turn already (a retry, the
   * sweeper) keeps it.
   */
  async start(run: Pick<RunRow, 'id' | 'account_id'>): Promise<void> {
    await this.enqueueStep(run.id, 1, runOwner(run));
  }

  /** The run has ended (succeeded, failed): its turn no longer holds anyone back. */
  async finished(runId: string): Promise<void> {
    await this.turns.leave(runId);
  }

  /**
   * The normal path: the previous step has just been recorded, so no job for
   * this step can exist yet; the deterministic id still makes a double add harmless.
   * LIFO: a run's next step goes ahead of runs not yet started, so runs in
   * flight finish first (depth-first) instead of every queued run advancing a
   * step at a time and all finishing at the end. Same throughput, results
   * sooner, and fewer runs' outputs held in memory.
   */
  async enqueueNext(runId: string, step: number, turn?: number): Promise<void> {
    await enqueue(this.queue, JOB.researchStep, { runId, step, ...(turn === undefined ? {} : { turn }) });
  }

  /**
   * The careful path (sweeper, retry, duplicate delivery): revives a failed or
   * finished job for the step. A first step takes (or keeps) the run's turn;
   * `owner` is whose (runOwner), the operators' if not said.
   */
  async enqueueStep(runId: string, step: number, owner = 'operators'): Promise<void> {
    // A completed job that did not move the run on (the run was failed then) runs again.
    // A turn lost with Redis's data is taken again: the run is not left out of the turns.
    const [turn] = await this.turns.take([{ owner, member: runId }]);
    await ensureEnqueuedWith(this.queue, JOB.researchStep, step === 1 ? { priority: turn! } : {}, { runId, step, turn: turn! });
  }
}
