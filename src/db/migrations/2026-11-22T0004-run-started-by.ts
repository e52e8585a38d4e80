// Who started a run (an operator, discovery) is not where its data came from
// (source): discovery runs on the synthetic provider have source "synthetic".
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('research_runs')
    .addColumn('started_by', 'text', (c) => c.notNull().defaultTo('cli'))
    .execute();
  await db.schema.createIndex('research_runs_started_by_idx').on('research_runs').columns(['started_by', 'created_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('research_runs').dropColumn('started_by').execute();
}
