// Webhook deliveries: created by the match job, picked up again by the sweeper,
// and read and written by the deliver job in shapes made for batching (see
// Batcher): a worker delivering 50 webhooks at once reads their rows in one
// query and logs their attempts in one statement.
import { sql, type Transaction } from 'kysely';
import type { Db } from '../db/connection.js';
import type { Database } from '../db/database.js';
import { newId } from '../domain/ids.js';
import { recordEvents } from './event.repository.js';

/** Loads deliveries with their subscriptions; answers in the order asked (undefined: no such delivery). */
export async function loadDeliveries(db: Db, ids: string[]) {
  const rows = await db
    .selectFrom('webhook_deliveries as d')
    .leftJoin('webhook_subscriptions as s', 's.id', 'd.subscription_id')
    .leftJoin('accounts as a', 'a.id', 's.account_id')
    .select([
      'a.status as account_status',
      'd.id',
      'd.status',
      'd.attempts',
      'd.replays',
      'd.event_id',
      'd.subscription_id',
      's.id as sub_id',
      's.account_id',
      's.url',
      's.state',
      's.disabled_reason',
      's.secret_encrypted',
      's.previous_secret_encrypted',
      's.previous_secret_expires_at',
      's.failing_since',
    ])
    .where('d.id', 'in', [...new Set(ids)])
    .execute();
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.map((id) => byId.get(id));
}

export type DeliveryRow = NonNullable<Awaited<ReturnType<typeof loadDeliveries>>[number]>;

export interface AttemptRecord {
  deliveryId: string;
  attempt: number;
  at: Date;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  /** A 2xx: the delivery is done. */
  succeeded: boolean;
}

/**
 * Logs attempts and moves their deliveries on, for many deliveries in one
 * statement: each attempt row and its delivery's new state commit together.
 */
export async function recordAttempts(db: Db, attempts: AttemptRecord[]): Promise<void[]> {
  const input = JSON.stringify(
    attempts.map((a) => ({
      delivery_id: a.deliveryId,
      attempt: a.attempt,
      at: a.at.toISOString(),
      status_code: a.statusCode,
      latency_ms: a.latencyMs,
      error: a.error,
      succeeded: a.succeeded,
    })),
  );
  await sql`
    with input as (
      select * from jsonb_to_recordset(${input}::jsonb) as i(
        delivery_id text, attempt integer, at timestamptz, status_code integer, latency_ms integer, error text, succeeded boolean)
    ),
    logged as (
      insert into webhook_attempts (delivery_id, attempt, at, status_code, latency_ms, error)
      select delivery_id, attempt, at, status_code, latency_ms, error from input
    )
    update webhook_deliveries d
       set attempts = i.attempt, last_status_code = i.status_code, last_error = i.error,
           status = case when i.succeeded then 'succeeded' else d.status end,
           finished_at = case when i.succeeded then now() else d.finished_at end
      from input i
     where d.id = i.delivery_id`.execute(db);
  return attempts.map(() => undefined);
}

/** A delivery is over: delivered, or given up on with the reason (kept for replay). */
export async function finishDelivery(db: Db, id: string, status: 'succeeded' | 'failed', error: string | null): Promise<void> {
  await db.updateTable('webhook_deliveries').set({ status, last_error: error, finished_at: new Date() }).where('id', '=', id).execute();
}

/**
 * One pending delivery per (event, subscription) — unique in the database, so
 * a second match of the event adds nothing — and answers every pending
 * delivery of the event, new or left by a crash before its job was enqueued.
 * With new deliveries this is one statement: its select cannot see its own
 * insert's rows, hence the union with what the insert returns.
 */
/** Whose each delivery is: its subscription's account, or the operators' (no account); in the order asked. */
export async function deliveryOwners(db: Db, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('webhook_deliveries as d')
    .leftJoin('webhook_subscriptions as s', 's.id', 'd.subscription_id')
    .select(['d.id', 's.account_id'])
    .where('d.id', 'in', ids)
    .execute();
  const owners = new Map(rows.map((r) => [r.id, r.account_id ?? 'operators']));
  return ids.map((id) => owners.get(id) ?? 'operators');
}

