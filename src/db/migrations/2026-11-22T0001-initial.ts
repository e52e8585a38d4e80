// Frozen in time: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('insights')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('idea_key', 'text', (c) => c.notNull().unique())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('idea', 'text', (c) => c.notNull())
    .addColumn('primary_keyword', 'text', (c) => c.notNull())
    .addColumn('keywords', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('overall_score', 'double precision', (c) => c.notNull().check(sql`overall_score >= 0 and overall_score <= 1`))
    .addColumn('confidence', 'double precision', (c) => c.notNull().check(sql`confidence >= 0 and confidence <= 1`))
    .addColumn('dimensions', 'jsonb', (c) => c.notNull())
    .addColumn('summary', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  // One index per (filter, sort) pair of GET /api/insights, so every page is an
  // index range scan that stops after `limit` rows. The id is the keyset tiebreak.
  const listIndexes: Array<[string, string[]]> = [
    ['insights_score_idx', ['overall_score desc', 'id desc']],
    ['insights_created_idx', ['created_at desc', 'id desc']],
    ['insights_category_score_idx', ['category', 'overall_score desc', 'id desc']],
    ['insights_category_created_idx', ['category', 'created_at desc', 'id desc']],
    ['insights_source_score_idx', ['source', 'overall_score desc', 'id desc']],
    ['insights_source_created_idx', ['source', 'created_at desc', 'id desc']],
  ];
  for (const [name, columns] of listIndexes) {
    await db.schema.createIndex(name).on('insights').columns(columns).execute();
  }

  await db.schema
    .createTable('trend_points')
    .addColumn('insight_id', 'text', (c) => c.notNull().references('insights.id').onDelete('cascade'))
    .addColumn('date', 'date', (c) => c.notNull())
    .addColumn('value', 'smallint', (c) => c.notNull().check(sql`value >= 0 and value <= 100`))
    .addColumn('is_partial', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('fetched_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('trend_points_pk', ['insight_id', 'date'])
    .execute();

  await db.schema
    .createTable('forecasts')
    .addColumn('insight_id', 'text', (c) => c.primaryKey().references('insights.id').onDelete('cascade'))
    .addColumn('model', 'text')
    .addColumn('generated_at', 'timestamptz', (c) => c.notNull())
    .addColumn('horizon', 'integer', (c) => c.notNull())
    .addColumn('withheld', 'boolean', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('points', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('backtest', 'jsonb')
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('plan', 'text', (c) => c.notNull())
    .addColumn('display_prefix', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('revoked_at', 'timestamptz')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['api_keys', 'forecasts', 'trend_points', 'insights']) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
