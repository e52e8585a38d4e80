// The research steps' names, in order: what a job payload, the run's record and
// the API's progress all count by.
/** The 40 steps in order. Each has exactly one definition in steps.ts's STEPS (checked at load). */
export const STEP_NAMES = [
  'normalize_idea', // 1
  'extract_phrases', // 2
  'autocomplete_phrases', // 3
  'choose_primary', // 4
  'classify_category', // 5
  'detect_duplicate', // 6
  'interest_30d', // 7
  'interest_90d', // 8
  'interest_12m', // 9
  'interest_5y', // 10
  'compare_secondary', // 11
  'compare_anchor', // 12
  'related_queries_top', // 13
  'related_queries_rising', // 14
  'related_topics_top', // 15
  'related_topics_rising', // 16
  'interest_by_country', // 17
  'interest_by_city', // 18
  'clean_series', // 19
  'growth', // 20
  'acceleration', // 21
  'trajectory', // 22
  'seasonality', // 23
  'volatility', // 24
  'breakout', // 25
  'demand_breadth', // 26
  'pain_signals', // 27
  'buyer_intent', // 28
  'competition_signals', // 29
  'geographic_reach', // 30
  'forecast', // 31
  'score_demand', // 32
  'score_momentum', // 33
  'score_durability', // 34
  'score_reach', // 35
  'score_breadth', // 36
  'score_pain', // 37
  'score_intent', // 38
  'score_whitespace', // 39
  'aggregate', // 40
] as const;
export type StepName = (typeof STEP_NAMES)[number];
export const STEP_COUNT = STEP_NAMES.length;
