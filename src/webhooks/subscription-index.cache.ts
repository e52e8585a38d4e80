// Each worker keeps the enabled subscriptions as a SubscriptionIndex and
// rebuilds it when the subscriptions change (a version key in Redis, bumped by
// every CLI change) or after 30 s at the latest.
import type { Redis } from '../redis/connection.js';
import type { Db } from '../db/connection.js';
import { SubscriptionIndex } from '../domain/webhooks/matching.js';
import { enabledCriteria } from './subscription.repository.js';

export class SubscriptionIndexCache {
  private index: SubscriptionIndex | undefined;
  private version: string | null = null;
  private loadedAt = 0;

  constructor(
    private readonly db: Db,
    private readonly redis: Redis,
    private readonly versionKey: string,
  ) {}

  async get(): Promise<SubscriptionIndex> {
    const version = await this.redis.get(this.versionKey);
    if (!this.index || version !== this.version || Date.now() - this.loadedAt > 30_000) {
      this.index = new SubscriptionIndex(await enabledCriteria(this.db));
      this.version = version;
      this.loadedAt = Date.now();
    }
    return this.index;
  }
}

export async function bumpSubscriptionsVersion(redis: Redis, versionKey: string): Promise<void> {
  await redis.incr(versionKey);
}
