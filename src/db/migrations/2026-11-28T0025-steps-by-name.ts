// Issue 50, item 1: research steps by name. A step's output is keyed by the step's
// name (research_steps' primary key becomes run_id + name), and a run records the
// chain of steps it started on (research_runs.chain), so a deploy that inserts,
// removes or reorders steps never has a run in flight read another step's output.
//
// Frozen in time: the chain below is the 40 steps as they were on 2026-11-28, the
// only chain any run recorded before this migration can be on; its id is
// chainId() of these names (src/domain/research/step-names.ts). It stays the
// column's default so that a run inserted by the code of before this deploy, which
// runs this chain, is recorded on it.
//
// Existing rows: every row already carries the name its step ran under (written by
// the code that ran it); a row without one is given the name at its position in
// this chain, so nothing is lost. `step` stays: the position a person reads
// ("step 12 of 40") in the run's own chain, checked only to be positive.
import { sql, type Kysely } from 'kysely';

const CHAIN_2026_11_28 = [
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
];
const CHAIN_2026_11_28_ID = '2052bc220b76dabc';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('research_runs')
    .addColumn('chain', 'text', (c) => c.notNull().defaultTo(CHAIN_2026_11_28_ID))
    .execute();

  const names = sql.raw(`array[${CHAIN_2026_11_28.map((n) => `'${n}'`).join(',')}]::text[]`);
  await sql`update research_steps set name = (${names})[step] where coalesce(name, '') = ''`.execute(db);
  await db.schema.alterTable('research_steps').dropConstraint('research_steps_pk').execute();
  await db.schema.alterTable('research_steps').dropConstraint('research_steps_step_check').execute();
  await db.schema.alterTable('research_steps').addPrimaryKeyConstraint('research_steps_pk', ['run_id', 'name']).execute();
  await db.schema
    .alterTable('research_steps')
    .addCheckConstraint('research_steps_name_check', sql`name ~ '^[a-z][a-z0-9_]*$'`)
    .execute();
  await db.schema
    .alterTable('research_steps')
    .addCheckConstraint('research_steps_step_check', sql`step >= 1`)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  // Only runs on the 2026-11-28 chain fit the schema of before: steps of a later chain are dropped with their runs' positions.
  await sql`delete from research_steps s using research_runs r where r.id = s.run_id and r.chain <> ${CHAIN_2026_11_28_ID}`.execute(db);
  await db.schema.alterTable('research_steps').dropConstraint('research_steps_step_check').execute();
  await db.schema.alterTable('research_steps').dropConstraint('research_steps_name_check').execute();
  await db.schema.alterTable('research_steps').dropConstraint('research_steps_pk').execute();
  await db.schema.alterTable('research_steps').addPrimaryKeyConstraint('research_steps_pk', ['run_id', 'step']).execute();
  await db.schema
    .alterTable('research_steps')
    .addCheckConstraint('research_steps_step_check', sql`step between 1 and 40`)
    .execute();
  await db.schema.alterTable('research_runs').dropColumn('chain').execute();
}
