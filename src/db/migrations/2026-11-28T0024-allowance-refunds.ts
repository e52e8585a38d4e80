// Issue 49: a run that fails because the provider could not be reached, or refused the requests, gives its
// run of the research allowance back. research_allowance_refunds records each refund: one row per run at most
// (its primary key), written in the transaction that decrements the day's count, so a failure recorded twice
// (a retried job, a run reopened and failed again) gives back once. `day` is the UTC day the run was charged to
// (the day of its submission), which is the day whose count the refund lowers.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('research_allowance_refunds')
    .addColumn('run_id', 'text', (c) => c.primaryKey().references('research_runs.id').onDelete('cascade'))
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('day', 'date', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('refunded_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex('research_allowance_refunds_account_day')
    .on('research_allowance_refunds')
    .columns(['account_id', 'day'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('research_allowance_refunds').execute();
}
