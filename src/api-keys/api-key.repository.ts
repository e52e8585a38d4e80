import type { Selectable } from 'kysely';
import { sql } from 'kysely';
import type { Db } from '../db/connection.js';
import type { AccountStatus, ApiKeysTable } from '../db/database.js';
import { createAccount } from '../accounts/account.repository.js';
import { DEFAULT_API_KEY_SCOPES, displayPrefix, generateApiKey, hashApiKey, type ApiKeyScope } from '../domain/api-key.js';
import { newId } from '../domain/ids.js';
import type { Plan } from '../domain/quota.js';

export type ApiKeyRow = Selectable<ApiKeysTable>;

export interface CreatedApiKey {
  id: string;
  /** The only time the key exists in clear. */
  key: string;
  accountId: string;
  plan: Plan;
  name: string;
  expiresAt: Date | null;
  scopes: string[];
}

/**
 * Live keys an account may hold, by plan: keys that are neither revoked, expired nor replaced by a rotation
 * (a rotation swaps one for one, so it is never refused). Every live key is a row each request may look up
 * and a hash the key cache keeps; an outside review made 300 in under 3 s from one session. Generous for
 * real use (one key per service and environment, with room for rotations' overlap).
 */
export const API_KEYS_PER_PLAN: Readonly<Record<Plan, number>> = Object.freeze({ free: 5, starter: 20, pro: 100, enterprise: 1000 });

/** The account holds as many live keys as its plan allows: nothing was made. */
export class KeyLimitReached extends Error {
  constructor(
    readonly accountId: string,
    readonly plan: Plan,
    readonly limit: number,
  ) {
    super(
      `account ${accountId} already has ${limit} live API keys, the most its ${plan} plan allows — revoke one it no longer uses (insights keys revoke KEY_ID) or move the account to a larger plan (insights accounts set-plan)`,
    );
  }
}

/** A new key in an existing account, unless it holds as many live keys as its plan allows (KeyLimitReached). */
export async function createKeyForAccount(
  db: Db,
  account: { id: string; plan: Plan },
  name: string,
  expiresAt: Date | null = null,
  scopes: readonly ApiKeyScope[] = DEFAULT_API_KEY_SCOPES,
): Promise<CreatedApiKey> {
  const key = generateApiKey();
  const id = newId('apiKey');
  const keyScopes = [...new Set(scopes)];
  const limit = API_KEYS_PER_PLAN[account.plan];
  await db.transaction().execute(async (trx) => {
    // The account's row is locked, so concurrent creations are counted one after another and cannot all pass the cap.
    await trx.selectFrom('accounts').select('id').where('id', '=', account.id).forUpdate().executeTakeFirst();
    const { live } = await trx
      .selectFrom('api_keys')
      .select((eb) => eb.fn.countAll<string>().as('live'))
      .where('account_id', '=', account.id)
      .where('revoked_at', 'is', null)
      .where('replaced_by', 'is', null)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', sql<Date>`now()`)]))
      .executeTakeFirstOrThrow();
    if (Number(live) >= limit) throw new KeyLimitReached(account.id, account.plan, limit);
    await trx
      .insertInto('api_keys')
      .values({
        id,
        account_id: account.id,
        name,
        display_prefix: displayPrefix(key),
        key_hash: hashApiKey(key),
        expires_at: expiresAt,
        scopes: keyScopes,
      })
      .execute();
  });
  return { id, key, accountId: account.id, plan: account.plan, name, expiresAt, scopes: keyScopes };
}

/** The shorthand: a key in an account of its own, named like the key, on this plan. */
export async function createApiKey(
  db: Db,
  name: string,
  plan: Plan,
  expiresAt: Date | null = null,
  scopes: readonly ApiKeyScope[] = DEFAULT_API_KEY_SCOPES,
): Promise<CreatedApiKey> {
  const account = await createAccount(db, name, plan);
  return createKeyForAccount(db, account, name, expiresAt, scopes);
}

export interface KeyWithAccount {
  id: string;
  name: string;
  revoked_at: Date | null;
  expires_at: Date | null;
  account_id: string;
  account_name: string;
  plan: Plan;
  status: AccountStatus;
  scopes: string[];
}

