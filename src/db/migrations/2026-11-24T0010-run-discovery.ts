// What discovery saw when it started a run: the trending search, Google's
// approximate traffic and the news that linked it (from the trending RSS feed).
// Null for runs an operator started.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('research_runs').addColumn('discovery', 'jsonb').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('research_runs').dropColumn('discovery').execute();
}
