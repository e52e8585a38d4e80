// What a research run learns, served (issue 13):
// - trend_class: one word for the shape of the interest (domain/scoring/trend-class.ts);
// - related and geography: the top and rising queries and topics, and the top
//   countries with the map they come from, kept from the run;
// - insight_series: the 90-day, 12-month and 5-year series (the 30-day one
//   stays in trend_points); the refresh keeps the 90 days fresh;
// - a sort column per dimension (its score, or -1 when it has none, so
//   unscored insights sort last and the keyset cursor stays a plain tuple),
//   each with its index;
// - a full-text document over title, idea and keywords, with a GIN index;
// - trend_class with each existing sort, indexed.
import { sql, type Kysely } from 'kysely';

const DIMENSIONS = ['demand', 'momentum', 'durability', 'reach', 'breadth', 'pain', 'intent', 'whitespace'];

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('insights')
    .addColumn('trend_class', 'text')
    .addColumn('related', 'jsonb')
    .addColumn('geography', 'jsonb')
    .execute();
  for (const d of DIMENSIONS) {
    await sql`alter table insights add column ${sql.ref(`sort_${d}`)} double precision
      generated always as (coalesce((dimension_scores ->> ${sql.lit(d)})::double precision, -1)) stored`.execute(db);
    await db.schema
      .createIndex(`insights_${d}_idx`)
      .on('insights')
      .columns([`sort_${d} desc`, 'id desc'])
      .execute();
  }
  await sql`alter table insights add column search tsvector
    generated always as (to_tsvector('english', title || ' ' || idea || ' ' || (keywords::text))) stored`.execute(db);
  await sql`create index insights_search_idx on insights using gin (search)`.execute(db);
  await db.schema
    .createIndex('insights_trend_class_score_idx')
    .on('insights')
    .columns(['trend_class', 'overall_score desc', 'id desc'])
    .execute();
  await db.schema
    .createIndex('insights_trend_class_created_idx')
    .on('insights')
    .columns(['trend_class', 'created_at desc', 'id desc'])
    .execute();

  await db.schema
    .createTable('insight_series')
    .addColumn('insight_id', 'text', (c) => c.notNull().references('insights.id').onDelete('cascade'))
    .addColumn('timeframe', 'text', (c) => c.notNull().check(sql`timeframe in ('90d', '12m', '5y')`))
    .addColumn('points', 'jsonb', (c) => c.notNull())
    .addColumn('fetched_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('insight_series_pk', ['insight_id', 'timeframe'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('insight_series').execute();
  await db.schema.dropIndex('insights_trend_class_created_idx').execute();
  await db.schema.dropIndex('insights_trend_class_score_idx').execute();
  await db.schema.dropIndex('insights_search_idx').execute();
  await db.schema.alterTable('insights').dropColumn('search').execute();
  for (const d of DIMENSIONS) {
    await db.schema.dropIndex(`insights_${d}_idx`).execute();
    await db.schema.alterTable('insights').dropColumn(`sort_${d}`).execute();
  }
  await db.schema.alterTable('insights').dropColumn('geography').dropColumn('related').dropColumn('trend_class').execute();
}
