// The egress routes to Google (direct, or each proxy of TRENDS_PROXY_URLS),
// shared by every worker through Redis. Each route is paced in HTTPS requests,
// not jobs: one explore job sends up to seven requests, and Google counts them
// all, pages included. For each route:
//
//   pace       its next request slot: requests go out `60 000 / rate` ms apart
//              (± jitter), whichever job sends them, so the requests of one job
//              are spaced too;
//   cooldown   after a block (302 to /sorry, 429) nothing goes out until it ends;
//              it starts at TRENDS_COOLDOWN_MS and doubles with each block in a
//              row, up to TRENDS_COOLDOWN_MAX_MS (asking early makes Google's
//              block longer: trendspy #5, #13);
//   probe      when a cooldown ends, one job probes; the others wait for its
//              answer. Served: the route is open again. Blocked: a longer cooldown;
//   refused    a 400 pauses the route (TRENDS_REFUSED_PAUSE_MS) and the request
//              goes to another route (some proxies cause it: pytrends #602).
//
// And the budget: what each route sent in the last hour and today, and how
// Google answered, read by `insights budget` and /metrics.
import { randomUUID } from 'node:crypto';
import type { Redis } from '../redis/connection.js';
import type { EgressRoute } from './egress.js';

// Grants a route to a job: the first (from a rotating offset, so load spreads)
// that is neither refused, cooling nor waiting on another job's probe, and whose
// next slot is near. After a cooldown the route needs a probe: the first job
// gets it (a lease, renewed as it sends), the others wait for its answer.
// ARGV: now, job, lease ms, lookahead ms, offset, skip flags ("0101"), poll ms.
const ACQUIRE = `
local now = tonumber(ARGV[1])
local job = ARGV[2]
local lease = tonumber(ARGV[3])
local lookahead = tonumber(ARGV[4])
local offset = tonumber(ARGV[5])
local skip = ARGV[6]
local poll = tonumber(ARGV[7])
local n = #KEYS
local best = -1
local reason = ''
for j = 0, n - 1 do
  local i = ((offset + j) % n) + 1
  if string.sub(skip, i, i) ~= '1' then
    local k = KEYS[i]
    local f = redis.call('HMGET', k, 'refused_until', 'cool_until', 'needs_probe', 'probe_job', 'probe_until', 'next_at')
    local refused = tonumber(f[1] or '0')
    local cool = tonumber(f[2] or '0')
    local pjob = f[4]
    local puntil = tonumber(f[5] or '0')
    local nextAt = tonumber(f[6] or '0')
    local wait = -1
    local why = ''
    if refused > now then
      wait = refused - now
      why = 'refused'
    elseif cool > now then
      wait = cool - now
      why = 'cooling'
    elseif f[3] == '1' then
      if pjob and pjob ~= job and puntil > now then
        wait = math.min(poll, puntil - now)
        why = 'probe'
      else
        if pjob ~= job then redis.call('HINCRBY', k, 'probes', 1) end
        redis.call('HSET', k, 'probe_job', job, 'probe_until', now + lease)
        return {i, 1, 0, ''}
      end
    elseif nextAt - now > lookahead then
      wait = nextAt - now - lookahead
      why = 'busy'
    else
      return {i, 0, 0, ''}
    end
    if best < 0 or wait < best then
      best = wait
      reason = why
    end
  end
end
return {0, 0, best, reason}
`;

// The next request slot of a route for a job that holds it: refused when the
// route is cooling, refused, or being probed by another job; `busy` when the
// slot is further than the job may wait inside its request. A probe's lease is
// renewed with each request. KEYS: route, sent log, today's budget.
// ARGV: now, job, interval ms (jittered by the caller), max wait ms, lease ms, member, route name.
const RESERVE = `
local now = tonumber(ARGV[1])
local job = ARGV[2]
local f = redis.call('HMGET', KEYS[1], 'refused_until', 'cool_until', 'needs_probe', 'probe_job', 'next_at')
local refused = tonumber(f[1] or '0')
local cool = tonumber(f[2] or '0')
if refused > now then return {-1, refused - now, 'refused'} end
if cool > now then return {-1, cool - now, 'cooling'} end
if f[3] == '1' then
  if f[4] ~= job then return {-1, 1000, 'probe'} end
  redis.call('HSET', KEYS[1], 'probe_until', now + tonumber(ARGV[5]))
end
local slot = math.max(now, tonumber(f[5] or '0'))
if slot - now > tonumber(ARGV[4]) then return {-1, slot - now, 'busy'} end
redis.call('HSET', KEYS[1], 'next_at', slot + tonumber(ARGV[3]))
redis.call('ZADD', KEYS[2], slot, ARGV[6])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - 3600000)
redis.call('PEXPIRE', KEYS[2], 7200000)
redis.call('HINCRBY', KEYS[3], ARGV[7] .. '|requests', 1)
redis.call('EXPIRE', KEYS[3], 691200)
return {slot, 0, ''}
`;

