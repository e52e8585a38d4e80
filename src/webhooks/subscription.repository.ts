import { sql, type Selectable, type Transaction } from 'kysely';
import type { Db } from '../db/connection.js';
import type { Database, SubscriptionDisabledBy, WebhookSubscriptionsTable } from '../db/database.js';
import type { Plan } from '../domain/quota.js';
import { newId } from '../domain/ids.js';
import type { SubscriptionCriteria } from '../domain/webhooks/matching.js';
import { generateWebhookSecret } from '../domain/webhooks/signing.js';
import type { SecretBox } from './secret-box.js';

export type SubscriptionRow = Selectable<WebhookSubscriptionsTable>;

export interface NewSubscription {
  url: string;
  minScore: number | null;
  categories: string[];
  sources: string[];
  keywords: string[];
  eventTypes: string[];
  /** The account it belongs to: its deliveries are held while the account is suspended. */
  accountId?: string | null;
}

/** The Idempotency-Key (hashed) an API client sent with a create, and its request's fingerprint. */
export interface CreationKey {
  keyHash: string;
  fingerprint: string;
}

/** How long a create's Idempotency-Key stays bound to it: as long as Redis keeps its answer (KEEP_SECONDS in src/http/idempotency.ts). */
const CREATION_KEY_HOURS = 24;

/** A new subscription's row, with its id and its secret in clear (sealed in the row). */
function subscriptionValues(box: SecretBox, input: NewSubscription, creationKey?: CreationKey) {
  const id = newId('subscription');
  const secret = generateWebhookSecret();
  const values = {
    id,
    url: input.url,
    secret_encrypted: box.seal(secret),
    min_score: input.minScore,
    categories: JSON.stringify(input.categories),
    sources: JSON.stringify(input.sources),
    keywords: JSON.stringify(input.keywords.map((k) => k.toLowerCase())),
    event_types: JSON.stringify(input.eventTypes),
    state: 'enabled' as const,
    account_id: input.accountId ?? null,
    idempotency_key_hash: creationKey?.keyHash ?? null,
    idempotency_fingerprint: creationKey?.fingerprint ?? null,
  };
  return { id, secret, values };
}

/** Returns the row and the secret in clear: the only time it is shown. */
export async function createSubscription(
  db: Db,
  box: SecretBox,
  input: NewSubscription,
): Promise<{ id: string; secret: string; row: SubscriptionRow }> {
  const { id, secret, values } = subscriptionValues(box, input);
  const row = await db.insertInto('webhook_subscriptions').values(values).returningAll().executeTakeFirstOrThrow();
  return { id, secret, row };
}

export type LimitedCreation =
  | { created: { id: string; secret: string; row: SubscriptionRow } }
  /**
   * The subscription this creation's Idempotency-Key made before (its answer
   * was lost), with the secret that create issued, or null when it has been
   * rotated since (the current one was never that create's to hand out).
   */
  | { madeBefore: { id: string; secret: string | null; row: SubscriptionRow } }
  /** The Idempotency-Key made a subscription from another request. */
  | { keyReused: true }
  | { refused: { plan: Plan; limit: number; count: number } }
  | { noAccount: true };

/**
 * Creates an account's subscription unless the account already has as many as
 * its plan allows. The account's row is locked for the count and the insert,
 * so concurrent creations of one account are counted one after another and
 * can never pass the limit together. With a `creationKey`, a subscription that
 * key made in the last 24 h is answered instead of a new one (under the same
 * lock, so a retry racing its first attempt finds it too).
 */
