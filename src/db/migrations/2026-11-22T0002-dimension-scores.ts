// List pages carry each dimension's score, not its evidence (that is on the
// insight itself): a compact copy lets the list query skip the large JSON.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('insights')
    .addColumn('dimension_scores', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .execute();
  await sql`
    update insights set dimension_scores = (
      select coalesce(jsonb_object_agg(key, value -> 'score'), '{}'::jsonb) from jsonb_each(dimensions)
    )`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('insights').dropColumn('dimension_scores').execute();
}
