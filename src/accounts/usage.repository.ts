// Usage kept in Postgres: each account's requests per UTC day and key.
import { sql } from 'kysely';
import type { Db } from '../db/connection.js';

export interface UsageDelta {
  accountId: string;
  day: string;
  apiKeyId: string;
  requests: number;
}

/** Adds counted requests (one statement for the batch). */
export async function addUsage(db: Db, deltas: readonly UsageDelta[]): Promise<void> {
  if (deltas.length === 0) return;
  await db
    .insertInto('usage_daily')
    .values(deltas.map((d) => ({ account_id: d.accountId, day: d.day, api_key_id: d.apiKeyId, requests: d.requests })))
    .onConflict((oc) =>
      oc.columns(['account_id', 'day', 'api_key_id']).doUpdateSet({ requests: sql<number>`usage_daily.requests + excluded.requests` }),
    )
    .execute();
}

/** Moves keys' last_used_at forward (never back), in one statement. */
export async function touchKeys(db: Db, lastUsed: ReadonlyMap<string, Date>): Promise<void> {
  if (lastUsed.size === 0) return;
  const rows = [...lastUsed].map(([id, at]) => sql`(${id}::text, ${at.toISOString()}::timestamptz)`);
  await sql`update api_keys k set last_used_at = greatest(k.last_used_at, v.at)
    from (values ${sql.join(rows)}) as v(id, at) where k.id = v.id`.execute(db);
}

/** What Postgres holds for an account's day, per key, and the account's key ids (for the seed). */
export async function storedUsageOfDay(db: Db, accountId: string, day: string): Promise<{ byKey: Map<string, number>; keyIds: string[] }> {
  const [rows, keys] = await Promise.all([
    db.selectFrom('usage_daily').select(['api_key_id', 'requests']).where('account_id', '=', accountId).where('day', '=', day).execute(),
    db.selectFrom('api_keys').select('id').where('account_id', '=', accountId).execute(),
  ]);
  return { byKey: new Map(rows.map((r) => [r.api_key_id, Number(r.requests)])), keyIds: keys.map((k) => k.id) };
}

export interface DayUsage {
  day: string;
  requests: number;
  keys: Array<{ key_id: string; name: string | null; requests: number }>;
}

/** An account's stored usage for the days from `fromDay` on, newest first, with each key's share. */
export async function usageByDay(db: Db, accountId: string, fromDay: string): Promise<DayUsage[]> {
  const rows = await db
    .selectFrom('usage_daily as u')
    .leftJoin('api_keys as k', 'k.id', 'u.api_key_id')
    .select(['u.day', 'u.api_key_id', 'u.requests', 'k.name'])
    .where('u.account_id', '=', accountId)
    .where('u.day', '>=', fromDay)
    .orderBy('u.day', 'desc')
    .orderBy('u.requests', 'desc')
    .execute();
  const days = new Map<string, DayUsage>();
  for (const r of rows) {
    let d = days.get(r.day);
    if (!d) days.set(r.day, (d = { day: r.day, requests: 0, keys: [] }));
    d.requests += Number(r.requests);
    d.keys.push({ key_id: r.api_key_id, name: r.name, requests: Number(r.requests) });
  }
  return [...days.values()];
}
