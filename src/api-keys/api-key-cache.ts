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
//
// Apart from those, the process knows which keys exist: every key it found
// valid, and, once a client is held up by the unknown-key limiter, the
// usable keys in Postgres (read whole once, then only the ones made since, at
// most once a second). A known key is never held up by that limit, however
// long ago it was cached: the limit bounds lookups of keys nobody has, not the
// clients that have one. Revoking a key removes it.
import type { Redis } from '../redis/connection.js';
import type { Db } from '../db/connection.js';
import type { AccountStatus } from '../db/database.js';
import { hashApiKey } from '../domain/api-key.js';
import type { Plan } from '../domain/quota.js';
import { Lru } from '../domain/lru.js';
import { findKeyByHash, listUsableKeyHashes } from './api-key.repository.js';

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
  /** What the key may do (API_KEY_SCOPES); a route needing another answers 403. */
  scopes: readonly string[];
}

const VALID_TTL_MS = 60_000;
const UNKNOWN_TTL_MS = 30_000;
/** Keys known to exist, at most (about 150 bytes each); past it the least recently seen are forgotten. */
const KNOWN_MAX = 100_000;
/** The keys made since the last read are read at most this often, and only while a client is held up. */
const KNOWN_REFRESH_MS = 1_000;
/** Each read looks back this far before the newest key it saw (a key's insert may commit after a later one). */
const KNOWN_OVERLAP_MS = 60_000;

/** The known set keys on 64 bits of the key's hash: a collision could only earn a junk key one lookup. */
const knownId = (hash: string) => hash.slice(0, 16);

export class ApiKeyCache {
  private readonly valid = new Lru<string, { key: ResolvedApiKey; expires: number }>(10_000);
  private readonly unknown = new Lru<string, number>(20_000);
  private readonly inFlight = new Map<string, Promise<ResolvedApiKey | null>>();
  /** Keys that exist, by knownId of their hash, with their id (to forget them when revoked). */
  private readonly known = new Lru<string, string>(KNOWN_MAX);
  private knownNewest: Date | undefined;
  private knownReadAt = Number.NEGATIVE_INFINITY;
  private knownRead: Promise<void> | undefined;
  /** Postgres lookups made (what unauthenticated traffic can cost), and reads of the known keys. */
  readonly stats = { lookups: 0, knownReads: 0 };

  private readonly now: () => number;

  constructor(
    private readonly db: Db,
    options: { now?: () => number } = {},
  ) {
    this.now = options.now ?? Date.now;
  }

  /** The key if it is cached now: no lookup, no cost. */
  peek(key: string): ResolvedApiKey | undefined {
    const hit = this.valid.get(hashApiKey(key));
    return hit && hit.expires > this.now() ? hit.key : undefined;
  }

  /** Resolving the key now would query Postgres: it is neither cached (valid or unknown) nor being looked up already. */
  wouldLookUp(key: string): boolean {
    const hash = hashApiKey(key);
    const hit = this.valid.get(hash);
    if (hit && hit.expires > this.now()) return false;
    const unknownUntil = this.unknown.get(hash);
    if (unknownUntil !== undefined && unknownUntil > this.now()) return false;
    return !this.inFlight.has(hash);
  }

  /** The key exists as far as this process knows (found valid, or read with the usable keys): no lookup. */
  isKnown(key: string): boolean {
    return this.known.get(knownId(hashApiKey(key))) !== undefined;
  }

  /**
   * isKnown, after reading the keys made since the last read: a key created a
   * moment ago is known too. At most one read every KNOWN_REFRESH_MS, shared by
   * every caller meanwhile, so a flood of junk keys costs no more than that.
   */
  async isKnownAfterRead(key: string): Promise<boolean> {
    if (this.isKnown(key)) return true;
    if (!this.knownRead && this.now() - this.knownReadAt >= KNOWN_REFRESH_MS) {
      this.knownRead = this.readKnown().finally(() => (this.knownRead = undefined));
    }
    if (this.knownRead) await this.knownRead;
    return this.isKnown(key);
  }

  private async readKnown(): Promise<void> {
    this.knownReadAt = this.now();
    this.stats.knownReads += 1;
    const createdAfter = this.knownNewest ? new Date(this.knownNewest.getTime() - KNOWN_OVERLAP_MS) : undefined;
    const rows = await listUsableKeyHashes(this.db, { ...(createdAfter ? { createdAfter } : {}), limit: KNOWN_MAX });
    // Oldest first, so the newest keys are the last to be forgotten.
    for (let i = rows.length - 1; i >= 0; i -= 1) this.known.set(knownId(rows[i]!.key_hash), rows[i]!.id);
    const newest = rows[0]?.created_at;
    if (newest && (!this.knownNewest || newest > this.knownNewest)) this.knownNewest = newest;
  }

  /** The key and its account, or null when it does not exist or was revoked. An expired key resolves: the caller says so. */
  async resolve(key: string): Promise<ResolvedApiKey | null> {
    const hash = hashApiKey(key);
    const hit = this.valid.get(hash);
    if (hit && hit.expires > this.now()) return hit.key;
    const unknownUntil = this.unknown.get(hash);
    if (unknownUntil !== undefined && unknownUntil > this.now()) return null;
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
      this.unknown.set(hash, this.now() + UNKNOWN_TTL_MS);
      this.known.delete(knownId(hash));
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
      scopes: row.scopes,
    };
    this.unknown.delete(hash);
    this.valid.set(hash, { key, expires: this.now() + VALID_TTL_MS });
    this.known.set(knownId(hash), key.id);
    return key;
  }

  /** Drops what is cached for a key id (key_…) or for every key of an account (acc_…). */
  forget(id: string): void {
    this.valid.prune((_, entry) => entry.key.id === id || entry.key.accountId === id);
    // A key that was revoked no longer exists; an account's change leaves its keys in being.
    this.known.prune((_, keyId) => keyId === id);
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
