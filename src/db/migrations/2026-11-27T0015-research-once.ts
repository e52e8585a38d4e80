// Research on demand, held once under concurrency (an outside review sent 20
// identical requests at once):
// - an account has at most one unfinished run of an idea for a market: the
//   index refuses a second, and the submission joins the first (seven runs were
//   made, and seven of the allowance spent, before);
// - a comparison is charged to the allowance once a day: the charge is a row,
//   written in the transaction that spends the run, so a concurrent repeat waits
//   for it and is then free, and a refused one charges nothing (a marker in
//   Redis set before the spend let 15 of 20 copies through a spent allowance);
// - an Idempotency-Key of a submission is a row of its own, bound to the run
//   its request made or joined: a key that joined a run under way answers with
//   that run when retried (it was bound to nothing, and a retry once the run
//   had ended made and charged another).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create unique index research_runs_account_live_idea_key on research_runs (account_id, idea_key, geo)
    where account_id is not null and status in ('queued', 'running', 'waiting')`.execute(db);
  await db.schema
    .createTable('comparison_charges')
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('day', 'date', (c) => c.notNull())
    .addColumn('comparison', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('comparison_charges_pk', ['account_id', 'day', 'comparison'])
    .execute();
  await db.schema
    .createTable('research_idempotency_keys')
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('key_hash', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('run_id', 'text', (c) => c.notNull().references('research_runs.id').onDelete('cascade'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('research_idempotency_keys_pk', ['account_id', 'key_hash'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('research_idempotency_keys').execute();
  await db.schema.dropTable('comparison_charges').execute();
  await sql`drop index research_runs_account_live_idea_key`.execute(db);
}