export async function createSubscriptionWithinLimit(
  db: Db,
  box: SecretBox,
  input: NewSubscription & { accountId: string },
  limitOf: (plan: Plan) => number,
  creationKey?: CreationKey,
): Promise<LimitedCreation> {
  return db.transaction().execute(async (trx): Promise<LimitedCreation> => {
    const account = await trx
      .selectFrom('accounts')
      .select(['id', 'plan'])
      .where('id', '=', input.accountId)
      .forUpdate()
      .executeTakeFirst();
    if (!account) return { noAccount: true };
    if (creationKey) {
      const before = await trx
        .selectFrom('webhook_subscriptions')
        .selectAll()
        .where('account_id', '=', account.id)
        .where('idempotency_key_hash', '=', creationKey.keyHash)
        .where('created_at', '>', sql<Date>`now() - make_interval(hours => ${CREATION_KEY_HOURS})`)
        .orderBy('created_at', 'desc')
        .executeTakeFirst();
      if (before && before.idempotency_fingerprint !== creationKey.fingerprint) return { keyReused: true };
      if (before)
        return {
          madeBefore: { id: before.id, secret: before.secret_rotated_at === null ? box.open(before.secret_encrypted) : null, row: before },
        };
    }
    const { count } = await trx
      .selectFrom('webhook_subscriptions')
      .select((eb) => eb.fn.countAll<string>().as('count'))
      .where('account_id', '=', account.id)
      .executeTakeFirstOrThrow();
    const limit = limitOf(account.plan);
    if (Number(count) >= limit) return { refused: { plan: account.plan, limit, count: Number(count) } };
    const { id, secret, values } = subscriptionValues(box, input, creationKey);
    const row = await trx.insertInto('webhook_subscriptions').values(values).returningAll().executeTakeFirstOrThrow();
    return { created: { id, secret, row } };
  });
}

/** A subscription, only if it belongs to `accountId` (null: any, the operator's view). */
export function findSubscriptionOf(db: Db, id: string, accountId: string | null): Promise<SubscriptionRow | undefined> {
  let query = db.selectFrom('webhook_subscriptions').selectAll().where('id', '=', id);
  if (accountId !== null) query = query.where('account_id', '=', accountId);
  return query.executeTakeFirst();
}

/** An account's subscriptions (null: every one), oldest first. */
export function listSubscriptionsOf(db: Db, accountId: string | null): Promise<SubscriptionRow[]> {
  let query = db.selectFrom('webhook_subscriptions').selectAll();
  if (accountId !== null) query = query.where('account_id', '=', accountId);
  return query.orderBy('created_at').orderBy('id').execute();
}

export interface SubscriptionChanges {
  url?: string;
  minScore?: number | null;
  categories?: string[];
  sources?: string[];
  keywords?: string[];
  eventTypes?: string[];
  /** Enabling also ends a failure streak; disabling records the reason and who disabled it. */
  state?: { state: 'enabled'; reason: null } | { state: 'disabled'; reason: string; by: SubscriptionDisabledBy };
}

/**
 * Changes a subscription of `accountId` (null: any) under a row lock, after
 * `precondition` has seen the row as it is (an If-Match check): the check and
 * the change cannot be interleaved with another change. Answers the new row,
 * 'missing', or the precondition's refusal.
 */
export async function updateSubscription<R extends string>(
  db: Db,
  id: string,
  accountId: string | null,
  changes: SubscriptionChanges,
  precondition: (row: SubscriptionRow) => R | null = () => null,
): Promise<SubscriptionRow | 'missing' | { refused: R }> {
  return db.transaction().execute(async (trx) => {
    let query = trx.selectFrom('webhook_subscriptions').selectAll().where('id', '=', id);
    if (accountId !== null) query = query.where('account_id', '=', accountId);
    const row = await query.forUpdate().executeTakeFirst();
    if (!row) return 'missing' as const;
    const refused = precondition(row);
    if (refused !== null) return { refused };
    return applyChanges(trx, id, changes);
  });
}

