// Answers a founder can trust (issue 39):
// - rank_key: the default order's key, complete insights before partial ones,
//   each by overall × confidence (domain/scoring/overall.ts,
//   rankKey): 1 + overall × confidence when at least 5 of the 8 dimensions are
//   scored, else overall × confidence. One number, so the keyset cursor stays a
//   (value, id) pair; indexed alone and with each filter the list has.
// - provider: the provider list the insight was researched with ('google',
//   'google+dataforseo', 'replay', 'synthetic'), so the refresh asks only that
//   kind of source; taken from each insight's latest run, null for the demo.
// - primary_choice: how step 4 chose the phrase (candidates, coverage, popularity).
// - outlook: the 3-12 month outlook of step 31 (domain/forecast/outlook.ts).
import { sql, type Kysely } from 'kysely';

const DIMENSIONS = ['demand', 'momentum', 'durability', 'reach', 'breadth', 'pain', 'intent', 'whitespace'];
/** overall.ts's MIN_COMPLETE_DIMENSIONS as of this migration. */
const MIN_COMPLETE = 5;

export async function up(db: Kysely<any>): Promise<void> {
  const scored = sql.join(
    DIMENSIONS.map((d) => sql`((dimension_scores ->> ${sql.lit(d)}) is not null)::int`),
    sql` + `,
  );
  await sql`alter table insights add column rank_key double precision
    generated always as ((case when (${scored}) >= ${sql.lit(MIN_COMPLETE)} then 1 else 0 end) + overall_score * confidence) stored`.execute(
    db,
  );
  for (const [name, columns] of [
    ['insights_rank_idx', ['rank_key desc', 'id desc']],
    ['insights_category_rank_idx', ['category', 'rank_key desc', 'id desc']],
    ['insights_source_rank_idx', ['source', 'rank_key desc', 'id desc']],
    ['insights_trend_class_rank_idx', ['trend_class', 'rank_key desc', 'id desc']],
  ] as const) {
    await db.schema
      .createIndex(name)
      .on('insights')
      .columns([...columns])
      .execute();
  }
  await db.schema
    .alterTable('insights')
    .addColumn('provider', 'text')
    .addColumn('primary_choice', 'jsonb')
    .addColumn('outlook', 'jsonb')
    .execute();
  await sql`update insights set provider = (
      select r.provider from research_runs r where r.insight_id = insights.id order by r.created_at desc limit 1)`.execute(db);
  await sql`update insights set provider = 'synthetic' where provider is null and source = 'synthetic'`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const name of ['insights_rank_idx', 'insights_category_rank_idx', 'insights_source_rank_idx', 'insights_trend_class_rank_idx'])
    await db.schema.dropIndex(name).execute();
  await db.schema
    .alterTable('insights')
    .dropColumn('rank_key')
    .dropColumn('provider')
    .dropColumn('primary_choice')
    .dropColumn('outlook')
    .execute();
}