export async function createPendingDeliveries(db: Db, eventId: string, subscriptionIds: readonly string[]): Promise<string[]> {
  const pendingQuery = db.selectFrom('webhook_deliveries').select('id').where('event_id', '=', eventId).where('status', '=', 'pending');
  const rows =
    subscriptionIds.length === 0
      ? await pendingQuery.execute()
      : await db
          .with('inserted', (qb) =>
            qb
              .insertInto('webhook_deliveries')
              .values(
                subscriptionIds.map((subscription_id) => ({
                  id: newId('delivery'),
                  event_id: eventId,
                  subscription_id,
                  status: 'pending' as const,
                })),
              )
              .onConflict((oc) => oc.columns(['event_id', 'subscription_id']).doNothing())
              .returning('id'),
          )
          .selectFrom('inserted')
          .select('id')
          .union(pendingQuery)
          .execute();
  return rows.map((r) => r.id);
}

/** What the match job records for one event: its matching subscriptions. */
export interface EventMatch {
  eventId: string;
  subscriptionIds: readonly string[];
}

/** A pending delivery with its event and whose it is (its subscription's account, or the operators'). */
export interface OwnedDelivery {
  id: string;
  eventId: string;
  owner: string;
  /** Kept with a parked delivery, so its slot can be handed to it entered (delivery-gate.ts leaveAndHandOn). */
  subscriptionId: string;
}

/**
 * createPendingDeliveries for many events in one statement (the match jobs of
 * events matched at the same time; see Batcher): one INSERT of every
 * (event, subscription) pair, ON CONFLICT DO NOTHING on their unique key, and
 * every pending delivery of those events with its owner, new or left by a
 * crash before its job was enqueued. The rows go in in key order, so two
 * workers inserting overlapping pairs wait on each other rather than deadlock.
 */
export async function createPendingDeliveriesOf(db: Db, matches: readonly EventMatch[]): Promise<OwnedDelivery[]> {
  if (matches.length === 0) return [];
  const eventIds = [...new Set(matches.map((m) => m.eventId))];
  const pairs = new Map<string, { event_id: string; subscription_id: string }>();
  for (const m of matches) for (const s of m.subscriptionIds) pairs.set(`${m.eventId} ${s}`, { event_id: m.eventId, subscription_id: s });
  const rows = [...pairs.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, pair]) => ({ id: newId('delivery'), ...pair, status: 'pending' as const }));
  const pendingQuery = db
    .selectFrom('webhook_deliveries as d')
    .leftJoin('webhook_subscriptions as s', 's.id', 'd.subscription_id')
    .select(['d.id', 'd.event_id', 'd.subscription_id', 's.account_id'])
    .where('d.event_id', 'in', eventIds)
    .where('d.status', '=', 'pending');
  const found =
    rows.length === 0
      ? await pendingQuery.execute()
      : await db
          .with('inserted', (qb) =>
            qb
              .insertInto('webhook_deliveries')
              .values(rows)
              .onConflict((oc) => oc.columns(['event_id', 'subscription_id']).doNothing())
              .returning(['id', 'event_id', 'subscription_id']),
          )
          .selectFrom('inserted as i')
          .leftJoin('webhook_subscriptions as s', 's.id', 'i.subscription_id')
          .select(['i.id', 'i.event_id', 'i.subscription_id', 's.account_id'])
          .unionAll(pendingQuery)
          .execute();
  return found.map((r) => ({ id: r.id, eventId: r.event_id, owner: r.account_id ?? 'operators', subscriptionId: r.subscription_id }));
}

/**
 * The trace of the research run behind each delivery (its event's run, see runTracesOfEvents), for the
 * deliveries whose run was traced: what the sweeper and a resumed account make a delivery's job in when
 * its first job (which carried the trace) is gone.
 */
