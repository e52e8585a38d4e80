import type { Selectable } from 'kysely';
import type { Db } from '../db/connection.js';
import type { ApiKeysTable } from '../db/database.js';
import { displayPrefix, generateApiKey, hashApiKey } from '../domain/api-key.js';
import { newId } from '../domain/ids.js';
import type { Plan } from '../domain/quota.js';

export type ApiKeyRow = Selectable<ApiKeysTable>;

export interface CreatedApiKey {
  id: string;
  /** The only time the key exists in clear. */
  key: string;
  plan: Plan;
  name: string;
}

export async function createApiKey(db: Db, name: string, plan: Plan): Promise<CreatedApiKey> {
  const key = generateApiKey();
  const id = newId('apiKey');
  await db
    .insertInto('api_keys')
    .values({ id, name, plan, display_prefix: displayPrefix(key), key_hash: hashApiKey(key) })
    .execute();
  return { id, key, plan, name };
}

export async function findActiveApiKeyByHash(db: Db, keyHash: string): Promise<ApiKeyRow | undefined> {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where('key_hash', '=', keyHash)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
}

export async function listApiKeys(db: Db): Promise<ApiKeyRow[]> {
  return db.selectFrom('api_keys').selectAll().orderBy('created_at', 'asc').execute();
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
  return updated ?? db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function countApiKeys(db: Db): Promise<number> {
  const { count } = await db
    .selectFrom('api_keys')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(count);
}