// Google blocked a route. A new cooldown, twice as long as the last in a row,
// unless one is already running or another job holds the probe (a request that
// was in flight when the block began must not lengthen it).
// ARGV: now, job, base ms, max ms, jitter factor.
const BLOCKED = `
local now = tonumber(ARGV[1])
local job = ARGV[2]
local f = redis.call('HMGET', KEYS[1], 'cool_until', 'needs_probe', 'probe_job', 'streak')
local cool = tonumber(f[1] or '0')
if cool > now then return {0, cool - now} end
if f[2] == '1' and f[3] ~= job then return {0, 0} end
local streak = tonumber(f[4] or '0') + 1
local cooldown = math.floor(math.min(tonumber(ARGV[4]), tonumber(ARGV[3]) * 2 ^ math.min(20, streak - 1)) * tonumber(ARGV[5]))
redis.call('HSET', KEYS[1], 'streak', streak, 'cool_until', now + cooldown, 'needs_probe', 1, 'blocked_at', now, 'last_cooldown_ms', cooldown)
redis.call('HDEL', KEYS[1], 'probe_job', 'probe_until')
redis.call('HINCRBY', KEYS[1], 'cooldowns', 1)
return {1, cooldown}
`;

// Google answered a route (anything but a block): a probe that was waited for is over, and the route is open.
const ANSWERED = `
local f = redis.call('HMGET', KEYS[1], 'needs_probe', 'probe_job')
if f[1] == '1' and f[2] == ARGV[1] then
  redis.call('HSET', KEYS[1], 'needs_probe', 0, 'streak', 0)
  redis.call('HDEL', KEYS[1], 'probe_job', 'probe_until')
  return 1
end
return 0
`;

// A job leaves a route without an answer (a network error, a slot too far): its probe, if it held one, goes to the next job.
const RELEASE = `
if redis.call('HGET', KEYS[1], 'probe_job') == ARGV[1] then
  redis.call('HDEL', KEYS[1], 'probe_job', 'probe_until')
  return 1
end
return 0
`;

export interface EgressPoolOptions {
  /** HTTPS requests per minute each route may send; 0 = no pacing. */
  requestsPerMinute: number;
  /** First cooldown after a block; doubles per block in a row. */
  cooldownMs: number;
  /** The longest cooldown. */
  cooldownMaxMs: number;
  /** How long a route that got a 400 is left alone. */
  refusedPauseMs: number;
  /** Deadline of one request's talking to Google: a probe's lease outlives it. */
  requestTimeoutMs: number;
  /** Spread of the interval between requests (0.2: ± 20 %). */
  jitter?: number;
  /**
   * How many of a route's request slots ahead a job may wait for inside its
   * request (default 8: two jobs per route in each of four worker processes).
   * Past it the job waits outside, without an attempt. Too few and the jitter
   * alone sends a job that holds a route back to the queue between two of its
   * requests, where a job of lower priority takes its place.
   */
  paceWaitSlots?: number;
  random?: () => number;
}

/** Why a route cannot take a job (or a request) now. */
export type RouteWait = 'refused' | 'cooling' | 'probe' | 'busy';

export type Lease =
  | { route: EgressRoute; probe: boolean }
  | { waitMs: number; reason: RouteWait }
  /** Every route has refused this request (HTTP 400). */
  | { refusedEverywhere: true };

/** The route cannot take this request now: the job waits without spending an attempt. */
export class RouteWaitError extends Error {
  override name = 'RouteWaitError';
  constructor(
    readonly route: string,
    readonly waitMs: number,
    readonly reason: RouteWait,
  ) {
    super(`route ${route}: ${REASONS[reason]}; ${Math.ceil(waitMs / 1000)} s to wait`);
  }
}

const REASONS: Record<RouteWait, string> = {
  refused: 'paused after Google refused a request (400)',
  cooling: 'cooling down after Google blocked it',
  probe: 'another job is probing whether Google blocks it still',
  busy: 'its next request slot is taken',
};

/** A route's state as ops see it. */
export const ROUTE_STATES = ['open', 'cooling', 'probing', 'refused'] as const;
export type RouteState = (typeof ROUTE_STATES)[number];

