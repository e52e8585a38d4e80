// Accounts own the keys, the plan and the daily quota (issue 18).
// - accounts: name, plan, status (active | suspended);
// - api_keys: the account they belong to, an optional expiry (a rotated key's
//   overlap ends there), when they were last used (to the minute) and which key
//   replaced them; the plan moves to the account;
// - usage_daily: each account's requests per UTC day and key, written in batches
//   by the web processes: what /api/usage reports for past days, and what a
//   Redis that lost its counters starts again from;
// - webhook_subscriptions may belong to an account (held while it is suspended).
// Every existing key gets an account of its own, with the key's name and plan, so
// every key that worked before still works (its id: acc_ + the key id's body).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('accounts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('plan', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) =>
      c
        .notNull()
        .defaultTo('active')
        .check(sql`status in ('active', 'suspended')`),
    )
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('status_changed_at', 'timestamptz')
    .execute();

  await db.schema
    .alterTable('api_keys')
    .addColumn('account_id', 'text', (c) => c.references('accounts.id'))
    .addColumn('expires_at', 'timestamptz')
    .addColumn('last_used_at', 'timestamptz')
    .addColumn('replaced_by', 'text')
    .execute();
  await sql`insert into accounts (id, name, plan, created_at)
    select 'acc_' || substr(id, 5), name, plan, created_at from api_keys`.execute(db);
  await sql`update api_keys set account_id = 'acc_' || substr(id, 5)`.execute(db);
  await db.schema
    .alterTable('api_keys')
    .alterColumn('account_id', (c) => c.setNotNull())
    .execute();
  await db.schema.alterTable('api_keys').dropColumn('plan').execute();
  await db.schema.createIndex('api_keys_account_idx').on('api_keys').column('account_id').execute();

  await db.schema
    .createTable('usage_daily')
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('day', 'date', (c) => c.notNull())
    .addColumn('api_key_id', 'text', (c) => c.notNull())
    .addColumn('requests', 'bigint', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('usage_daily_pk', ['account_id', 'day', 'api_key_id'])
    .execute();

  await db.schema
    .alterTable('webhook_subscriptions')
    .addColumn('account_id', 'text', (c) => c.references('accounts.id'))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhook_subscriptions').dropColumn('account_id').execute();
  await db.schema.dropTable('usage_daily').execute();
  await db.schema.alterTable('api_keys').addColumn('plan', 'text').execute();
  await sql`update api_keys k set plan = a.plan from accounts a where a.id = k.account_id`.execute(db);
  await db.schema
    .alterTable('api_keys')
    .alterColumn('plan', (c) => c.setNotNull())
    .execute();
  await db.schema.dropIndex('api_keys_account_idx').execute();
  await db.schema
    .alterTable('api_keys')
    .dropColumn('account_id')
    .dropColumn('expires_at')
    .dropColumn('last_used_at')
    .dropColumn('replaced_by')
    .execute();
  await db.schema.dropTable('accounts').execute();
}
