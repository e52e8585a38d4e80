// Bounds what clients without a valid key can cost: each address may fail to
// authenticate a few times a minute; past that it gets 429 at once, before any
// lookup. A token bucket per address, the addresses themselves in a bounded LRU.
import { Lru } from '../domain/lru.js';

export class FailedAuthLimiter {
  private readonly buckets = new Lru<string, { tokens: number; at: number }>(50_000);

  constructor(
    /** Failures an address may have in a burst. */
    private readonly burst = 20,
    /** Failures per minute it earns back. */
    private readonly perMinute = 20,
  ) {}

  private refill(address: string, now: number) {
    const bucket = this.buckets.get(address) ?? { tokens: this.burst, at: now };
    bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.at) / 60_000) * this.perMinute);
    bucket.at = now;
    return bucket;
  }

  /** Seconds until this address may try again, or 0 when it may try now. */
  retryAfterSeconds(address: string, now = Date.now()): number {
    const bucket = this.buckets.get(address);
    if (!bucket) return 0;
    const tokens = this.refill(address, now).tokens;
    return tokens >= 1 ? 0 : Math.ceil(((1 - tokens) * 60) / this.perMinute);
  }

  fail(address: string, now = Date.now()): void {
    const bucket = this.refill(address, now);
    bucket.tokens = Math.max(0, bucket.tokens - 1);
    this.buckets.set(address, bucket);
  }
}
