// The work of bench:flow's steps without our orchestration around them, for a
// peer (bench/peers/dbos) to run inside its own steps: the 40 research steps of
// today's chain against the synthetic provider, each step's context built as the
// worker builds it (src/research/step-context.ts), earlier outputs read back
// through JSON as from Postgres. What the peer does not do that ours does: step 6
// finds no existing insight without asking Postgres, and step 40's insight and
// outbox writes are not made (the peer records only the step's output).
import { anchorTermFor } from '../../src/providers/registry.js';
import { RoutedTrendsGateway } from '../../src/providers/router.js';
import { SyntheticTrendsProvider } from '../../src/providers/synthetic/provider.js';
import { buildStepContext } from '../../src/research/step-context.js';
import type { StepName } from '../../src/research/step-contract.js';
import { STEPS } from '../../src/research/steps.js';
import { DirectTrendsGateway } from '../../src/providers/gateway.js';

const provider = new SyntheticTrendsProvider();
const gateway = new RoutedTrendsGateway(['synthetic'], () => new DirectTrendsGateway(provider));
const anchor = anchorTermFor('synthetic', undefined);

export const STEP_COUNT = STEPS.length;

/**
 * Runs step `position` (from 1) of a run of `idea`, given the outputs recorded so far by name
 * (as JSON-parsed values); answers its output as JSON, what a peer records.
 */
export async function runResearchStep(runId: string, idea: string, position: number, outputs: Record<string, unknown>): Promise<string> {
  const definition = STEPS[position - 1]!;
  const { ctx } = buildStepContext({
    run: { id: runId, idea, hints: [], source: 'synthetic', ownerAccountId: null, provider: 'synthetic' },
    output: (name: StepName) => outputs[name],
    missing: (name) => `step ${definition.name} needs the output of step ${name}, which is not recorded`,
    fetch: (request) => gateway.fetch(request),
    requestPlan: 'batched',
    geo: '',
    language: 'en',
    anchor,
    findExistingInsight: async () => undefined,
  });
  return JSON.stringify((await definition.run(ctx)) ?? null);
}

/** The name each step's output is read by. */
export const stepName = (position: number): string => STEPS[position - 1]!.name;
