// Every answer says what data it rests on (issue 47):
// - data_from, data_as_of: the first and last day of the data an insight rests
//   on (every series it keeps: trend_points and insight_series), kept by the
//   trend-point repository on every write; backfilled here.
// - source 'demo' is now 'recorded-series' (the quick start's recorded real
//   series), in their real market (US: the GTAB series are US series, they
//   were stored as worldwide) and asked by the topic's name, not its id.
// - rank_key: a provenance tier above the 0018 key, so the default order
//   never puts a simulated or replayed insight above research on live data
//   (domain/provenance.ts provenanceTier, TIER_STEP 2): 6 for live research,
//   4 for research on recorded answers (replay), 2 for the simulated world
//   (synthetic), 0 for bare recorded series; plus 1 when complete, plus
//   overall × confidence. Its cursors are tagged anew (domain/cursor.ts).
import { sql, type Kysely } from 'kysely';

const DIMENSIONS = ['demand', 'momentum', 'durability', 'reach', 'breadth', 'pain', 'intent', 'whitespace'];
/** overall.ts's MIN_COMPLETE_DIMENSIONS as of this migration. */
const MIN_COMPLETE = 5;
const RANK_INDEXES = [
  ['insights_rank_idx', ['rank_key desc', 'id desc']],
  ['insights_category_rank_idx', ['category', 'rank_key desc', 'id desc']],
  ['insights_source_rank_idx', ['source', 'rank_key desc', 'id desc']],
  ['insights_trend_class_rank_idx', ['trend_class', 'rank_key desc', 'id desc']],
] as const;

async function rankKey(db: Kysely<any>, withTier: boolean): Promise<void> {
  const scored = sql.join(
    DIMENSIONS.map((d) => sql`((dimension_scores ->> ${sql.lit(d)}) is not null)::int`),
    sql` + `,
  );
  const tier = withTier
    ? sql`(case when source = 'recorded-series' then 0
        when source = 'synthetic' or '+' || coalesce(provider, '') || '+' like '%+synthetic+%' then 2
        when '+' || coalesce(provider, '') || '+' like '%+replay+%' then 4
        else 6 end) + `
    : sql``;
  await sql`alter table insights drop column if exists rank_key`.execute(db);
  await sql`alter table insights add column rank_key double precision
    generated always as (${tier}(case when (${scored}) >= ${sql.lit(MIN_COMPLETE)} then 1 else 0 end) + overall_score * confidence) stored`.execute(
    db,
  );
  for (const [name, columns] of RANK_INDEXES) {
    await db.schema
      .createIndex(name)
      .on('insights')
      .columns([...columns])
      .execute();
  }
}

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('insights').addColumn('data_from', 'date').addColumn('data_as_of', 'date').execute();
  await sql`update insights i set
      data_from = least(
        (select min(t.date) from trend_points t where t.insight_id = i.id),
        (select min((p ->> 'date')::date) from insight_series s, jsonb_array_elements(s.points) p where s.insight_id = i.id)),
      data_as_of = greatest(
        (select max(t.date) from trend_points t where t.insight_id = i.id),
        (select max((p ->> 'date')::date) from insight_series s, jsonb_array_elements(s.points) p where s.insight_id = i.id))`.execute(db);
  // The seeded series: keywords were [topic id, name]; the name is what people (and Google) search.
  await sql`update insights set source = 'recorded-series', geo = 'US',
      primary_keyword = coalesce(keywords ->> 1, primary_keyword),
      keywords = case when jsonb_array_length(keywords) > 1 then jsonb_build_array(keywords -> 1) else keywords end
    where source = 'demo'`.execute(db);
  await rankKey(db, true);
}

export async function down(db: Kysely<any>): Promise<void> {
  await rankKey(db, false);
  await sql`update insights set source = 'demo' where source = 'recorded-series'`.execute(db);
  await db.schema.alterTable('insights').dropColumn('data_from').dropColumn('data_as_of').execute();
}
