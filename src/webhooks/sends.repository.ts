// What an account sent on request today (replays, pings) and to other accounts'
// receivers by its public research (shared), against its plan's budget
// (domain/webhooks/sends.ts). Spent in the transaction that reopens the
// deliveries, makes the ping or the shared deliveries, under the day's row
// lock: concurrent requests of one account, on any process, never spend more
// than the budget.
import { sql, type Transaction } from 'kysely';
import type { Database } from '../db/database.js';
import type { Db } from '../db/connection.js';
import type { Plan } from '../domain/quota.js';
import { utcDay } from '../domain/utc-day.js';
import { createPendingDeliveries } from './delivery.repository.js';

/** Locks the account's row of the day (made if missing) and answers what it spent so far. */
export async function lockSendsToday(
  trx: Transaction<Database>,
  accountId: string,
  now = new Date(),
): Promise<{ replays: number; pings: number; shared: number }> {
  await trx
    .insertInto('webhook_sends_daily')
    .values({ account_id: accountId, day: utcDay(now) })
    .onConflict((oc) => oc.doNothing())
    .execute();
  return trx
    .selectFrom('webhook_sends_daily')
    .select(['replays', 'pings', 'shared'])
    .where('account_id', '=', accountId)
    .where('day', '=', utcDay(now))
    .forUpdate()
    .executeTakeFirstOrThrow();
}

/** Adds to the day's count (under the lock lockSendsToday took). */
export async function addSends(
  trx: Transaction<Database>,
  accountId: string,
  kind: 'replays' | 'pings' | 'shared',
  n: number,
  now = new Date(),
): Promise<void> {
  if (n <= 0) return;
  await trx
    .updateTable('webhook_sends_daily')
    .set({ [kind]: sql<number>`${sql.ref(kind)} + ${n}` })
    .where('account_id', '=', accountId)
    .where('day', '=', utcDay(now))
    .execute();
}

/** What the account sent on request today (for /api/usage and the budget's answer). */
export async function sendsToday(db: Db, accountId: string, now = new Date()): Promise<{ replays: number; pings: number; shared: number }> {
  const row = await db
    .selectFrom('webhook_sends_daily')
    .select(['replays', 'pings', 'shared'])
    .where('account_id', '=', accountId)
    .where('day', '=', utcDay(now))
    .executeTakeFirst();
  return row ?? { replays: 0, pings: 0, shared: 0 };
}

/**
 * The deliveries of an event of `publisher`'s public research to other
 * accounts' subscriptions, spent from its day's sends: those already made (a
 * second run of the match job) are not counted again; of the new ones, as many
 * as the day has left are made and counted, the rest are not (the insight
 * stays in the catalogue for anyone to read). Answers the ids to deliver and
 * how many were left out. The deliveries granted are made here, with their count.
 */
export async function spendSharedDeliveries(
  db: Db,
  eventId: string,
  publisher: string,
  subscriptionIds: readonly string[],
  perDay: (plan: Plan) => number,
  now = new Date(),
): Promise<{ allowed: string[]; withheld: number }> {
  if (subscriptionIds.length === 0) return { allowed: [], withheld: 0 };
  return db.transaction().execute(async (trx) => {
    const account = await trx.selectFrom('accounts').select('plan').where('id', '=', publisher).executeTakeFirst();
    // The account is gone (its insight with it, by cascade): nothing goes out in its name.
    if (!account) return { allowed: [], withheld: subscriptionIds.length };
    // Under the day's lock: a second match of the same event waits, then finds these deliveries made.
    const spent = await lockSendsToday(trx, publisher, now);
    const made = await trx
      .selectFrom('webhook_deliveries')
      .select('subscription_id')
      .where('event_id', '=', eventId)
      .where('subscription_id', 'in', subscriptionIds)
      .execute();
    const already = new Set(made.map((d) => d.subscription_id));
    const fresh = subscriptionIds.filter((id) => !already.has(id));
    const left = Math.max(0, perDay(account.plan) - spent.replays - spent.pings - spent.shared);
    const granted = fresh.slice(0, left);
    // Made with the count, so a crash between them can neither send uncounted nor count twice.
    if (granted.length > 0) await createPendingDeliveries(trx, eventId, granted);
    await addSends(trx, publisher, 'shared', granted.length, now);
    return { allowed: [...already, ...granted], withheld: fresh.length - granted.length };
  });
}
