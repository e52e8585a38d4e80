// API keys carry scopes (issue 29): what a key may do. Keys made before this
// only ever read, so every existing key gets exactly that: insights:read. A key
// must be created (or rotated from one) with webhooks:write to manage the
// account's own webhook subscriptions through /api/webhooks.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('api_keys')
    .addColumn('scopes', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{insights:read}'::text[]`))
    .execute();
  // The subscription limit counts an account's subscriptions: an index keeps that count cheap.
  await db.schema
    .createIndex('webhook_subscriptions_account_idx')
    .on('webhook_subscriptions')
    .columns(['account_id', 'created_at'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('webhook_subscriptions_account_idx').execute();
  await db.schema.alterTable('api_keys').dropColumn('scopes').execute();
}
