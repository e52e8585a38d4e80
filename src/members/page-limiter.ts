// Account pages a signed-in browser may open: per session and per account, a minute at a time, counted
// in Redis so every web process counts together. A page costs the service real work (a new key is a row;
// the Webhooks tab read twice per subscription until 2026-11-28, one query a page since): an outside review
// had four signed-in loops raise another tenant's uncached API read from 2 to 422 ms, and one session make
// 300 keys in under 3 s.
// Fixed windows, counted in one script for both keys (the same Redis slot): a request over either limit
// is refused (429 + Retry-After) and counted on neither, so a held session does not spend its account's.
import type { Redis } from '../redis/connection.js';
import { SCRIPTS } from '../redis/scripts.js';

export interface PageLimits {
  readonly perSessionPerMinute: number;
  readonly perAccountPerMinute: number;
}

// KEYS: session, account. Returns 0, or the seconds to wait.
const { take: TAKE } = SCRIPTS.pageLimiter;

export class PageLimiter {
  constructor(
    private readonly redis: Redis,
    private readonly keyOf: (who: string) => string,
    private readonly limits: PageLimits,
  ) {}

  /** Counts one page of this session and account: null when it may be served, else how long to wait. */
  async take(sessionHash: string, accountId: string): Promise<{ retryAfterSeconds: number } | null> {
    const wait = Number(
      await TAKE.run(
        this.redis,
        [this.keyOf(`session:${sessionHash}`), this.keyOf(`account:${accountId}`)],
        [this.limits.perSessionPerMinute, this.limits.perAccountPerMinute, 60],
      ),
    );
    return wait > 0 ? { retryAfterSeconds: wait } : null;
  }
}
