// The research runs of an account, as the API shows them: each account sees
// only its own, with a cursor; and the facts a submission needs (a run already
// under way for the same idea, one made with the same Idempotency-Key, the
// queue ahead of a run, how long runs take).
import { sql, type Transaction } from 'kysely';
import type { Db } from '../db/connection.js';
import type { Database, RunStatus } from '../db/database.js';
import type { RunRow } from './run.repository.js';

type DbOrTrx = Db | Transaction<Database>;

const UNFINISHED = ['queued', 'running', 'waiting'] as const;

export async function findAccountRun(db: DbOrTrx, accountId: string, id: string): Promise<RunRow | undefined> {
  return db.selectFrom('research_runs').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
}

export interface AccountRunsPage {
  rows: RunRow[];
  hasMore: boolean;
}

/** Newest first; `after` is the last row of the page before (its created_at and id). */
export async function listAccountRuns(
  db: DbOrTrx,
  accountId: string,
  options: { limit: number; states?: readonly RunStatus[]; after?: { createdAt: Date; id: string } },
): Promise<AccountRunsPage> {
  let query = db.selectFrom('research_runs').selectAll().where('account_id', '=', accountId);
  if (options.states && options.states.length > 0) query = query.where('status', 'in', options.states);
  // Pages by the time to the millisecond (what a cursor carries; Postgres keeps microseconds, and
  // rows in the boundary row's millisecond fell between two pages), then by id.
  const createdMs = sql<Date>`date_trunc('milliseconds', ${sql.ref('created_at')})`;
  const after = options.after;
  if (after) query = query.where(sql<boolean>`(${createdMs}, ${sql.ref('id')}) < (${after.createdAt}, ${after.id})`);
  const rows = await query
    .orderBy(createdMs, 'desc')
    .orderBy('id', 'desc')
    .limit(options.limit + 1)
    .execute();
  const hasMore = rows.length > options.limit;
  return { rows: hasMore ? rows.slice(0, options.limit) : rows, hasMore };
}

/** How long an Idempotency-Key binds a submission to its run. */
export const IDEMPOTENCY_KEEP_MS = 24 * 3_600_000;

/** The run this Idempotency-Key (hashed) of the account was bound to in the last day, with the fingerprint of its request. */
export async function findRunByIdempotencyKey(
  db: DbOrTrx,
  accountId: string,
  keyHash: string,
): Promise<{ run: RunRow; fingerprint: string } | undefined> {
  const bound = await db
    .selectFrom('research_idempotency_keys')
    .select(['run_id', 'fingerprint'])
    .where('account_id', '=', accountId)
    .where('key_hash', '=', keyHash)
    .where('created_at', '>', new Date(Date.now() - IDEMPOTENCY_KEEP_MS))
    .executeTakeFirst();
  if (!bound) return undefined;
  const run = await db.selectFrom('research_runs').selectAll().where('id', '=', bound.run_id).executeTakeFirst();
  return run && { run, fingerprint: bound.fingerprint };
}

/** Binds the key to the run: throws on a key bound already (the unique key: 23505), for the caller to answer with that one. */
export async function bindIdempotencyKey(
  db: DbOrTrx,
  accountId: string,
  key: { keyHash: string; fingerprint: string },
  runId: string,
): Promise<void> {
  await db
    .insertInto('research_idempotency_keys')
    .values({ account_id: accountId, key_hash: key.keyHash, fingerprint: key.fingerprint, run_id: runId })
    .execute();
}

/** Frees a key bound more than a day ago: it may be used again. */
export async function releaseOldIdempotencyKey(db: DbOrTrx, accountId: string, keyHash: string): Promise<void> {
  await db
    .deleteFrom('research_idempotency_keys')
    .where('account_id', '=', accountId)
    .where('key_hash', '=', keyHash)
    .where('created_at', '<=', new Date(Date.now() - IDEMPOTENCY_KEEP_MS))
    .execute();
}

