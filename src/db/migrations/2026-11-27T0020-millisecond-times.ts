// An insight's created_at to the millisecond: what a list cursor carries
// (Date#toISOString). Postgres kept microseconds, so the rows of the boundary
// row's millisecond fell between two pages of sort=newest, and sort=oldest
// served the same page for ever (48 demo rows share one insert's
// 14:41:51.527376). Truncating the stored value keeps the (created_at, id)
// comparison on its index; research runs compare a truncated expression instead
// (account-runs.repository.ts), which their small per-account lists can afford.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table insights alter column created_at set default date_trunc('milliseconds', now())`.execute(db);
  await sql`update insights set created_at = date_trunc('milliseconds', created_at)
    where created_at <> date_trunc('milliseconds', created_at)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table insights alter column created_at set default now()`.execute(db);
}
