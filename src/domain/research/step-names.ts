// The research steps' names, and the chains a run may be on. A step is known by
// its name everywhere (its recorded output, what a later step reads); a number is
// only what a person reads ("step 12 of 40"), or the run's place in its own chain.
//
// A run records the chain it started on (research_runs.chain: chainId of the
// ordered names), and finishes on that chain whatever a deploy changes: a deploy
// that inserts, removes or reorders steps adds a chain to STEP_CHAINS and keeps
// the older ones (and their steps' definitions) while runs may be on them.
import { createHash } from 'node:crypto';

/** Today's chain: the 40 steps in order. Each has exactly one definition in steps.ts (checked at load). */
export const STEP_NAMES = [
  'normalize_idea',
  'extract_phrases',
  'autocomplete_phrases',
  'choose_primary',
  'classify_category',
  'detect_duplicate',
  'interest_30d',
  'interest_90d',
  'interest_12m',
  'interest_5y',
  'compare_secondary',
  'compare_anchor',
  'related_queries_top',
  'related_queries_rising',
  'related_topics_top',
  'related_topics_rising',
  'interest_by_country',
  'interest_by_city',
  'clean_series',
  'growth',
  'acceleration',
  'trajectory',
  'seasonality',
  'volatility',
  'breakout',
  'demand_breadth',
  'pain_signals',
  'buyer_intent',
  'competition_signals',
  'geographic_reach',
  'forecast',
  'score_demand',
  'score_momentum',
  'score_durability',
  'score_reach',
  'score_breadth',
  'score_pain',
  'score_intent',
  'score_whitespace',
  'aggregate',
] as const;
/**
 * Steps that only older chains still run: a deploy that removes a step from STEP_NAMES moves its name
 * here and keeps its definition in steps.ts until no unfinished run is on a chain that has it.
 */
export const RETIRED_STEP_NAMES = [] as const;
export type StepName = (typeof STEP_NAMES)[number] | (typeof RETIRED_STEP_NAMES)[number];

/** Steps today's chain has: what new runs take. */
export const STEP_COUNT = STEP_NAMES.length;

/**
 * A chain's id: a hash of its ordered names, so two chains with the same steps in
 * the same order are one chain, and any insertion, removal or reordering is another.
 */
export function chainId(names: readonly string[]): string {
  return createHash('sha256').update(names.join('\n')).digest('hex').slice(0, 16);
}

/**
 * Every chain a run may still be on, oldest first; the last is today's (STEP_NAMES).
 * Drop an older chain only once no unfinished run is on it (`insights runs list`);
 * a run whose chain is gone fails with a message saying so rather than run steps
 * that are not its own.
 */
export const STEP_CHAINS: readonly (readonly StepName[])[] = [STEP_NAMES];

/** The chain of today's steps: what research_runs.chain holds for a run started now. */
export const CURRENT_CHAIN = chainId(STEP_NAMES);

/** A step name as research_steps' check constraint accepts it (migration 2026-11-28T0025). */
export const STEP_NAME_PATTERN = /^[a-z][a-z0-9_]*$/;