/** The account's run of this idea for this market that is still under way, if any: a second submission joins it. */
export async function findLiveAccountRun(db: DbOrTrx, accountId: string, ideaKey: string, geo: string): Promise<RunRow | undefined> {
  return db
    .selectFrom('research_runs')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('idea_key', '=', ideaKey)
    .where('geo', '=', geo)
    .where('status', 'in', UNFINISHED)
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** Runs of the provider still to finish that were submitted before this one: the queue ahead of it. */
export async function countRunsAhead(db: DbOrTrx, run: Pick<RunRow, 'id' | 'created_at' | 'provider'>): Promise<number> {
  const { n } = await db
    .selectFrom('research_runs')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('provider', '=', run.provider)
    .where('status', 'in', UNFINISHED)
    .where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(run.created_at, run.id)))
    .executeTakeFirstOrThrow();
  return Number(n);
}

/** The median time from submission to success of the provider's last 50 succeeded runs, in ms; undefined when none. */
export async function medianRunMs(db: DbOrTrx, provider: string): Promise<number | undefined> {
  const row = await db
    .selectFrom((eb) =>
      eb
        .selectFrom('research_runs')
        .select(sql<number>`extract(epoch from (finished_at - created_at)) * 1000`.as('ms'))
        .where('provider', '=', provider)
        .where('status', '=', 'succeeded')
        .where('finished_at', 'is not', null)
        .orderBy('finished_at', 'desc')
        .limit(50)
        .as('recent'),
    )
    .select(sql<number | null>`percentile_cont(0.5) within group (order by ms)`.as('median'))
    .executeTakeFirst();
  return row?.median === null || row?.median === undefined ? undefined : Number(row.median);
}

/** The run asking `provider` (named in its provider list) that ended last, since `since`: how the provider answered lately. */
export async function latestEndedRunAsking(
  db: DbOrTrx,
  provider: string,
  since: Date,
): Promise<Pick<RunRow, 'id' | 'status' | 'error' | 'finished_at'> | undefined> {
  return db
    .selectFrom('research_runs')
    .select(['id', 'status', 'error', 'finished_at'])
    .where('status', 'in', ['succeeded', 'failed'])
    .where('finished_at', '>=', since)
    .where(sql<boolean>`position(${provider} in provider) > 0`)
    .orderBy('finished_at', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/**
 * Cancels a run still under way: it is not taken up again (claimRun and
 * every write that advances a run ask for an unfinished one). Answers the run
 * as cancelled, and whether it had started (a step recorded or running).
 */
export async function cancelRun(
  trx: Transaction<Database>,
  accountId: string,
  id: string,
): Promise<{ run: RunRow; started: boolean } | undefined> {
  const before = await trx
    .selectFrom('research_runs')
    .select(['status', 'next_step'])
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .forUpdate()
    .executeTakeFirst();
  if (!before || !(UNFINISHED as readonly string[]).includes(before.status)) return undefined;
  const run = await trx
    .updateTable('research_runs')
    .set({ status: 'cancelled', waiting_reason: null, cancelled_at: new Date(), finished_at: new Date(), updated_at: sql<Date>`now()` })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return { run, started: before.status !== 'queued' || before.next_step > 1 };
}

/** Of these research runs, the ones cancelled: a trends job only they wait for is not worth Google's budget. */
export async function cancelledRunIds(db: DbOrTrx, runIds: readonly string[]): Promise<Set<string>> {
  if (runIds.length === 0) return new Set();
  const rows = await db.selectFrom('research_runs').select('id').where('id', 'in', runIds).where('status', '=', 'cancelled').execute();
  return new Set(rows.map((r) => r.id));
}

/**
 * The quick start's demo runs (`npm start` researches named ideas in the simulated world, started by 'demo',
 * of no account): every account's Research page lists them beside its own, as their insights are public.
 */
export async function listDemoRuns(db: DbOrTrx, limit: number): Promise<RunRow[]> {
  return db
    .selectFrom('research_runs')
    .selectAll()
    .where('started_by', '=', 'demo')
    .where('account_id', 'is', null)
    .orderBy('created_at', 'asc')
    .orderBy('id', 'asc')
    .limit(limit)
    .execute();
}
