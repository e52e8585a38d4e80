// Resolving a key costs a Postgres round trip, so resolved keys are cached in
// process. Revocation must still bite at once: `insights keys revoke`
// publishes the key id and every web process drops it. The TTL bounds the
// damage if a message is ever missed (e.g. Redis restarted mid-publish).
//
// Unknown keys are remembered briefly in a cache of their own, so a flood of
// well-formed junk (the checksum is public) costs one lookup per key at most
// and can never evict the valid keys; concurrent lookups of one key share one
// query. Both caches drop their least recently used entries, never all at once.
import type { Redis } from '../redis/connection.js';
import type { Db } from '../db/connection.js';
import { hashApiKey } from '../domain/api-key.js';
import type { Plan } from '../domain/quota.js';
import { Lru } from '../domain/lru.js';
import { findActiveApiKeyByHash } from './api-key.repository.js';

export interface ResolvedApiKey {
  id: string;
  plan: Plan;
  name: string;
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

  /** The key if it is cached as valid now: no lookup, no cost. */
  peek(key: string): ResolvedApiKey | undefined {
    const hit = this.valid.get(hashApiKey(key));
    return hit && hit.expires > Date.now() ? hit.key : undefined;
  }

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
    const row = await findActiveApiKeyByHash(this.db, hash);
    if (!row) {
      this.unknown.set(hash, Date.now() + UNKNOWN_TTL_MS);
      return null;
    }
    const key = { id: row.id, plan: row.plan, name: row.name };
    this.unknown.delete(hash);
    this.valid.set(hash, { key, expires: Date.now() + VALID_TTL_MS });
    return key;
  }

  forget(apiKeyId: string): void {
    this.valid.prune((_, entry) => entry.key.id === apiKeyId);
  }

  /** Subscribes to revocations. Returns a function that unsubscribes. */
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

export async function announceRevocation(redis: Redis, channel: string, apiKeyId: string): Promise<void> {
  await redis.publish(channel, apiKeyId);
}
