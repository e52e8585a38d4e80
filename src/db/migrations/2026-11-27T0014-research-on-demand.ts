// Research on demand (issue 37): API clients start research runs of their own.
// - a run belongs to an account (null: an operator's, discovery's or the
//   demo's), asks about a market (geo; null: TRENDS_GEO, as runs before did)
//   and a language, says whether its insight is private to the account, can
//   be cancelled;
// - an insight researched privately belongs to its account, and describes a
//   market: the same idea researched for another market, or privately by
//   another account, is another insight (the unique idea key becomes idea key,
//   market and owner);
// - per account and UTC day, the research runs it started, against its plan's
//   research allowance.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('research_runs')
    .addColumn('account_id', 'text', (c) => c.references('accounts.id').onDelete('cascade'))
    .addColumn('geo', 'text')
    .addColumn('language', 'text', (c) => c.notNull().defaultTo('en'))
    .addColumn('visibility', 'text', (c) => c.notNull().defaultTo('public'))
    .addColumn('cancelled_at', 'timestamptz')
    .execute();
  await db.schema
    .createIndex('research_runs_account_created_idx')
    .on('research_runs')
    .columns(['account_id', 'created_at', 'id'])
    .where(sql.ref('account_id'), 'is not', null)
    .execute();

  await db.schema
    .alterTable('insights')
    .addColumn('owner_account_id', 'text', (c) => c.references('accounts.id').onDelete('cascade'))
    .addColumn('geo', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await sql`alter table insights drop constraint insights_idea_key_key`.execute(db);
  await sql`create unique index insights_idea_market_owner_key on insights (idea_key, geo, (coalesce(owner_account_id, '')))`.execute(db);
  await db.schema
    .createIndex('insights_owner_idx')
    .on('insights')
    .column('owner_account_id')
    .where(sql.ref('owner_account_id'), 'is not', null)
    .execute();

  await db.schema
    .createTable('research_allowance_daily')
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('day', 'date', (c) => c.notNull())
    .addColumn('runs', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('research_allowance_daily_pk', ['account_id', 'day'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('research_allowance_daily').execute();
  await db.schema.dropIndex('insights_owner_idx').execute();
  await sql`drop index insights_idea_market_owner_key`.execute(db);
  // Private and per-market copies of an idea cannot share one key again: keep the public, worldwide one.
  await sql`delete from insights where owner_account_id is not null or geo <> ''`.execute(db);
  await sql`alter table insights add constraint insights_idea_key_key unique (idea_key)`.execute(db);
  await db.schema.alterTable('insights').dropColumn('geo').dropColumn('owner_account_id').execute();
  await db.schema.dropIndex('research_runs_account_created_idx').execute();
  await db.schema
    .alterTable('research_runs')
    .dropColumn('cancelled_at')
    .dropColumn('visibility')
    .dropColumn('language')
    .dropColumn('geo')
    .dropColumn('account_id')
    .execute();
}
