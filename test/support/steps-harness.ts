// Runs the 40 research steps in order, in memory, against any Trends fetch:
// what each step reads and records, without the queues and Postgres around
// them (step 6 finds no existing insight; step 40's writes are not made).
// Outputs go through JSON between steps, as they do through Postgres.
import { STEP_NAMES, STEPS, type StepContext, type StepName } from '../../src/research/steps.js';
import { trendsPlan } from '../../src/research/trends-plan.js';
import type { TrendsRequest, TrendsResponse } from '../../src/trends/types.js';

export interface HarnessRun {
  outputs: Map<StepName, any>;
  summaries: Map<StepName, string>;
  requests: TrendsRequest[];
}

export async function runSteps(
  idea: string,
  fetch: (request: TrendsRequest) => Promise<TrendsResponse>,
  options: { anchor?: string; geo?: string; hints?: string[]; until?: StepName } = {},
): Promise<HarnessRun> {
  const outputs = new Map<StepName, any>();
  const summaries = new Map<StepName, string>();
  const requests: TrendsRequest[] = [];
  const anchor = options.anchor ?? 'weather';
  const counted = async (request: TrendsRequest) => {
    requests.push(request);
    return fetch(request);
  };
  const plan = trendsPlan('batched', counted, options.geo ?? '', { secondary: () => outputs.get('choose_primary')?.secondary ?? [], anchor });
  const ctx: StepContext = {
    run: { id: 'run_harness', idea, hints: options.hints ?? [], source: 'research' },
    out: <T>(name: StepName) => {
      if (!outputs.has(name)) throw new Error(`${name} has not run`);
      return outputs.get(name) as T;
    },
    plan,
    findExistingInsight: async () => undefined,
    anchorTerm: anchor,
    geo: options.geo ?? '',
  };
  for (const [i, step] of STEPS.entries()) {
    const output = JSON.parse(JSON.stringify(await step.run(ctx))) as unknown;
    outputs.set(STEP_NAMES[i]!, output);
    summaries.set(STEP_NAMES[i]!, step.summarize(output));
    if (STEP_NAMES[i] === options.until) break;
  }
  return { outputs, summaries, requests };
}
