// Each insight's popularity relative to the research anchor (step 12's phrase
// mean over the anchor's), refined by every batched refresh: the refresh groups
// insights of comparable popularity into one Google request (domain/trends/batching.ts).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('insights').addColumn('interest_level', 'double precision').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('insights').dropColumn('interest_level').execute();
}