async function applyChanges(trx: Transaction<Database>, id: string, c: SubscriptionChanges): Promise<SubscriptionRow> {
  return trx
    .updateTable('webhook_subscriptions')
    .set({
      updated_at: sql<Date>`now()`,
      ...(c.url !== undefined ? { url: c.url } : {}),
      ...(c.minScore !== undefined ? { min_score: c.minScore } : {}),
      ...(c.categories !== undefined ? { categories: JSON.stringify(c.categories) } : {}),
      ...(c.sources !== undefined ? { sources: JSON.stringify(c.sources) } : {}),
      ...(c.keywords !== undefined ? { keywords: JSON.stringify(c.keywords.map((k) => k.toLowerCase())) } : {}),
      ...(c.eventTypes !== undefined ? { event_types: JSON.stringify(c.eventTypes) } : {}),
      ...(c.state === undefined
        ? {}
        : c.state.state === 'enabled'
          ? { state: 'enabled' as const, disabled_reason: null, disabled_by: null, failing_since: null }
          : { state: 'disabled' as const, disabled_reason: c.state.reason, disabled_by: c.state.by }),
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Deletes a subscription of `accountId` (null: any, an operator) and, by
 * cascade, its delivery log. An account's delete leaves one an operator
 * disabled where it is, and says so (with the operator's reason).
 */
export async function removeSubscriptionOf(
  db: Db,
  id: string,
  accountId: string | null,
): Promise<'removed' | 'missing' | { operatorDisabled: string | null }> {
  let query = db.deleteFrom('webhook_subscriptions').where('id', '=', id);
  if (accountId !== null)
    query = query
      .where('account_id', '=', accountId)
      .where((eb) => eb.or([eb('state', '!=', 'disabled'), eb('disabled_by', 'is', null), eb('disabled_by', '!=', 'operator')]));
  const r = await query.executeTakeFirst();
  if (Number(r.numDeletedRows) > 0) return 'removed';
  if (accountId === null) return 'missing';
  const kept = await findSubscriptionOf(db, id, accountId);
  return kept ? { operatorDisabled: kept.disabled_reason } : 'missing';
}

/** The account's subscriptions an operator disabled: their receivers are closed to it. */
export const operatorDisabledOf = (db: Db, accountId: string) =>
  db
    .selectFrom('webhook_subscriptions')
    .select(['id', 'url', 'disabled_reason'])
    .where('account_id', '=', accountId)
    .where('state', '=', 'disabled')
    .where('disabled_by', '=', 'operator')
    .execute();

export const findSubscription = (db: Db, id: string) =>
  db.selectFrom('webhook_subscriptions').selectAll().where('id', '=', id).executeTakeFirst();

export async function enabledCriteria(db: Db): Promise<SubscriptionCriteria[]> {
  const rows = await db
    .selectFrom('webhook_subscriptions')
    .select(['id', 'min_score', 'categories', 'sources', 'keywords', 'event_types'])
    .where('state', '=', 'enabled')
    .execute();
  return rows.map((r) => ({
    id: r.id,
    minScore: r.min_score,
    categories: r.categories,
    sources: r.sources,
    keywords: r.keywords,
    eventTypes: r.event_types,
  }));
}

/** Of these subscriptions, the ones of this account: a private insight goes to its account's subscriptions only. */
export async function subscriptionsOfAccount(db: Db, ids: readonly string[], accountId: string): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('webhook_subscriptions')
    .select('id')
    .where('id', 'in', ids)
    .where('account_id', '=', accountId)
    .execute();
  return rows.map((r) => r.id);
}

/**
 * The account's enabled subscriptions that take this event type (an empty list
 * of types takes every type): where its research.completed and research.failed
 * go, whatever their insight criteria (the account asked for the research).
 */
export async function accountSubscriptionsTaking(db: Db, accountId: string, type: string): Promise<string[]> {
  const rows = await db
    .selectFrom('webhook_subscriptions')
    .select('id')
    .where('account_id', '=', accountId)
    .where('state', '=', 'enabled')
    .where((eb) => eb.or([sql<boolean>`${sql.ref('event_types')} = '[]'::jsonb`, sql<boolean>`${sql.ref('event_types')} ? ${type}`]))
    .orderBy('id')
    .execute();
  return rows.map((r) => r.id);
}

/** The deliver job's own disabling (a 410, a long failure streak): the system's, which the account may undo. */
export async function disableBySystem(db: Db, id: string, reason: string): Promise<boolean> {
  const r = await db
    .updateTable('webhook_subscriptions')
    .set({ state: 'disabled', disabled_reason: reason, disabled_by: 'system', updated_at: sql<Date>`now()` })
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/**
 * New secret now; the old one keeps signing until the overlap ends. The row is
 * locked, so two rotations at once chain (each keeps the one before it) rather
 * than both keeping the same old secret. Answers the new secret in clear and the
 * changed row; undefined when no such subscription belongs to `accountId` (null: any).
 */
export async function rotateSecret(
  db: Db,
  box: SecretBox,
  id: string,
  accountId: string | null,
  overlapHours: number,
  /** Seen under the row lock: true keeps the secret (an operator's switch the account may not touch). */
  refuse: (row: Pick<SubscriptionRow, 'state' | 'disabled_by' | 'disabled_reason'>) => boolean = () => false,
): Promise<{ secret: string; row: SubscriptionRow } | { refused: Pick<SubscriptionRow, 'disabled_reason'> } | undefined> {
  return db.transaction().execute(async (trx) => {
    let query = trx
      .selectFrom('webhook_subscriptions')
      .select(['id', 'secret_encrypted', 'state', 'disabled_by', 'disabled_reason'])
      .where('id', '=', id);
    if (accountId !== null) query = query.where('account_id', '=', accountId);
    const current = await query.forUpdate().executeTakeFirst();
    if (!current) return undefined;
    if (refuse(current)) return { refused: { disabled_reason: current.disabled_reason } };
    const secret = generateWebhookSecret();
    const row = await trx
      .updateTable('webhook_subscriptions')
      .set({
        secret_encrypted: box.seal(secret),
        previous_secret_encrypted: current.secret_encrypted,
        previous_secret_expires_at: sql<Date>`now() + make_interval(hours => ${overlapHours})`,
        secret_rotated_at: sql<Date>`now()`,
        updated_at: sql<Date>`now()`,
      })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return { secret, row };
  });
}

/** The secrets that sign now: the current one, and the previous one during its overlap. */
export function signingSecrets(
  box: SecretBox,
  row: Pick<SubscriptionRow, 'secret_encrypted' | 'previous_secret_encrypted' | 'previous_secret_expires_at'>,
  now = new Date(),
): string[] {
  const secrets = [box.open(row.secret_encrypted)];
  if (row.previous_secret_encrypted && row.previous_secret_expires_at && row.previous_secret_expires_at > now) {
    secrets.push(box.open(row.previous_secret_encrypted));
  }
  return secrets;
}

/** A subscription's failure streak: started now (kept if already running), or ended by a delivery that got through. */
export async function setFailingSince(db: Db, id: string, failing: boolean): Promise<void> {
  await db
    .updateTable('webhook_subscriptions')
    .set({ failing_since: failing ? sql<Date>`coalesce(failing_since, now())` : null })
    .where('id', '=', id)
    .execute();
}

/** The score thresholds of these subscriptions (null: none). */
export async function minScoresOf(db: Db, ids: readonly string[]): Promise<Array<{ id: string; minScore: number | null }>> {
  if (ids.length === 0) return [];
  const rows = await db.selectFrom('webhook_subscriptions').select(['id', 'min_score']).where('id', 'in', ids).execute();
  return rows.map((r) => ({ id: r.id, minScore: r.min_score }));
}

/** A delivery as the Webhooks tab lists it under its subscription. */
export interface RecentDelivery {
  id: string;
  event_type: string;
  insight_id: string | null;
  /** Its insight's title, else the idea a research run was of; null for a ping. */
  about: string | null;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Date;
}

/**
 * One page of the account's subscriptions for the Webhooks tab, oldest first (by millisecond, then id: `after`
 * is the last row of the page before), each with its `deliveries` newest deliveries, in ONE query whatever the
 * number of subscriptions. The tab ran two per subscription before (2026-11-28: an outside review's 200
 * subscriptions and four looping sessions took another tenant's API read from 24 ms to 2.7 s and timed out the
 * pool). `more`: a page follows.
 */
export async function subscriptionsPageOf(
  db: Db,
  accountId: string,
  options: { after?: { createdAt: Date; id: string }; limit: number; deliveries: number },
): Promise<{ rows: Array<SubscriptionRow & { recent: RecentDelivery[] }>; more: boolean }> {
  const createdMs = sql<Date>`date_trunc('milliseconds', s.created_at)`;
  let query = db
    .selectFrom('webhook_subscriptions as s')
    .selectAll('s')
    .select(
      sql<Array<Omit<RecentDelivery, 'created_at'> & { created_at: string }>>`coalesce((
        select json_agg(r order by r.created_at desc, r.id desc) from (
          select d.id, e.type as event_type, e.insight_id, coalesce(i.title, e.payload->>'idea') as about,
                 d.status, d.attempts, d.last_status_code, d.last_error, d.created_at
          from webhook_deliveries d
          join outbox_events e on e.id = d.event_id
          left join insights i on i.id = e.insight_id
          where d.subscription_id = s.id
          order by d.created_at desc, d.id desc
          limit ${options.deliveries}) r), '[]'::json)`.as('recent'),
    )
    .where('s.account_id', '=', accountId);
  if (options.after)
    query = query.where(sql<boolean>`(${createdMs}, s.id) > (${options.after.createdAt}::timestamptz, ${options.after.id})`);
  const rows = await query
    .orderBy(createdMs)
    .orderBy('s.id')
    .limit(options.limit + 1)
    .execute();
  return {
    rows: rows
      .slice(0, options.limit)
      .map((row) => ({ ...row, recent: row.recent.map((d) => ({ ...d, created_at: new Date(d.created_at) })) })),
    more: rows.length > options.limit,
  };
}
