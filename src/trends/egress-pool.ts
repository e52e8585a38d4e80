// The egress routes to Google (direct, or each proxy of TRENDS_PROXY_URLS),
// shared by every worker through Redis: each route has its own request rate
// (a token bucket) and its own pause after Google answers it 429, so one
// blocked proxy does not stop the others. And the budget: what each route
// spent today, read by `insights budget` and /metrics.
import type { Redis } from '../redis/connection.js';
import type { EgressRoute } from './egress.js';

// Takes a token from the first route (starting at a rotating offset, so load
// spreads) that is not paused and has one; else answers how long until one will.
const ACQUIRE = `
local now = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local burst = tonumber(ARGV[3])
local n = #KEYS
local best = -1
for j = 0, n - 1 do
  local i = ((tonumber(ARGV[4]) + j) % n) + 1
  local k = KEYS[i]
  local paused = tonumber(redis.call('HGET', k, 'paused_until') or '0')
  local tokens = tonumber(redis.call('HGET', k, 'tokens') or burst)
  local at = tonumber(redis.call('HGET', k, 'at') or now)
  if rate > 0 then tokens = math.min(burst, tokens + (now - at) * rate / 60000) else tokens = burst end
  if paused <= now and tokens >= 1 then
    redis.call('HSET', k, 'tokens', tokens - 1, 'at', now)
    return {i, 0}
  end
  redis.call('HSET', k, 'tokens', tokens, 'at', now)
  local wait = paused - now
  if rate > 0 and tokens < 1 then wait = math.max(wait, math.ceil((1 - tokens) * 60000 / rate)) end
  if best < 0 or wait < best then best = wait end
end
return {0, best}
`;

// Google said 429 to this route: pause it, twice as long as last time in a row.
const PAUSE = `
local streak = redis.call('HINCRBY', KEYS[1], 'streak', 1)
local pause = math.min(tonumber(ARGV[3]), tonumber(ARGV[2]) * 2 ^ math.min(10, streak - 1))
redis.call('HSET', KEYS[1], 'paused_until', tonumber(ARGV[1]) + pause)
return pause
`;

export interface EgressPoolOptions {
  /** Requests (trends jobs) per minute each route may make; 0 = no limit. */
  ratePerMinute: number;
  /** First pause after a 429; doubles per 429 in a row. */
  basePauseMs: number;
  maxPauseMs?: number;
}

export type Lease = { route: EgressRoute } | { waitMs: number };

export interface RouteBudget {
  route: string;
  answers: number;
  requests: number;
  rateLimited: number;
  errors: number;
  pausedForMs: number;
  streak: number;
}

export class EgressPool {
  private offset = 0;

  constructor(
    private readonly redis: Redis,
    /** Key prefix for this pool's keys, e.g. "si:trends". */
    private readonly prefix: string,
    readonly routes: readonly EgressRoute[],
    private readonly options: EgressPoolOptions,
  ) {}

  private routeKey(route: EgressRoute): string {
    return `${this.prefix}:route:${route.name}`;
  }

  private budgetKey(day: string): string {
    return `${this.prefix}:budget:${day}`;
  }

  /** A route to use now, or how long until one is free. */
  async acquire(now = Date.now()): Promise<Lease> {
    this.offset = (this.offset + 1) % this.routes.length;
    const burst = Math.max(1, Math.ceil(this.options.ratePerMinute / 6));
    const [index, waitMs] = (await this.redis.eval(
      ACQUIRE,
      this.routes.length,
      ...this.routes.map((r) => this.routeKey(r)),
      now,
      this.options.ratePerMinute,
      burst,
      this.offset,
    )) as [number, number];
    return index > 0 ? { route: this.routes[index - 1]! } : { waitMs: Math.max(50, waitMs) };
  }

  /** Google answered through `route`: its 429 streak ends. */
  async succeeded(route: EgressRoute, requests: number, now = new Date()): Promise<void> {
    const day = this.budgetKey(now.toISOString().slice(0, 10));
    await this.redis
      .multi()
      .hset(this.routeKey(route), 'streak', 0)
      .hincrby(day, `${route.name}|answers`, 1)
      .hincrby(day, `${route.name}|requests`, requests)
      .expire(day, 8 * 86_400)
      .exec();
  }

  /** Google refused `route` (429, "sorry"): pause it. Returns the pause. */
  async rateLimited(route: EgressRoute, requests: number, now = new Date()): Promise<number> {
    const day = this.budgetKey(now.toISOString().slice(0, 10));
    const pause = Number(await this.redis.eval(PAUSE, 1, this.routeKey(route), now.getTime(), this.options.basePauseMs, this.options.maxPauseMs ?? 600_000));
    await this.redis.multi().hincrby(day, `${route.name}|rate_limited`, 1).hincrby(day, `${route.name}|requests`, requests).expire(day, 8 * 86_400).exec();
    return pause;
  }

  async failed(route: EgressRoute, requests: number, now = new Date()): Promise<void> {
    const day = this.budgetKey(now.toISOString().slice(0, 10));
    await this.redis.multi().hincrby(day, `${route.name}|errors`, 1).hincrby(day, `${route.name}|requests`, requests).expire(day, 8 * 86_400).exec();
  }

  /** What each route spent on `day` (UTC), and whether it is paused now. */
  async budget(day = new Date().toISOString().slice(0, 10), now = Date.now()): Promise<RouteBudget[]> {
    const spent = await this.redis.hgetall(this.budgetKey(day));
    return Promise.all(
      this.routes.map(async (route) => {
        const state = await this.redis.hmget(this.routeKey(route), 'paused_until', 'streak');
        const n = (field: string) => Number(spent[`${route.name}|${field}`] ?? 0);
        return {
          route: route.name,
          answers: n('answers'),
          requests: n('requests'),
          rateLimited: n('rate_limited'),
          errors: n('errors'),
          pausedForMs: Math.max(0, Number(state[0] ?? 0) - now),
          streak: Number(state[1] ?? 0),
        };
      }),
    );
  }
}