/** How Google answered a job, for the day's counts. */
export const BOOKED_OUTCOMES = ['answers', 'blocked', 'refused', 'changed', 'errors'] as const;
export type BookedOutcome = (typeof BOOKED_OUTCOMES)[number];

export interface RouteBudget {
  route: string;
  /** HTTPS requests sent in the last 60 minutes. */
  requestsLastHour: number;
  /** HTTPS requests sent on the day (UTC). */
  requests: number;
  answers: number;
  blocked: number;
  refused: number;
  changed: number;
  errors: number;
  state: RouteState;
  /** How long the state lasts still (cooling, refused), 0 otherwise. */
  stateForMs: number;
  /** Blocks in a row (the cooldown doubles with each). */
  streak: number;
  /** Cooldowns started, and probes sent after them, since the route's state was created. */
  cooldowns: number;
  probes: number;
}

export class EgressPool {
  private offset = 0;
  private readonly random: () => number;

  constructor(
    private readonly redis: Redis,
    /** Key prefix for this pool's keys, e.g. "{si:trends}". */
    private readonly prefix: string,
    readonly routes: readonly EgressRoute[],
    readonly options: EgressPoolOptions,
  ) {
    this.random = options.random ?? Math.random;
  }

  private routeKey(route: EgressRoute | string): string {
    return `${this.prefix}:route:${typeof route === 'string' ? route : route.name}`;
  }

  private sentKey(route: EgressRoute): string {
    return `${this.routeKey(route)}:sent`;
  }

  private budgetKey(day: string): string {
    return `${this.prefix}:budget:${day}`;
  }

  /** Milliseconds between two requests of one route, jittered. */
  private interval(): number {
    if (this.options.requestsPerMinute <= 0) return 0;
    const spread = this.options.jitter ?? 0.2;
    return Math.round((60_000 / this.options.requestsPerMinute) * (1 - spread + 2 * spread * this.random()));
  }

  /** How long a job may wait inside its request for its route's next slot: `paceWaitSlots` of the longest jittered interval. */
  private get maxPaceWaitMs(): number {
    if (this.options.requestsPerMinute <= 0) return 0;
    const longest = (60_000 / this.options.requestsPerMinute) * (1 + (this.options.jitter ?? 0.2));
    return Math.max(1_000, Math.ceil((this.options.paceWaitSlots ?? 8) * longest));
  }

  /** A probe's lease: longer than a request with its paced exchanges, renewed with each one. */
  private get leaseMs(): number {
    return 2 * this.options.requestTimeoutMs + 2 * this.maxPaceWaitMs;
  }

  /** A route for `jobId` now, or how long until one will take it. `skip`: routes that refused this request. */
  async acquire(jobId: string, skip: readonly string[] = [], now = Date.now()): Promise<Lease> {
    this.offset = (this.offset + 1) % this.routes.length;
    const flags = this.routes.map((r) => (skip.includes(r.name) ? '1' : '0')).join('');
    if (!flags.includes('0')) return { refusedEverywhere: true };
    const [index, probe, waitMs, reason] = (await this.redis.eval(
      ACQUIRE,
      this.routes.length,
      ...this.routes.map((r) => this.routeKey(r)),
      now,
      jobId,
      this.leaseMs,
      // A route whose next slot the job may wait for inside its request: sent to wait elsewhere, a job
      // taken for its priority would let jobs of lower priority take the slots meanwhile.
      this.maxPaceWaitMs,
      this.offset,
      flags,
      1_000,
    )) as [number, number, number, string];
    if (index > 0) return { route: this.routes[index - 1]!, probe: probe === 1 };
    return { waitMs: Math.max(50, waitMs), reason: (reason || 'busy') as RouteWait };
  }

  /**
   * Before each HTTPS request of a job on `route`: waits for the route's next
   * slot, then checks the route is still open (a block reported while it
   * waited stops the request). Throws RouteWaitError when the request must not go.
   */
  async pace(route: EgressRoute, jobId: string): Promise<void> {
    const now = Date.now();
    const [slot, waitMs, reason] = (await this.redis.eval(
      RESERVE,
      3,
      this.routeKey(route),
      this.sentKey(route),
      this.budgetKey(new Date(now).toISOString().slice(0, 10)),
      now,
      jobId,
      this.interval(),
      this.maxPaceWaitMs,
      this.leaseMs,
      `${now}:${randomUUID()}`,
      route.name,
    )) as [number, number, string];
    if (slot < 0) throw new RouteWaitError(route.name, waitMs, reason as RouteWait);
    if (slot > now) {
      await new Promise((resolve) => setTimeout(resolve, slot - now));
      const [refused, cool, needsProbe, probeJob] = await this.redis.hmget(this.routeKey(route), 'refused_until', 'cool_until', 'needs_probe', 'probe_job');
      const at = Date.now();
      if (Number(refused ?? 0) > at) throw new RouteWaitError(route.name, Number(refused) - at, 'refused');
      if (Number(cool ?? 0) > at) throw new RouteWaitError(route.name, Number(cool) - at, 'cooling');
      if (needsProbe === '1' && probeJob !== jobId) throw new RouteWaitError(route.name, 1_000, 'probe');
    }
  }

