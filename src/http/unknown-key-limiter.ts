// Bounds what clients without a valid key can cost: Postgres lookups of keys
// that turn out not to exist. Each client may have a few such lookups in a
// burst and a few a minute after that; past that its unknown keys get 429
// before any lookup. A try is taken before the lookup, in the same turn of the
// event loop as the check, so concurrent requests cannot all pass the check
// before any of them is counted; a lookup that finds a valid key gives its try
// back. Keys known to exist never wait on this (see ApiKeyCache.isKnown): the
// limit throttles lookups, not keys, so a valid key works whatever its
// neighbours behind the same address send.
//
// A client is its IPv4 address, or the /64 of its IPv6 address (one subscriber's
// usual allocation: counting single IPv6 addresses would give one attacker 2^64
// budgets). The buckets themselves sit in a bounded LRU.
import { Lru } from '../domain/lru.js';
import { clientGroup, parseIp } from '../domain/ip.js';

/** The key a client's failures are counted under (IPv6: its /64; sign-in counts /48s, see signInClientKey). */
export function clientKey(address: string, ipv6Prefix: 48 | 64 = 64): string {
  const parsed = parseIp(address);
  // Not an address: a trusted proxy passed on an X-Forwarded-For it did not
  // append to. Such clients share one budget, so made-up values cannot each
  // mint a budget of their own.
  if (!parsed) return 'unparseable';
  return clientGroup(parsed, ipv6Prefix);
}

/** The client a sign-in attempt is counted under: an IPv6 /48 is one client there (sign-in-limiter.ts). */
export const signInClientKey = (address: string): string => clientKey(address, 48);

export class UnknownKeyLimiter {
  private readonly buckets = new Lru<string, { tokens: number; at: number }>(50_000);

  constructor(
    /** Failed lookups a client may have in a burst. */
    private readonly burst = 20,
    /** Failed lookups per minute it earns back. */
    private readonly perMinute = 20,
  ) {}

  private bucket(client: string, now: number) {
    const bucket = this.buckets.get(client) ?? { tokens: this.burst, at: now };
    bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.at) / 60_000) * this.perMinute);
    bucket.at = now;
    this.buckets.set(client, bucket);
    return bucket;
  }

  /** Takes one try for a lookup: 0 when taken, else the seconds until this client may try again. */
  take(address: string, now = Date.now()): number {
    const bucket = this.bucket(clientKey(address), now);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.ceil(((1 - bucket.tokens) * 60) / this.perMinute);
  }

  /** The lookup found a valid key: its try was not a failure. */
  refund(address: string, now = Date.now()): void {
    const bucket = this.bucket(clientKey(address), now);
    bucket.tokens = Math.min(this.burst, bucket.tokens + 1);
  }
}
