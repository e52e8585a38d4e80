// Accounts: who owns keys, which plan they are on, whether they may use the API.
import type { Selectable } from 'kysely';
import { sql } from 'kysely';
import type { Db } from '../db/connection.js';
import type { AccountsTable, AccountStatus } from '../db/database.js';
import { newId } from '../domain/ids.js';
import type { Plan } from '../domain/quota.js';

export type AccountRow = Selectable<AccountsTable>;

export async function createAccount(db: Db, name: string, plan: Plan): Promise<AccountRow> {
  return db
    .insertInto('accounts')
    .values({ id: newId('account'), name, plan })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function findAccount(db: Db, id: string): Promise<AccountRow | undefined> {
  return db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listAccounts(db: Db): Promise<Array<AccountRow & { keys: number }>> {
  return db
    .selectFrom('accounts as a')
    .selectAll('a')
    .select((eb) =>
      eb
        .selectFrom('api_keys as k')
        .whereRef('k.account_id', '=', 'a.id')
        .where('k.revoked_at', 'is', null)
        .select((e) => e.fn.countAll<number>().as('n'))
        .as('keys'),
    )
    .orderBy('a.created_at')
    .execute() as Promise<Array<AccountRow & { keys: number }>>;
}

export async function setAccountPlan(db: Db, id: string, plan: Plan): Promise<AccountRow | undefined> {
  return db.updateTable('accounts').set({ plan }).where('id', '=', id).returningAll().executeTakeFirst();
}

/** Suspends or resumes; returns the row (unchanged when it already had that status), or undefined for no such account. */
export async function setAccountStatus(db: Db, id: string, status: AccountStatus): Promise<AccountRow | undefined> {
  const updated = await db
    .updateTable('accounts')
    .set({ status, status_changed_at: sql<Date>`now()` })
    .where('id', '=', id)
    .where('status', '<>', status)
    .returningAll()
    .executeTakeFirst();
  return updated ?? findAccount(db, id);
}

/** The id and name of each key of an account (an account owns its keys; usage reports name them). */
export async function keyNamesOfAccount(db: Db, accountId: string): Promise<Array<{ id: string; name: string }>> {
  return db.selectFrom('api_keys').select(['id', 'name']).where('account_id', '=', accountId).execute();
}
