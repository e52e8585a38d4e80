// A run's steps as every reader shows them (GET /api/research-runs/{id}, the
// insight export's trace, the account's run page, `insights runs show`): built
// here once, from the run's own chain (research_runs.chain), so a run started
// before a deploy that changed the steps is shown with the steps it ran, in its
// order. A position is what a person reads ("step 12 of 40"); a step is found
// by its name.
import { STEP_NAMES } from '../domain/research/step-names.js';
import { shownStepStatus, type RunRow, type StepRow } from './run.repository.js';
import type { StepChains } from './step-contract.js';
import { RESEARCH_CHAINS } from './steps.js';

/** One step of a run, as shown. */
export interface RunStep {
  /** Its position in the run's own chain, from 1: what a person reads. */
  step: number;
  name: string;
  /** What it recorded, else what the run's state makes it (shownStepStatus). */
  status: string;
  /** Its row, once it has run (done, or an attempt failed). */
  recorded: StepRow | undefined;
}

/** How far a run is: steps done of its chain's, and the step it is on while it is unfinished. */
export interface RunProgress {
  done: number;
  total: number;
  current: string | null;
}

type RunState = Pick<RunRow, 'chain' | 'next_step' | 'status'>;

/**
 * The names of the run's chain in order. A chain this code no longer carries (a run left on it
 * past the deploy that dropped it) is read from the rows the run recorded, in their order.
 */
function namesOf(run: Pick<RunRow, 'chain'>, recorded: readonly StepRow[] | undefined, chains: StepChains): readonly string[] {
  const chain = chains.find(run.chain);
  if (chain) return chain.steps.map((s) => s.name);
  return recorded ? [...recorded].sort((a, b) => a.step - b.step).map((s) => s.name) : [];
}

const unfinished = (run: Pick<RunRow, 'status'>) => run.status === 'queued' || run.status === 'running' || run.status === 'waiting';

/** Steps done of the run's chain, and the step it is on (null once it has ended). */
export function runProgress(run: RunState, chains: StepChains = RESEARCH_CHAINS): RunProgress {
  const names = namesOf(run, undefined, chains);
  const total = names.length || STEP_NAMES.length;
  const done = Math.min(total, run.next_step - 1);
  return { done, total, current: unfinished(run) ? (names[run.next_step - 1] ?? null) : null };
}

/** The step a failed run failed at, by its position and its name in the run's own chain; null if none was recorded. */
export function failedStepOf(
  run: Pick<RunRow, 'chain' | 'failed_step'>,
  chains: StepChains = RESEARCH_CHAINS,
): { number: number; name: string } | null {
  if (run.failed_step === null) return null;
  return { number: run.failed_step, name: namesOf(run, undefined, chains)[run.failed_step - 1] ?? 'unknown' };
}

/** Every step of the run's chain, in its order, each with its recorded row (matched by name) and the status shown. */
export function runSteps(run: RunState, recorded: readonly StepRow[], chains: StepChains = RESEARCH_CHAINS): RunStep[] {
  const byName = new Map(recorded.map((s) => [s.name, s]));
  return namesOf(run, recorded, chains).map((name, i) => {
    const row = byName.get(name);
    return { step: i + 1, name, status: shownStepStatus(run, i + 1, row?.status), recorded: row };
  });
}
