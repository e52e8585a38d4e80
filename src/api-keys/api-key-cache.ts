// Resolving a key costs a Postgres round trip, so resolved keys are cached in
// process. Revocation must still bite at once: `insights keys revoke`
// publishes the key id and every web process drops it. The TTL bounds the
// damage if a message is ever missed (e.g. Redis restarted mid-publish).
import type { Redis } from 'ioredis';
import type { Db } from '../db/connection.js';
import { hashApiKey } from '../domain/api-key.js';
import type { Plan } from '../domain/quota.js';
import { findActiveApiKeyByHash } from './api-key.repository.js';

export interface ResolvedApiKey {
  id: string;
  plan: Plan;
  name: string;
}

const TTL_MS = 60_000;
const MAX_ENTRIES = 10_000;

export class ApiKeyCache {
  private readonly byHash = new Map<string, { key: ResolvedApiKey | null; expires: number }>();

  constructor(private readonly db: Db) {}

  async resolve(key: string): Promise<ResolvedApiKey | null> {
    const hash = hashApiKey(key);
    const cached = this.byHash.get(hash);
    if (cached && cached.expires > Date.now()) return cached.key;
    const row = await findActiveApiKeyByHash(this.db, hash);
    const resolved = row ? { id: row.id, plan: row.plan, name: row.name } : null;
    if (this.byHash.size >= MAX_ENTRIES) this.byHash.clear();
    // Unknown keys are cached briefly too, so a flood of well-formed garbage cannot hammer Postgres.
    this.byHash.set(hash, { key: resolved, expires: Date.now() + (resolved ? TTL_MS : 5_000) });
    return resolved;
  }

  forget(apiKeyId: string): void {
    for (const [hash, entry] of this.byHash) {
      if (entry.key?.id === apiKeyId) this.byHash.delete(hash);
    }
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