/** The key with this hash and its account, revoked or not (the caller says which answer fits). */
export async function findKeyByHash(db: Db, keyHash: string): Promise<KeyWithAccount | undefined> {
  return db
    .selectFrom('api_keys as k')
    .innerJoin('accounts as a', 'a.id', 'k.account_id')
    .select(['k.id', 'k.name', 'k.revoked_at', 'k.expires_at', 'k.account_id', 'k.scopes', 'a.name as account_name', 'a.plan', 'a.status'])
    .where('k.key_hash', '=', keyHash)
    .executeTakeFirst();
}

/**
 * Keys that exist and may be used (not revoked, not expired), newest first:
 * their hashes and ids, for the set of keys the unknown-key limiter
 * never holds up. `createdAfter` reads only the keys made since.
 */
export async function listUsableKeyHashes(
  db: Db,
  options: { createdAfter?: Date; limit: number },
): Promise<Array<{ id: string; key_hash: string; created_at: Date }>> {
  let query = db
    .selectFrom('api_keys')
    .select(['id', 'key_hash', 'created_at'])
    .where('revoked_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', sql<Date>`now()`)]));
  if (options.createdAfter) query = query.where('created_at', '>', options.createdAfter);
  return query.orderBy('created_at', 'desc').limit(options.limit).execute();
}

export async function findApiKey(db: Db, id: string): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listApiKeys(db: Db, accountId?: string): Promise<Array<ApiKeyRow & { plan: Plan }>> {
  let query = db.selectFrom('api_keys as k').innerJoin('accounts as a', 'a.id', 'k.account_id').selectAll('k').select('a.plan');
  if (accountId !== undefined) query = query.where('k.account_id', '=', accountId);
  return query.orderBy('k.created_at', 'asc').execute();
}

/** Returns the revoked row, or undefined when no such key exists. Revoking twice is harmless. */
export async function revokeApiKey(db: Db, id: string): Promise<ApiKeyRow | undefined> {
  const updated = await db
    .updateTable('api_keys')
    .set({ revoked_at: new Date() })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
  return updated ?? findApiKey(db, id);
}

/** A second rotation of a key already replaced (a double submit, two owners at once): nothing was made. */
export class KeyAlreadyRotated extends Error {}

/**
 * A new key in the same account, with the same scopes; the old one keeps working until `overlapEnds`
 * (or its own earlier expiry) and then stops. One transaction: never two keys
 * without the link between them, never the old one cut short without the new.
 * `expiresAt`: the new key's expiry (default none, as `keys rotate` has always made it; the account pages
 * pass the old key's, so a rotation never lengthens a key's life). `once`: refuse (KeyAlreadyRotated)
 * when the old key was replaced already, checked in the same UPDATE so two concurrent rotations make one key.
 */
export async function rotateApiKey(
  db: Db,
  old: ApiKeyRow,
  plan: Plan,
  overlapEnds: Date,
  options: { expiresAt?: Date | null; once?: boolean } = {},
): Promise<CreatedApiKey> {
  const expiresAt = options.expiresAt ?? null;
  return db.transaction().execute(async (trx) => {
    const key = generateApiKey();
    const id = newId('apiKey');
    await trx
      .insertInto('api_keys')
      .values({
        id,
        account_id: old.account_id,
        name: old.name,
        display_prefix: displayPrefix(key),
        key_hash: hashApiKey(key),
        expires_at: expiresAt,
        scopes: old.scopes,
      })
      .execute();
    let update = trx
      .updateTable('api_keys')
      .set({ replaced_by: id, expires_at: sql<Date>`least(coalesce(expires_at, ${overlapEnds}), ${overlapEnds})` })
      .where('id', '=', old.id);
    if (options.once) update = update.where('replaced_by', 'is', null);
    const updated = await update.executeTakeFirst();
    if (options.once && updated.numUpdatedRows === 0n) throw new KeyAlreadyRotated(`${old.id} was rotated already`);
    return { id, key, accountId: old.account_id, plan, name: old.name, expiresAt, scopes: old.scopes };
  });
}

export async function countApiKeys(db: Db): Promise<number> {
  const { count } = await db
    .selectFrom('api_keys')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(count);
}

/** Every key of the account with its name (revoked ones too: past usage still names them). */
