// What a research run would make of an idea, worked out without asking any
// provider and without Redis or Postgres (`insights research IDEA --dry-run`):
// the candidate phrases with their priors (step extract_phrases), the phrases step choose_primary would
// measure, the category from the idea alone (step classify_category before autocomplete), and
// the Trends requests the 40 steps would make. The requests are counted by
// running the steps in memory against the simulated world (synthetic), through
// the configured providers' capabilities and request plan: up to step choose_primary they
// are the run's own; after it they follow which phrase the simulation chose
// (`simulated_primary`), as a real run's follow Google's answers.
import { classifyCategory, type CategoryChoice } from '../domain/research/category.js';
import { choosePrimary, measuredPhrases, phraseCandidates, type PhraseCandidate } from '../domain/research/phrase-choice.js';
import type { ProviderName } from '../providers/registry.js';
import type { TrendsPlanName } from '../config.js';
import { SyntheticTrendsProvider } from '../providers/synthetic/provider.js';
import type { TrendsRequest } from '../domain/trends/answers.js';
import { checkIdea } from './start-run.js';
import { RoutedTrendsGateway } from '../providers/router.js';
import { buildStepContext } from './step-context.js';
import { STEP_NAMES, type StepName } from './step-contract.js';
import { STEPS } from './steps.js';
import { DirectTrendsGateway } from '../providers/gateway.js';

export interface DryRunRequest {
  /** The step that asks it (a later step may be answered by the same request: the gateway deduplicates). */
  step: StepName;
  number: number;
  kind: TrendsRequest['kind'];
  /** The keywords, term or keyword asked. */
  terms: string[];
  timeframe?: string;
  geo?: string;
  /** An explore's parts, a map's resolution. */
  detail?: string;
  /** The same request an earlier step made: one trends job answers both (a run asks it once). */
  same_as_step?: number;
}

export interface DryRun {
  idea: string;
  geo: string;
  providers: readonly ProviderName[];
  /** Google's request plan (TRENDS_REQUEST_PLAN), not an account's plan: the printed JSON key stays `plan`, as scripts read it. */
  plan: TrendsPlanName;
  candidates: Array<Pick<PhraseCandidate, 'phrase' | 'prior' | 'coverage' | 'names_product'> & { given?: 'operator keyword' }>;
  /** The phrases step choose_primary measures, in the order it asks them (none when an operator keyword decides). */
  measure: string[];
  /** The primary phrase where popularity cannot be measured: the best prior. */
  primary_by_prior: string;
  /** The category from the idea and its phrases alone (no autocomplete topics yet). */
  category: Pick<CategoryChoice, 'category' | 'google_id' | 'confidence' | 'matched'>;
  /** The phrase step choose_primary chose with the simulated world's popularity. */
  simulated_primary: string;
  /** Every request a step makes, in order; a repeat names the step that asked it first. */
  requests: DryRunRequest[];
  /** Distinct requests by kind (an explore is one request to Google; its parts are answered together). */
  request_kinds: Record<string, number>;
}

function describe(step: StepName, request: TrendsRequest): DryRunRequest {
  const base = { step, number: STEP_NAMES.indexOf(step) + 1, kind: request.kind };
  switch (request.kind) {
    case 'autocomplete':
      return { ...base, terms: [request.term] };
    case 'relatedQueries':
    case 'relatedTopics':
      return { ...base, terms: [request.keyword], timeframe: request.timeframe, geo: request.geo };
    case 'explore':
      return { ...base, terms: request.keywords, timeframe: request.timeframe, geo: request.geo, detail: request.parts.join('+') };
    case 'interestByRegion':
      return { ...base, terms: request.keywords, timeframe: request.timeframe, geo: request.geo, detail: request.resolution };
    case 'interestOverTime':
      return { ...base, terms: request.keywords, timeframe: request.timeframe, geo: request.geo };
    case 'searchVolume':
      return { ...base, terms: request.keywords, geo: request.geo };
    case 'trendingFeed':
      return { ...base, terms: [], geo: request.geo };
  }
}

/** Throws InvalidIdeaError (start-run.ts) when the idea or a keyword cannot be researched. */
export async function dryRun(input: {
  idea: string;
  hints: string[];
  geo: string;
  anchor: string;
  providers: readonly ProviderName[];
  requestPlan: TrendsPlanName;
  today?: () => Date;
}): Promise<DryRun> {
  const { text } = checkIdea(input.idea, input.hints);
  const candidates = phraseCandidates(text, input.hints);
  const requests: DryRunRequest[] = [];
  const asked = new Map<string, number>();
  let current: StepName = STEP_NAMES[0];
  const world = new SyntheticTrendsProvider(input.today);
  const simulated = new DirectTrendsGateway({
    name: 'synthetic',
    fetch: (request) => {
      const described = describe(current, request);
      const key = JSON.stringify(request);
      const first = asked.get(key);
      if (first === undefined) asked.set(key, described.number);
      requests.push(first === undefined ? described : { ...described, same_as_step: first });
      return world.fetch(request);
    },
  });
  // Every configured provider's capabilities, all answered by the simulation: what none of them has is not asked.
  const routed = new RoutedTrendsGateway(input.providers, () => simulated);
  const outputs = new Map<StepName, unknown>();
  const { ctx } = buildStepContext({
    run: { id: 'run_dry', idea: text, hints: input.hints, source: 'synthetic', ownerAccountId: null },
    output: (name) => outputs.get(name),
    missing: (name) => `${name} has not run`,
    fetch: (request) => routed.fetch(request),
    requestPlan: input.requestPlan,
    geo: input.geo,
    anchor: input.anchor,
    findExistingInsight: async () => undefined,
  });
  for (const step of STEPS) {
    current = step.name;
    // Through JSON, as a later step reads an output from Postgres; aggregate's writes are not made.
    outputs.set(step.name, JSON.parse(JSON.stringify(await step.run(ctx))));
  }
  const category = classifyCategory({ idea: text, phrases: candidates.map((c) => c.phrase), topics: [] });
  const request_kinds: Record<string, number> = {};
  for (const r of requests) if (r.same_as_step === undefined) request_kinds[r.kind] = (request_kinds[r.kind] ?? 0) + 1;
  return {
    idea: text,
    geo: input.geo,
    providers: input.providers,
    plan: input.requestPlan,
    candidates: candidates.map((c) => ({
      phrase: c.phrase,
      prior: c.prior,
      coverage: c.coverage,
      names_product: c.names_product,
      ...(c.hint ? { given: 'operator keyword' as const } : {}),
    })),
    measure: candidates[0]?.hint ? [] : measuredPhrases(candidates),
    primary_by_prior: choosePrimary(candidates, null).primary,
    category: { category: category.category, google_id: category.google_id, confidence: category.confidence, matched: category.matched },
    simulated_primary: (outputs.get('choose_primary') as { primary: string }).primary,
    requests,
    request_kinds,
  };
}
