// Runs the 40 research steps in order, in memory, against any Trends fetch:
// what each step reads and records, without the queues and Postgres around
// them (step 6 finds no existing insight; step 40's writes are not made).
// Outputs go through JSON between steps, as they do through Postgres. The
// steps' context is built as the worker builds it (src/research/step-context.ts).
import { STEPS } from '../../src/research/steps.js';
import type { StepContext, StepDefinition, StepName, StepOutput, StepOutputs } from '../../src/research/step-contract.js';
import { buildStepContext } from '../../src/research/step-context.js';
import type { TrendsPlan } from '../../src/research/trends-plan.js';
import { DirectTrendsGateway } from '../../src/providers/gateway.js';
import type { TrendsRequest, TrendsResponse } from '../../src/domain/trends/answers.js';
import { RoutedTrendsGateway } from '../../src/providers/router.js';
import type { ProviderName, Registry } from '../../src/providers/registry.js';

/** The outputs steps recorded, each with its step's output type. */
export class RecordedOutputs {
  private readonly byName = new Map<StepName, StepOutput>();

  constructor(outputs: Partial<StepOutputs> = {}) {
    for (const [name, output] of Object.entries(outputs) as Array<[StepName, StepOutput]>) this.byName.set(name, output);
  }

  get size(): number {
    return this.byName.size;
  }

  has(name: StepName): boolean {
    return this.byName.has(name);
  }

  /** The output of the step named, or undefined: what the step context reads. */
  byStep(name: StepName): unknown {
    return this.byName.get(name);
  }

  /** Throws, as the job does, when a step reads an output that was not recorded. */
  get<N extends StepName>(name: N): StepOutputs[N] {
    if (!this.byName.has(name)) throw new Error(`${name} has not run`);
    // Set only under its own name (set() below, or the constructor's StepOutputs).
    return this.byName.get(name) as StepOutputs[N];
  }

  set<N extends StepName>(name: N, output: StepOutputs[N]): void {
    this.byName.set(name, output);
  }
}

export interface HarnessRun {
  outputs: RecordedOutputs;
  summaries: Map<StepName, string>;
  requests: TrendsRequest[];
}

/** Outputs as a later step reads them: through JSON, as through Postgres. */
const recorded = <T>(output: T): T => JSON.parse(JSON.stringify(output)) as T;

/** A plan whose every request fails the test unless `answers` gives it. */
export function planOf(answers: Partial<Omit<TrendsPlan, 'name'>>): TrendsPlan {
  const unexpected = (method: string) => () => Promise.reject(new Error(`the step asked plan.${method}, which this test does not answer`));
  return {
    name: 'batched',
    autocomplete: answers.autocomplete ?? unexpected('autocomplete'),
    series: answers.series ?? unexpected('series'),
    comparison: answers.comparison ?? unexpected('comparison'),
    measure: answers.measure ?? unexpected('measure'),
    related: answers.related ?? unexpected('related'),
    modifiers: answers.modifiers ?? unexpected('modifiers'),
    map: answers.map ?? unexpected('map'),
    // As with Google alone: no provider has search volume.
    volume: answers.volume ?? (() => Promise.resolve({ outcome: 'not_available', reason: 'no provider of this test has search volume' })),
  };
}

/** A small hand-built context: the earlier steps' outputs, the run, and the plan's answers. */
export function stepContext(
  outputs: Partial<StepOutputs>,
  options: {
    idea?: string;
    hints?: string[];
    anchor?: string;
    plan?: Partial<Omit<TrendsPlan, 'name'>>;
    findExistingInsight?: StepContext['findExistingInsight'];
  } = {},
): StepContext {
  const recordedOutputs = new RecordedOutputs(recorded(outputs));
  const { ctx } = buildStepContext({
    run: { id: 'run_unit', idea: options.idea ?? 'an idea', hints: options.hints ?? [], source: 'research', ownerAccountId: null },
    output: (name) => recordedOutputs.byStep(name),
    missing: (name) => `${name} has not run`,
    fetch: () => Promise.reject(new Error('a hand-built context asks its plan, not Trends')),
    requestPlan: 'batched',
    geo: '',
    anchor: options.anchor ?? 'weather',
    findExistingInsight: options.findExistingInsight ?? (async () => undefined),
  });
  return { ...ctx, requests: planOf(options.plan ?? {}) };
}

/** Runs one step by name; its output comes back through JSON, as the next step would read it. */
export async function runStep<N extends StepName>(name: N, ctx: StepContext): Promise<StepOutputs[N]> {
  const step = stepNamed(name);
  return recorded(await step.run(ctx)) as StepOutputs[N];
}

/** The step's one-line summary of an output. */
export function summarize<N extends StepName>(name: N, output: StepOutputs[N]): string {
  return stepNamed(name).summarize(output);
}

function stepNamed(name: StepName): StepDefinition {
  const step = STEPS.find((s) => s.name === name);
  if (!step) throw new Error(`no research step is named ${name}`);
  return step;
}

export async function runSteps(
  idea: string,
  fetch: (request: TrendsRequest) => Promise<TrendsResponse>,
  options: { anchor?: string; geo?: string; hints?: string[]; until?: StepName; providers?: ProviderName[]; registry?: Registry } = {},
): Promise<HarnessRun> {
  const outputs = new RecordedOutputs();
  const summaries = new Map<StepName, string>();
  const requests: TrendsRequest[] = [];
  const anchor = options.anchor ?? 'weather';
  // As a run asks a local provider: through the router (what no provider can answer is not asked) and the
  // direct gateway, whose errors the plan reads (not recorded, not available, failed).
  const gateway = new DirectTrendsGateway({
    name: 'synthetic',
    fetch: (request) => {
      requests.push(request);
      return fetch(request);
    },
  });
  const routed = new RoutedTrendsGateway(options.providers ?? ['synthetic'], () => gateway, options.registry);
  const counted = (request: TrendsRequest) => routed.fetch(request);
  const { ctx } = buildStepContext({
    run: { id: 'run_harness', idea, hints: options.hints ?? [], source: 'research', ownerAccountId: null },
    output: (name) => outputs.byStep(name),
    missing: (name) => `${name} has not run`,
    fetch: counted,
    requestPlan: 'batched',
    geo: options.geo ?? '',
    anchor,
    findExistingInsight: async () => undefined,
  });
  for (const step of STEPS) {
    const output = recorded(await step.run(ctx));
    outputs.set(step.name, output);
    summaries.set(step.name, step.summarize(output));
    if (step.name === options.until) break;
  }
  return { outputs, summaries, requests };
}
