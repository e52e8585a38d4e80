// What an account sent on request today (replays, pings), against its plan's
// budget (domain/webhooks/sends.ts). Spent in the transaction that reopens the
// deliveries or makes the ping, under the day's row lock: concurrent requests
// of one account, on any web process, never spend more than the budget.
import { sql, type Transaction } from 'kysely';
import type { Database } from '../db/database.js';
import type { Db } from '../db/connection.js';

const today = (now: Date) => now.toISOString().slice(0, 10);

/** Locks the account's row of the day (made if missing) and answers what it spent so far. */
export async function lockSendsToday(
  trx: Transaction<Database>,
  accountId: string,
  now = new Date(),
): Promise<{ replays: number; pings: number }> {
  await trx
    .insertInto('webhook_sends_daily')
    .values({ account_id: accountId, day: today(now) })
    .onConflict((oc) => oc.doNothing())
    .execute();
  return trx
    .selectFrom('webhook_sends_daily')
    .select(['replays', 'pings'])
    .where('account_id', '=', accountId)
    .where('day', '=', today(now))
    .forUpdate()
    .executeTakeFirstOrThrow();
}

/** Adds to the day's count (under the lock lockSendsToday took). */
export async function addSends(
  trx: Transaction<Database>,
  accountId: string,
  kind: 'replays' | 'pings',
  n: number,
  now = new Date(),
): Promise<void> {
  if (n <= 0) return;
  await trx
    .updateTable('webhook_sends_daily')
    .set({ [kind]: sql<number>`${sql.ref(kind)} + ${n}` })
    .where('account_id', '=', accountId)
    .where('day', '=', today(now))
    .execute();
}

/** What the account sent on request today (for /api/usage and the budget's answer). */
export async function sendsToday(db: Db, accountId: string, now = new Date()): Promise<{ replays: number; pings: number }> {
  const row = await db
    .selectFrom('webhook_sends_daily')
    .select(['replays', 'pings'])
    .where('account_id', '=', accountId)
    .where('day', '=', today(now))
    .executeTakeFirst();
  return row ?? { replays: 0, pings: 0 };
}
