// The 40 steps of a research run, phase by phase in chain order. Each is small, reads the outputs of
// earlier steps, and returns a JSON output that is recorded with the step (and
// shown by `insights runs show` and GET /api/research-runs/{id}). Trends data
// comes only through ctx.requests (trends-plan.ts: which requests answer which
// step), over the rate-limited `trends` queue. What each step hands on, and
// what it is run with, is declared in step-contract.ts; the order itself is
// STEP_NAMES (domain/research/step-names.ts).
import { RETIRED_STEP_NAMES, STEP_CHAINS } from '../domain/research/step-names.js';
import { STEP_NAMES, stepChains, type NamedStep, type StepChains, type StepDefinition } from './step-contract.js';
import { UNDERSTAND_STEPS } from './steps/understand.js';
import { MEASURE_STEPS } from './steps/measure.js';
import { EVIDENCE_STEPS } from './steps/evidence.js';
import { SCORE_STEPS } from './steps/score.js';
import { PUBLISH_STEPS } from './steps/publish.js';

const DEFINITIONS: readonly NamedStep[] = [
  // normalize_idea, extract_phrases, autocomplete_phrases, choose_primary, classify_category, detect_duplicate
  ...UNDERSTAND_STEPS,
  // interest_30d, interest_90d, interest_12m, interest_5y, compare_secondary, compare_anchor, related_queries_top,
  // related_queries_rising, related_topics_top, related_topics_rising, interest_by_country, interest_by_city
  ...MEASURE_STEPS,
  // clean_series, growth, acceleration, trajectory, seasonality, volatility, breakout, demand_breadth, pain_signals,
  // buyer_intent, competition_signals, geographic_reach, forecast
  ...EVIDENCE_STEPS,
  // score_demand, score_momentum, score_durability, score_reach, score_breadth, score_pain, score_intent, score_whitespace
  ...SCORE_STEPS,
  // aggregate
  ...PUBLISH_STEPS,
];

const BY_NAME = new Map<string, StepDefinition>(DEFINITIONS.map((d) => [d.name, d]));

/** Today's chain: the steps in STEP_NAMES' order, each with the output its name declares. */
export const STEPS: readonly StepDefinition[] = STEP_NAMES.map((name) => BY_NAME.get(name)!);

/** Every chain a run may be on (STEP_CHAINS), each step by its definition; the step runner looks a run's chain up here. */
export const RESEARCH_CHAINS: StepChains = stepChains(
  STEP_CHAINS.map((names) =>
    names.map((name) => {
      const definition = BY_NAME.get(name);
      // Fail at startup, not mid-run: a chain a run may be on names a step this code cannot run.
      if (!definition) throw new Error(`research step "${name}" is in a chain (STEP_CHAINS) but has no definition in src/research/steps/`);
      return definition;
    }),
  ),
);

// Fail at startup, not mid-run, if the names and the definitions ever disagree: every step a chain may
// name (today's and the retired ones older chains still run) has exactly one definition, and nothing else does.
{
  const known: readonly string[] = [...STEP_NAMES, ...RETIRED_STEP_NAMES];
  for (const name of known) if (!BY_NAME.has(name)) throw new Error(`research step "${name}" has no definition in src/research/steps/`);
  for (const d of DEFINITIONS)
    if (!known.includes(d.name)) throw new Error(`research step "${d.name}" is defined but in neither STEP_NAMES nor RETIRED_STEP_NAMES`);
  if (BY_NAME.size !== DEFINITIONS.length) throw new Error('a research step is defined twice in src/research/steps/');
}
