// Starting a research run: the idea checked, the run recorded on today's
// chain of steps, its first step queued (step-queue.ts).
import type { Db } from '../db/connection.js';
import type { Source } from '../domain/catalog.js';
import type { DiscoveryEvidence } from '../domain/trends/google/discovery.js';
import { normalizeIdea, validateIdea } from '../domain/research/idea.js';
import { phraseCandidates } from '../domain/research/phrase-choice.js';
import { createRun, type RunRow } from './run.repository.js';
import type { StepQueue } from './step-queue.js';
import { Refusal } from '../domain/refusal.js';

/**
 * An idea (or a comparison's ideas) that cannot be researched: a refusal of the request's parameter, `idea` for a
 * submission, `ideas` for a comparison, as every door answers it. `problem` is what is wrong, in a clause.
 */
export class InvalidIdeaError extends Refusal {
  constructor(
    readonly problem: string,
    field: 'idea' | 'ideas' = 'idea',
  ) {
    const reason = field === 'idea' ? `cannot be researched: ${problem}` : problem;
    super('invalidParameter', `${field} ${reason}`, { param: { name: field, reason } });
  }
}

export interface StartRunInput {
  idea: string;
  hints: string[];
  provider: string;
  source: Source;
  startedBy?: 'cli' | 'discovery' | 'demo';
  /** What discovery saw (runs it starts). */
  discovery?: DiscoveryEvidence;
  /** The market ('' worldwide); unset: TRENDS_GEO. */
  geo?: string;
  language?: string;
}

/** Throws InvalidIdeaError when the idea or a search phrase cannot be researched; answers the idea normalised. */
export function checkIdea(idea: string, hints: readonly string[], trending?: string): { text: string; key: string } {
  const problem = validateIdea(idea);
  if (problem) throw new InvalidIdeaError(problem);
  for (const hint of hints) {
    const hintProblem = validateIdea(hint);
    if (hintProblem) throw new InvalidIdeaError(`keyword "${hint.slice(0, 40)}": ${hintProblem}`);
    if (hint.length > 100) throw new InvalidIdeaError(`keyword "${hint.slice(0, 20)}…" is longer than 100 characters`);
  }
  const { text, key } = normalizeIdea(idea);
  // The run's choose_primary step needs a search phrase: an idea of stopwords alone ("the and of") would fail there, its allowance spent.
  if (phraseCandidates(idea, hints, trending ? { trending } : {}).length === 0) {
    throw new InvalidIdeaError('no search phrase can be made of it: name what it is in a word or two that people search for');
  }
  return { text, key };
}

/** Validates, records the run on today's chain, then enqueues its first step (after the insert has committed). */
export async function startRun(db: Db, stepQueue: StepQueue, input: StartRunInput): Promise<RunRow> {
  const normalized = checkIdea(input.idea, input.hints, input.discovery?.query);
  const run = await createRun(db, {
    idea: normalized.text,
    ideaKey: normalized.key,
    hints: input.hints,
    provider: input.provider,
    source: input.source,
    startedBy: input.startedBy ?? 'cli',
    ...(input.discovery ? { discovery: input.discovery } : {}),
    ...(input.geo !== undefined ? { geo: input.geo } : {}),
    ...(input.language ? { language: input.language } : {}),
  });
  await stepQueue.start(run);
  return run;
}
