// Absolute demand on the insight: monthly searches, their 12-month history,
// cost per click and competition of the primary phrase and its variants in the
// insight's market, when a provider with search volume (DataForSEO) answered
// step 12. Null for insights researched without one.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('insights').addColumn('search_volume', 'jsonb').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('insights').dropColumn('search_volume').execute();
}