export async function runTracesOfDeliveries(db: Db, deliveryIds: readonly string[]): Promise<Map<string, string>> {
  if (deliveryIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('outbox_events as e', 'e.id', 'd.event_id')
    .innerJoin('research_runs as r', (join) => join.on('r.id', '=', sql<string>`e.payload->>'run_id'`))
    .select(['d.id', 'r.trace_id'])
    .where('d.id', 'in', [...new Set(deliveryIds)])
    .where('r.trace_id', 'is not', null)
    .execute();
  return new Map(rows.map((r) => [r.id, r.trace_id!]));
}

/**
 * Deliveries pending since longer than `olderThanMs` (created, or reopened by a
 * replay), oldest first, with their replay count: candidates for the sweeper.
 */
export async function quietPendingDeliveries(db: Db, olderThanMs: number, limit = 500): Promise<Array<{ id: string; replays: number }>> {
  return db
    .selectFrom('webhook_deliveries')
    .select(['id', 'replays'])
    .where('status', '=', 'pending')
    .where('queued_at', '<', sql<Date>`now() - make_interval(secs => ${olderThanMs / 1000})`)
    .orderBy('queued_at')
    .limit(limit)
    .execute();
}

/** The pending deliveries of an account's subscriptions (held while it was suspended), with their replay counts. */
export async function pendingDeliveriesOfAccount(db: Db, accountId: string): Promise<Array<{ id: string; replays: number }>> {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_subscriptions as s', 's.id', 'd.subscription_id')
    .select(['d.id', 'd.replays'])
    .where('s.account_id', '=', accountId)
    .where('d.status', '=', 'pending')
    .execute();
}

/** A delivery as its log shows it; `created_key` is created_at as Postgres writes it (microseconds kept) for keyset pages. */
export interface DeliveryLogRow {
  id: string;
  event_id: string;
  event_type: string;
  subscription_id: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Date;
  finished_at: Date | null;
  created_key: string;
  /** The insight the event was about, if any. */
  insight_id: string | null;
  /** What the event was about, as a person reads it: its insight's title, else the idea a research run was of; null for a ping. */
  about: string | null;
}

/** Where a page of the delivery log ends: the last row's created_key and id. */
export interface DeliveryPosition {
  createdKey: string;
  id: string;
}

/**
 * The delivery log, newest first: of one subscription or (operators) of all,
 * optionally one status, after `after` (keyset: created_at then id, compared
 * at Postgres's own precision so no two rows of one millisecond are skipped).
 */
export async function listDeliveries(
  db: Db,
  options: { subscriptionId?: string; status?: 'pending' | 'succeeded' | 'failed'; after?: DeliveryPosition; limit: number },
): Promise<DeliveryLogRow[]> {
  let query = db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('outbox_events as e', 'e.id', 'd.event_id')
    .leftJoin('insights as i', 'i.id', 'e.insight_id')
    .select([
      'd.id',
      'd.event_id',
      'e.type as event_type',
      'e.insight_id',
      sql<string | null>`coalesce(i.title, e.payload->>'idea')`.as('about'),
      'd.subscription_id',
      'd.status',
      'd.attempts',
      'd.last_status_code',
      'd.last_error',
      'd.created_at',
      'd.finished_at',
      sql<string>`d.created_at::text`.as('created_key'),
    ]);
  if (options.subscriptionId !== undefined) query = query.where('d.subscription_id', '=', options.subscriptionId);
  if (options.status !== undefined) query = query.where('d.status', '=', options.status);
  if (options.after) {
    const { createdKey, id } = options.after;
    query = query.where(sql<boolean>`(d.created_at, d.id) < (${createdKey}::timestamptz, ${id})`);
  }
  return query.orderBy('d.created_at', 'desc').orderBy('d.id', 'desc').limit(options.limit).execute();
}

/** One delivery, only if it belongs to the subscription. */
export async function findDeliveryOf(
  db: Db,
  deliveryId: string,
  subscriptionId: string | null,
): Promise<{ id: string; subscription_id: string } | undefined> {
  let query = db.selectFrom('webhook_deliveries').select(['id', 'subscription_id']).where('id', '=', deliveryId);
  if (subscriptionId !== null) query = query.where('subscription_id', '=', subscriptionId);
  return query.executeTakeFirst();
}

/** A delivery's status under a row lock (for a replay deciding whether it is still on its way). */
export async function lockDeliveryStatus(trx: Transaction<Database>, deliveryId: string): Promise<'pending' | 'succeeded' | 'failed'> {
  const row = await trx
    .selectFrom('webhook_deliveries')
    .select('status')
    .where('id', '=', deliveryId)
    .forUpdate()
    .executeTakeFirstOrThrow();
  return row.status;
}

/**
 * A subscription's deliveries made in [since, until), oldest first: at most
 * `limit` of those not pending (the ones a replay may send), and how many are
 * pending (already on their way).
 */
export async function replayableBetween(
  db: Db | Transaction<Database>,
  subscriptionId: string,
  since: Date,
  until: Date | null,
  limit: number,
): Promise<{ ids: string[]; pending: number }> {
  let query = db.selectFrom('webhook_deliveries').where('subscription_id', '=', subscriptionId).where('created_at', '>=', since);
  if (until) query = query.where('created_at', '<', until);
  const [rows, pending] = await Promise.all([
    query.select('id').where('status', '<>', 'pending').orderBy('created_at').orderBy('id').limit(limit).execute(),
    query
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('status', '=', 'pending')
      .executeTakeFirstOrThrow(),
  ]);
  return { ids: rows.map((r) => r.id), pending: Number(pending.n) };
}

/**
 * Deliveries sent again: pending, as if new (their attempts stay in the log),
 * each with its replay count one up. A delivery already pending (new, retrying,
 * or replayed and not done) is left as it is: it is never replayed twice at once.
 * Answers the reopened ones with their new replay count.
 */
export async function reopenForReplay(
  db: Db | Transaction<Database>,
  ids: readonly string[],
): Promise<Array<{ id: string; replays: number }>> {
  if (ids.length === 0) return [];
  return db
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', finished_at: null, replays: sql<number>`replays + 1`, queued_at: sql<Date>`now()` })
    .where('id', 'in', [...ids])
    .where('status', '<>', 'pending')
    .returning(['id', 'replays'])
    .execute();
}

/**
 * A ping for one subscription: the event goes through the outbox like every
 * other (already relayed: it is sent to this subscription directly, never
 * matched) and its delivery is created in the same transaction.
 */
export async function createPingDelivery(
  trx: Transaction<Database>,
  subscriptionId: string,
  payload: Record<string, unknown>,
): Promise<{ eventId: string; deliveryId: string }> {
  const [eventId] = await recordEvents(trx, [{ type: 'ping', insightId: null, payload, relayedAt: new Date() }]);
  const deliveryId = newId('delivery');
  await trx
    .insertInto('webhook_deliveries')
    .values({ id: deliveryId, event_id: eventId!, subscription_id: subscriptionId, status: 'pending' })
    .execute();
  return { eventId: eventId!, deliveryId };
}

/** Deletes attempt rows older than `keepDays`, 10,000 at a time; answers how many. */
export async function pruneAttempts(db: Db, keepDays: number): Promise<number> {
  let total = 0;
  for (;;) {
    const result = await sql<{ n: number }>`
      with old as (select ctid from webhook_attempts where at < now() - make_interval(days => ${keepDays}) limit 10000)
      delete from webhook_attempts where ctid in (select ctid from old)`.execute(db);
    const n = Number(result.numAffectedRows ?? 0);
    total += n;
    if (n < 10_000) return total;
  }
}

/** Deletes the daily counts of replays and pings older than `keepDays`. */
export async function pruneSendCounts(db: Db, keepDays: number): Promise<number> {
  const result = await db
    .deleteFrom('webhook_sends_daily')
    .where('day', '<', sql<string>`(now() - make_interval(days => ${keepDays}))::date`)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
