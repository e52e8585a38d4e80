// The research allowance, counted in Postgres: one row per account and UTC
// day. Spending one run is a single statement that adds one only while the
// count is under the limit, so concurrent submissions from any number of web
// processes get exactly `limit` runs between them (the row lock orders them).
import { sql, type Transaction } from 'kysely';
import type { Db } from '../db/connection.js';
import type { Database } from '../db/database.js';
import { utcDay } from '../domain/utc-day.js';

type DbOrTrx = Db | Transaction<Database>;

/** Spends one run of the account's allowance for `now`'s day; false (nothing spent) when it is spent already. */
export async function spendResearchRun(trx: DbOrTrx, accountId: string, limit: number, now: Date): Promise<boolean> {
  if (limit <= 0) return false;
  const row = await trx
    .insertInto('research_allowance_daily')
    .values({ account_id: accountId, day: utcDay(now), runs: 1 })
    .onConflict((oc) =>
      oc
        .columns(['account_id', 'day'])
        .doUpdateSet({ runs: sql<number>`research_allowance_daily.runs + 1` })
        .where('research_allowance_daily.runs', '<', limit),
    )
    .returning('runs')
    .executeTakeFirst();
  return row !== undefined;
}

/** Gives back a run (one cancelled before it started) to the day it was spent on. */
export async function refundResearchRun(trx: DbOrTrx, accountId: string, spentAt: Date): Promise<void> {
  await trx
    .updateTable('research_allowance_daily')
    .set({ runs: sql<number>`greatest(runs - 1, 0)` })
    .where('account_id', '=', accountId)
    .where('day', '=', utcDay(spentAt))
    .execute();
}

/**
 * Gives back the run of the allowance a failed run was charged (the provider could not be
 * reached or refused it), at most once per run: the refund's row is the run's, so a second call
 * (a failure recorded again, concurrently or after a reopen) writes nothing and gives nothing.
 * Needs the caller's transaction, so the row and the count change together. True: given back now.
 */
export async function refundFailedRun(
  trx: Transaction<Database>,
  run: { id: string; accountId: string; chargedAt: Date },
  reason: string,
): Promise<boolean> {
  const row = await trx
    .insertInto('research_allowance_refunds')
    .values({ run_id: run.id, account_id: run.accountId, day: utcDay(run.chargedAt), reason })
    .onConflict((oc) => oc.column('run_id').doNothing())
    .returning('run_id')
    .executeTakeFirst();
  if (!row) return false;
  await refundResearchRun(trx, run.accountId, run.chargedAt);
  return true;
}

/** Runs given back on `now`'s day (failures of the provider): /api/usage and the Overview show them. */
export async function researchRunsRefunded(db: DbOrTrx, accountId: string, now: Date): Promise<number> {
  const row = await db
    .selectFrom('research_allowance_refunds')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('account_id', '=', accountId)
    .where('day', '=', utcDay(now))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Whether the run's allowance was given back. */
export async function runWasRefunded(db: DbOrTrx, runId: string): Promise<boolean> {
  return (await db.selectFrom('research_allowance_refunds').select('run_id').where('run_id', '=', runId).executeTakeFirst()) !== undefined;
}

/** Runs the account has spent on `now`'s day. */
export async function researchRunsSpent(db: DbOrTrx, accountId: string, now: Date): Promise<number> {
  const row = await db
    .selectFrom('research_allowance_daily')
    .select('runs')
    .where('account_id', '=', accountId)
    .where('day', '=', utcDay(now))
    .executeTakeFirst();
  return row?.runs ?? 0;
}

/**
 * Charges a comparison once a day: in one transaction, its row and (if the row
 * is new) one run of the allowance. 'charged' the first time, 'free' for a
 * repeat, 'spent' when the allowance is (nothing written). A concurrent repeat
 * waits on the row's index for the first to commit or roll back.
 */
export async function chargeComparison(
  db: Db,
  accountId: string,
  comparison: string,
  limit: number,
  now: Date,
): Promise<'charged' | 'free' | 'spent'> {
  return db
    .transaction()
    .execute(async (trx) => {
      const row = await trx
        .insertInto('comparison_charges')
        .values({ account_id: accountId, day: utcDay(now), comparison })
        .onConflict((oc) => oc.doNothing())
        .returning('comparison')
        .executeTakeFirst();
      if (!row) return 'free' as const;
      if (!(await spendResearchRun(trx, accountId, limit, now))) throw new AllowanceSpent();
      return 'charged' as const;
    })
    .catch((error: unknown) => {
      if (error instanceof AllowanceSpent) return 'spent' as const;
      throw error;
    });
}

/**
 * Gives a comparison's charge back (the provider refused its series for good):
 * its row goes, and with it the run of the allowance, in one transaction; a
 * charge already given back (a concurrent refusal) gives nothing twice.
 */
export async function refundComparison(db: Db, accountId: string, comparison: string, chargedAt: Date): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const removed = await trx
      .deleteFrom('comparison_charges')
      .where('account_id', '=', accountId)
      .where('day', '=', utcDay(chargedAt))
      .where('comparison', '=', comparison)
      .returning('comparison')
      .executeTakeFirst();
    if (removed) await refundResearchRun(trx, accountId, chargedAt);
  });
}

class AllowanceSpent extends Error {}
