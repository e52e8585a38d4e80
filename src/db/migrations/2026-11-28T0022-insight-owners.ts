// Insights have owners (issue 48). A public insight was keyed on its idea, its
// market and "no owner", so any account's public research of the same idea
// rewrote the operator's (or another account's) insight, and its
// insight.updated went to every tenant's receivers. Now a public insight names
// the account that published it (null: the operator's: the demo, discovery,
// the CLI), and the idea key is unique per market, private owner and publisher:
// an account's public research makes or refreshes its own insight only.
// Existing public insights are the operator's (who published them was not kept).
// What an account's public research sends to other tenants' receivers counts
// in its day's sends, in a column of its own.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('insights')
    .addColumn('publisher_account_id', 'text', (c) => c.references('accounts.id').onDelete('cascade'))
    .execute();
  // A private insight is its account's already; only a public one has a publisher.
  await sql`alter table insights add constraint insights_publisher_public_only
    check (owner_account_id is null or publisher_account_id is null)`.execute(db);
  await sql`drop index insights_idea_market_owner_key`.execute(db);
  await sql`create unique index insights_idea_market_owner_key
    on insights (idea_key, geo, (coalesce(owner_account_id, '')), (coalesce(publisher_account_id, '')))`.execute(db);
  await db.schema
    .createIndex('insights_publisher_idx')
    .on('insights')
    .column('publisher_account_id')
    .where(sql.ref('publisher_account_id'), 'is not', null)
    .execute();
  await db.schema
    .alterTable('webhook_sends_daily')
    .addColumn('shared', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhook_sends_daily').dropColumn('shared').execute();
  await db.schema.dropIndex('insights_publisher_idx').execute();
  await sql`drop index insights_idea_market_owner_key`.execute(db);
  // One public insight per idea and market again: the accounts' copies go.
  await sql`delete from insights where publisher_account_id is not null`.execute(db);
  await sql`create unique index insights_idea_market_owner_key on insights (idea_key, geo, (coalesce(owner_account_id, '')))`.execute(db);
  await db.schema.alterTable('insights').dropConstraint('insights_publisher_public_only').execute();
  await db.schema.alterTable('insights').dropColumn('publisher_account_id').execute();
}
