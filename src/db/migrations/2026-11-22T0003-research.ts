import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('research_runs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('idea', 'text', (c) => c.notNull())
    .addColumn('idea_key', 'text', (c) => c.notNull())
    .addColumn('keyword_hints', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    // The first step not yet done (41 when finished). Advanced only in the transaction that records a step.
    .addColumn('next_step', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('waiting_reason', 'text')
    .addColumn('insight_id', 'text', (c) => c.references('insights.id').onDelete('set null'))
    .addColumn('error', 'text')
    .addColumn('failed_step', 'integer')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('finished_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('research_runs_created_idx').on('research_runs').columns(['created_at desc', 'id desc']).execute();
  // The sweeper looks for unfinished runs that have not moved for a while.
  await db.schema
    .createIndex('research_runs_unfinished_idx')
    .on('research_runs')
    .columns(['updated_at'])
    .where(sql.ref('status'), 'in', ['queued', 'running', 'waiting'])
    .execute();
  await db.schema.createIndex('research_runs_insight_idx').on('research_runs').column('insight_id').execute();

  await db.schema
    .createTable('research_steps')
    .addColumn('run_id', 'text', (c) => c.notNull().references('research_runs.id').onDelete('cascade'))
    .addColumn('step', 'integer', (c) => c.notNull().check(sql`step between 1 and 40`))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('input_hash', 'text')
    .addColumn('output', 'jsonb')
    .addColumn('summary', 'text')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('duration_ms', 'integer')
    .addColumn('error', 'text')
    .addColumn('started_at', 'timestamptz')
    .addColumn('finished_at', 'timestamptz')
    // One row per (run, step): a step can be recorded done at most once.
    .addPrimaryKeyConstraint('research_steps_pk', ['run_id', 'step'])
    .execute();

  // Transactional outbox: written with the change it announces, relayed later.
  await db.schema
    .createTable('outbox_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('insight_id', 'text', (c) => c.references('insights.id').onDelete('cascade'))
    .addColumn('payload', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('relayed_at', 'timestamptz')
    .execute();
  await db.schema
    .createIndex('outbox_events_pending_idx')
    .on('outbox_events')
    .column('created_at')
    .where(sql.ref('relayed_at'), 'is', null)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['outbox_events', 'research_steps', 'research_runs']) await db.schema.dropTable(table).ifExists().execute();
}
