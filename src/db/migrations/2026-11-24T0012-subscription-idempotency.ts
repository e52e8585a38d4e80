// A subscription created with an Idempotency-Key remembers the key (hashed) and
// the request it came with. Redis keeps the first answer for a retry, but a web
// process that dies between the commit and keeping that answer leaves Redis with
// nothing: the retry a client then sends must find the subscription it made, not
// make a second one. The account's row lock orders creations, so the index need
// not be unique (a key is bound for 24 h only, and may then be used again).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('webhook_subscriptions')
    .addColumn('idempotency_key_hash', 'text')
    .addColumn('idempotency_fingerprint', 'text')
    .execute();
  await db.schema
    .createIndex('webhook_subscriptions_idempotency_idx')
    .on('webhook_subscriptions')
    .columns(['account_id', 'idempotency_key_hash'])
    .where(sql.ref('idempotency_key_hash'), 'is not', null)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('webhook_subscriptions_idempotency_idx').execute();
  await db.schema.alterTable('webhook_subscriptions').dropColumn('idempotency_fingerprint').dropColumn('idempotency_key_hash').execute();
}
