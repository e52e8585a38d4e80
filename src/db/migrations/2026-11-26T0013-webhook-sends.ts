// What an account may have sent on request, bounded (issue 35):
// - each delivery counts the replays made of it, so a replay's job id is
//   derived from the delivery (deliver-<id>-replay-<n>), not from the clock,
//   and says since when it is pending (queued_at: created, or reopened by a
//   replay), which the sweeper reads (a replayed delivery made long ago is not
//   "quiet" the moment it is reopened);
// - who disabled a subscription (the operator's switch stays the operator's);
// - when its secret was last rotated (a create's retry after that gets no secret);
// - per account and UTC day, the replays and pings sent, against the plan's budget.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('webhook_deliveries')
    .addColumn('replays', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('queued_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`update webhook_deliveries set queued_at = created_at`.execute(db);
  await db.schema
    .createIndex('webhook_deliveries_pending_queued_idx')
    .on('webhook_deliveries')
    .column('queued_at')
    .where(sql.ref('status'), '=', sql.lit('pending'))
    .execute();
  await db.schema
    .alterTable('webhook_subscriptions')
    .addColumn('disabled_by', 'text')
    .addColumn('secret_rotated_at', 'timestamptz')
    .execute();
  // Subscriptions disabled before: by the operator when the reason says so, else by the system (410, a failure streak) or the account.
  await sql`update webhook_subscriptions set disabled_by = case
      when disabled_reason = 'disabled by an operator' then 'operator'
      when disabled_reason = 'disabled by the account' then 'account'
      else 'system' end
    where state = 'disabled'`.execute(db);
  await db.schema
    .createTable('webhook_sends_daily')
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('day', 'date', (c) => c.notNull())
    .addColumn('replays', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('pings', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('webhook_sends_daily_pk', ['account_id', 'day'])
    .execute();
  // The attempt log is pruned by age (maintenance / prune): it needs the age indexed.
  await db.schema.createIndex('webhook_attempts_at_idx').on('webhook_attempts').column('at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('webhook_attempts_at_idx').execute();
  await db.schema.dropTable('webhook_sends_daily').execute();
  await db.schema.alterTable('webhook_subscriptions').dropColumn('secret_rotated_at').dropColumn('disabled_by').execute();
  await db.schema.dropIndex('webhook_deliveries_pending_queued_idx').execute();
  await db.schema.alterTable('webhook_deliveries').dropColumn('queued_at').dropColumn('replays').execute();
}
