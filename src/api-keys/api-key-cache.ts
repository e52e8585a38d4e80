// Resolving a key costs a Postgres round trip, so resolved keys are cached in
// process, with their account's plan and status. Changes must still bite at
// once: revoking or rotating a key, changing an account's plan, suspending or
// resuming it publishes the key's or the account's id, and every web process
// drops what it cached for it. The TTL bounds the damage if a message is ever
// missed (e.g. Redis restarted mid-publish).
//
// Unknown keys are remembered briefly in a cache of their own, so a flood of
// well-formed junk (the checksum is public) costs one lookup per key at most
// and can never evict the valid keys; concurrent lookups of one key share one
// query. Both caches drop their least recently used entries, never all at once.
import type { Redis } from '../redis/connection.js';
import type { Db } from '../db/connection.js';
import type { AccountStatus } from '../db/database.js';
import { hashApiKey } from '../domain/api-key.js';
import type { Plan } from '../domain/quota.js';
import { Lru } from '../domain/lru.js';
import { findKeyByHash } from './api-key.repository.js';

export interface ResolvedApiKey {
  id: string;
  name: string;
  accountId: string;
  accountName: string;
  /** The account's plan: its quota counts every key of the account. */
  plan: Plan;
  status: AccountStatus;
  /** Epoch ms after which the key answers 401 "expired"; null: it does not expire. */
  expiresAt: number | null;
}

const VALID_TTL_MS = 60_000;
const UNKNOWN_TTL_MS = 30_000;

export class ApiKeyCache {
  private readonly valid = new Lru<string, { key: ResolvedApiKey; expires: number }>(10_000);
  private readonly unknown = new Lru<string, number>(20_000);
  private readonly inFlight = new Map<string, Promise<ResolvedApiKey | null>>();
  /** Postgres lookups made: what unauthenticated traffic can cost. */
  readonly stats = { lookups: 0 };

  constructor(private readonly db: Db) {}

  /** The key if it is cached now: no lookup, no cost. */
  peek(key: string): ResolvedApiKey | undefined {
    const hit = this.valid.get(hashApiKey(key));
    return hit && hit.expires > Date.now() ? hit.key : undefined;
  }

  /** The key and its account, or null when it does not exist or was revoked. An expired key resolves: the caller says so. */
  async resolve(key: string): Promise<ResolvedApiKey | null> {
    const hash = hashApiKey(key);
    const hit = this.valid.get(hash);
    if (hit && hit.expires > Date.now()) return hit.key;
    const unknownUntil = this.unknown.get(hash);
    if (unknownUntil !== undefined && unknownUntil > Date.now()) return null;
    let lookup = this.inFlight.get(hash);
    if (!lookup) {
      lookup = this.lookup(hash).finally(() => this.inFlight.delete(hash));
      this.inFlight.set(hash, lookup);
    }
    return lookup;
  }

  private async lookup(hash: string): Promise<ResolvedApiKey | null> {
    this.stats.lookups += 1;
    const row = await findKeyByHash(this.db, hash);
    if (!row || row.revoked_at !== null) {
      this.unknown.set(hash, Date.now() + UNKNOWN_TTL_MS);
      return null;
    }
    const key: ResolvedApiKey = {
      id: row.id,
      name: row.name,
      accountId: row.account_id,
      accountName: row.account_name,
      plan: row.plan,
      status: row.status,
      expiresAt: row.expires_at ? row.expires_at.getTime() : null,
    };
    this.unknown.delete(hash);
    this.valid.set(hash, { key, expires: Date.now() + VALID_TTL_MS });
    return key;
  }

  /** Drops what is cached for a key id (key_…) or for every key of an account (acc_…). */
  forget(id: string): void {
    this.valid.prune((_, entry) => entry.key.id === id || entry.key.accountId === id);
  }

  /** Subscribes to key and account changes. Returns a function that unsubscribes. */
  async listen(subscriber: Redis, channel: string): Promise<() => Promise<void>> {
    subscriber.on('message', (ch: string, id: string) => {
      if (ch === channel) this.forget(id);
    });
    await subscriber.subscribe(channel);
    return async () => {
      await subscriber.unsubscribe(channel);
    };
  }
}

/** Tells every web process that a key (key_…) or an account (acc_…) changed. */
export async function announceKeyChange(redis: Redis, channel: string, id: string): Promise<void> {
  await redis.publish(channel, id);
}
