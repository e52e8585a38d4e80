// Account pages a signed-in browser may open: per session and per account, a minute at a time, counted
// in Redis so every web process counts together. A page costs the service real work (the Webhooks tab
// reads once per subscription, a new key is a row): an outside review had four signed-in loops raise
// another tenant's uncached API read from 2 to 422 ms, and one session make 300 keys in under 3 s.
// Fixed windows, counted in one script for both keys (the same Redis slot): a request over either limit
// is refused (429 + Retry-After) and counted on neither, so a held session does not spend its account's.
import type { Redis } from '../redis/connection.js';

export interface PageLimits {
  readonly perSessionPerMinute: number;
  readonly perAccountPerMinute: number;
}

// KEYS: session, account. ARGV: session limit, account limit, window seconds. 0, or the seconds to wait.
const TAKE = `
for i = 1, 2 do
  local count = tonumber(redis.call('GET', KEYS[i]) or '0')
  if count >= tonumber(ARGV[i]) then
    local t = redis.call('TTL', KEYS[i])
    if t < 1 then return 1 end
    return t
  end
end
for i = 1, 2 do
  if redis.call('INCR', KEYS[i]) == 1 then redis.call('EXPIRE', KEYS[i], ARGV[3]) end
end
return 0
`;

export class PageLimiter {
  constructor(
    private readonly redis: Redis,
    private readonly keyOf: (who: string) => string,
    private readonly limits: PageLimits,
  ) {}

  /** Counts one page of this session and account: null when it may be served, else how long to wait. */
  async take(sessionHash: string, accountId: string): Promise<{ retryAfterSeconds: number } | null> {
    const wait = Number(
      await this.redis.eval(
        TAKE,
        2,
        this.keyOf(`session:${sessionHash}`),
        this.keyOf(`account:${accountId}`),
        this.limits.perSessionPerMinute,
        this.limits.perAccountPerMinute,
        60,
      ),
    );
    return wait > 0 ? { retryAfterSeconds: wait } : null;
  }
}
