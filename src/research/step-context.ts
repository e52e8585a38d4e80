// What a research step sees: its run, the earlier steps' recorded outputs (by
// name, typed), the Trends plan it asks through, and the existing-insight
// lookup. Built the same way by the worker (step-runner.ts) and by the tests'
// in-memory harness (test/support/steps-harness.ts).
import type { TrendsPlanName } from '../config.js';
import type { TrendsRequest, TrendsResponse } from '../domain/trends/answers.js';
import type { StepContext, StepName, StepOutputs } from './step-contract.js';
import { trendsPlan } from './trends-plan.js';
import { comparableScaleFor } from '../providers/registry.js';

export interface StepContextInput {
  run: StepContext['run'];
  /** The recorded output of the step named `name` in this run, as a later step reads it; undefined when not recorded. */
  output(name: StepName): unknown;
  /** Says, in the error a step gets, which step asked for what is not recorded. */
  missing(name: StepName): string;
  fetch(request: TrendsRequest): Promise<TrendsResponse>;
  requestPlan: TrendsPlanName;
  geo: string;
  /** Two-letter language of search-volume requests (default en). */
  language?: string;
  anchor: string;
  findExistingInsight: StepContext['findExistingInsight'];
}

/** The context, and the steps whose outputs it handed out (the step's inputs, for its input hash). */
export function buildStepContext(input: StepContextInput): { ctx: StepContext; read: ReadonlySet<StepName> } {
  const read = new Set<StepName>();
  const outputOf = (name: StepName): unknown => {
    read.add(name);
    const value = input.output(name);
    if (value === undefined) throw new Error(input.missing(name));
    return value;
  };
  // A series provider on one scale across requests (the Trends API) is never asked the anchor.
  const scale = input.run.provider ? comparableScaleFor(input.run.provider) : undefined;
  const ctx: StepContext = {
    run: input.run,
    out: <N extends StepName>(name: N) => outputOf(name) as StepOutputs[N],
    requests: trendsPlan(
      input.requestPlan,
      input.fetch,
      input.geo,
      {
        // The phrases choose_primary chose besides the primary (none before it ran).
        secondary: () => (input.output('choose_primary') as { secondary?: string[] } | undefined)?.secondary ?? [],
        measured: () => (input.output('choose_primary') as { measured?: { keywords: string[] } } | undefined)?.measured?.keywords ?? [],
        anchor: input.anchor,
        ...(scale ? { scale } : {}),
      },
      input.language,
    ),
    findExistingInsight: input.findExistingInsight,
    anchorTerm: input.anchor,
    ...(scale ? { scale } : {}),
    geo: input.geo,
  };
  return { ctx, read };
}
