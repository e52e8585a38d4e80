// Two paths every research run takes, made cheap (measured by npm run bench:flow).
//
// 1. Every step advances its run (next_step, updated_at). With updated_at in
//    an index, each of those 40 updates wrote a new tuple into all five of the
//    table's indexes. Indexing the unfinished runs by created_at instead leaves
//    no column a step changes indexed, so the update is HOT (heap only, in
//    place on the page, which fillfactor leaves room for). The sweeper still
//    finds unfinished runs through the partial index; there are few, so it
//    filters on updated_at without one.
// 2. Step 6 looks for an insight on the same primary keyword; without an index
//    that was a scan of every insight, per run.
import { sql, type Kysely } from 'kysely';

const UNFINISHED = ['queued', 'running', 'waiting'];

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('research_runs_unfinished_idx').execute();
  await db.schema
    .createIndex('research_runs_unfinished_idx')
    .on('research_runs')
    .columns(['created_at'])
    .where(sql.ref('status'), 'in', UNFINISHED)
    .execute();
  await sql`alter table research_runs set (fillfactor = 70)`.execute(db);
  await db.schema.createIndex('insights_primary_keyword_idx').on('insights').columns(['primary_keyword']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('insights_primary_keyword_idx').execute();
  await sql`alter table research_runs reset (fillfactor)`.execute(db);
  await db.schema.dropIndex('research_runs_unfinished_idx').execute();
  await db.schema
    .createIndex('research_runs_unfinished_idx')
    .on('research_runs')
    .columns(['updated_at'])
    .where(sql.ref('status'), 'in', UNFINISHED)
    .execute();
}