  /** Google answered `route` (served, empty, no data, changed shape): a probe is over and the route open. */
  async answered(route: EgressRoute, jobId: string, outcome: Exclude<BookedOutcome, 'blocked' | 'refused' | 'errors'>): Promise<void> {
    await this.redis.eval(ANSWERED, 1, this.routeKey(route), jobId);
    await this.book(route, outcome);
  }

  /** Google blocked `route`: a cooldown, unless one runs already. Returns how long the job should wait, and whether a new cooldown started. */
  async blocked(route: EgressRoute, jobId: string, now = Date.now()): Promise<{ cooldownMs: number; started: boolean }> {
    const jitter = 0.9 + 0.2 * this.random();
    const [started, cooldownMs] = (await this.redis.eval(BLOCKED, 1, this.routeKey(route), now, jobId, this.options.cooldownMs, this.options.cooldownMaxMs, jitter)) as [
      number,
      number,
    ];
    await this.book(route, 'blocked');
    return { cooldownMs, started: started === 1 };
  }

  /** Google refused a request on `route` (400): the route pauses; the request goes elsewhere. */
  async refused(route: EgressRoute, jobId: string, now = Date.now()): Promise<void> {
    await this.redis.eval(ANSWERED, 1, this.routeKey(route), jobId);
    await this.redis.hset(this.routeKey(route), 'refused_until', now + this.options.refusedPauseMs);
    await this.book(route, 'refused');
  }

  /** A request refused on every route was the request's fault, not the routes': they open again. */
  async clearRefusals(routes: readonly string[]): Promise<void> {
    for (const route of routes) await this.redis.hdel(this.routeKey(route), 'refused_until');
  }

  /** The job leaves `route` without Google's answer (a network error, a timeout, a wait): its probe, if any, goes to the next job. */
  async release(route: EgressRoute, jobId: string, failed: boolean): Promise<void> {
    await this.redis.eval(RELEASE, 1, this.routeKey(route), jobId);
    if (failed) await this.book(route, 'errors');
  }

  private async book(route: EgressRoute, outcome: BookedOutcome, now = new Date()): Promise<void> {
    const day = this.budgetKey(now.toISOString().slice(0, 10));
    await this.redis.multi().hincrby(day, `${route.name}|${outcome}`, 1).expire(day, 8 * 86_400).exec();
  }

  /** Each route's requests (last hour, and `day`), Google's answers that day and its state now. */
  async budget(day = new Date().toISOString().slice(0, 10), now = Date.now()): Promise<RouteBudget[]> {
    const spent = await this.redis.hgetall(this.budgetKey(day));
    return Promise.all(
      this.routes.map(async (route) => {
        const [refused, cool, needsProbe, streak, cooldowns, probes] = await this.redis.hmget(
          this.routeKey(route),
          'refused_until',
          'cool_until',
          'needs_probe',
          'streak',
          'cooldowns',
          'probes',
        );
        const lastHour = await this.redis.zcount(this.sentKey(route), now - 3_600_000, '+inf');
        const n = (field: string) => Number(spent[`${route.name}|${field}`] ?? 0);
        const refusedFor = Number(refused ?? 0) - now;
        const coolFor = Number(cool ?? 0) - now;
        const state: RouteState = refusedFor > 0 ? 'refused' : coolFor > 0 ? 'cooling' : needsProbe === '1' ? 'probing' : 'open';
        return {
          route: route.name,
          requestsLastHour: lastHour,
          requests: n('requests'),
          answers: n('answers'),
          blocked: n('blocked'),
          refused: n('refused'),
          changed: n('changed'),
          errors: n('errors'),
          state,
          stateForMs: state === 'refused' ? refusedFor : state === 'cooling' ? coolFor : 0,
          streak: Number(streak ?? 0),
          cooldowns: Number(cooldowns ?? 0),
          probes: Number(probes ?? 0),
        };
      }),
    );
  }
}
