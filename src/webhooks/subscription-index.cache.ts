// Each worker keeps the enabled subscriptions as a SubscriptionIndex and
// rebuilds it when the subscriptions change (a version key in Redis, bumped by
// every CLI change) or after 30 s at the latest (then in the background).
import type { Redis } from '../redis/connection.js';
import type { Db } from '../db/connection.js';
import { SubscriptionIndex } from '../domain/webhooks/matching.js';
import { enabledCriteria } from './subscription.repository.js';

export class SubscriptionIndexCache {
  private index: SubscriptionIndex | undefined;
  private version: string | null = null;
  private loadedAt = 0;
  /**
   * The rebuild under way: jobs that read the same version meanwhile wait for
   * it rather than each reading every subscription again (50 match jobs at
   * once did, when the index aged out during a burst).
   */
  private loading: { version: string | null; index: Promise<SubscriptionIndex> } | undefined;

  constructor(
    private readonly db: Db,
    private readonly redis: Redis,
    private readonly versionKey: string,
  ) {}

  async get(): Promise<SubscriptionIndex> {
    const version = await this.redis.get(this.versionKey);
    if (this.index && version === this.version && Date.now() - this.loadedAt <= 30_000) return this.index;
    // Only aged (no change was announced): the index in hand serves while it is rebuilt. Rebuilding
    // 100,000 subscriptions takes seconds on a loaded machine, and a burst's match jobs waited for it.
    const aged = this.index !== undefined && version === this.version;
    if (this.loading === undefined || this.loading.version !== version) {
      const loading = { version, index: this.rebuild(version) };
      this.loading = loading;
      void loading.index.then(
        () => this.loading === loading && (this.loading = undefined),
        () => this.loading === loading && (this.loading = undefined),
      );
    }
    if (aged) return this.index!;
    return this.loading.index;
  }

  private async rebuild(version: string | null): Promise<SubscriptionIndex> {
    const index = new SubscriptionIndex(await enabledCriteria(this.db));
    this.index = index;
    this.version = version;
    this.loadedAt = Date.now();
    return index;
  }
}

export async function bumpSubscriptionsVersion(redis: Redis, versionKey: string): Promise<void> {
  await redis.incr(versionKey);
}
