// The egress routes to Google (direct, or each proxy of TRENDS_PROXY_URLS),
// shared by every worker through Redis. Each route is paced in HTTPS requests,
// not jobs: one explore job sends up to seven requests, and Google counts them
// all, pages included. For each route:
//
//   pace       its next request slot: requests go out `60 000 / rate` ms apart
//              (± jitter), whichever job sends them, so the requests of one job
//              are spaced too;
//   explore    the explore family (/trends/api/explore and its cookie pages)
//              also takes a token from the route's bucket: Google limits it
//              as a token bucket (a burst of about 90–100, refilled at 60–120
//              a minute: gtrends, 2026-09-09), so ours holds TRENDS_EXPLORE_BURST
//              and refills at a rate learned from when Google's rate-limit 429s
//              arrive (egress-pool.bucket-empty-1.lua), starting at
//              TRENDS_EXPLORE_REFILL_PER_MINUTE; a rate-limit 429 empties it and
//              is waited out a token's time, not a cooldown;
//   cooldown   per endpoint family (explore, widgetdata, autocomplete, embed,
//              trending: ../families.ts), as Google blocks them (gtrends, 2026-09-09);
//              after a block (302 to /sorry, a 429 page, a 403, "unusual
//              traffic") nothing of that family goes out until it ends; it starts at
//              TRENDS_COOLDOWN_MS and doubles with each block in a row, up to
//              TRENDS_COOLDOWN_MAX_MS (asking early makes Google's block longer:
//              trendspy #5, #13), and lasts at least as long as Google's
//              Retry-After asks;
//   probe      when a cooldown ends, one job probes; the others wait for its
//              answer. Served: the route is open again. Blocked: a longer cooldown;
//   refused    a 400 pauses the route (TRENDS_REFUSED_PAUSE_MS) and the request
//              goes to another route (some proxies cause it: pytrends #602);
//   consent    Google's EU consent page (consent.google.com) sets the route
//              aside for CONSENT_ASIDE_MS, until the operator gives it a
//              consent cookie (TRENDS_CONSENT_COOKIES); its requests go to the
//              other routes;
//   in flight  one request at a time per route, whichever job sends it:
//              parallel requests of one client escalate to the /sorry block
//              (gtrends, 2026-09-09);
//   embed      the embed pages (related lists) have a quota of their own: a
//              second pace, TRENDS_EMBED_GAP_MS between two embed pages of the
//              route (± jitter), on top of its request pace; a token over the
//              embed quota closes the route's embed pages for
//              TRENDS_EMBED_COOLDOWN_MS, doubling while it keeps happening,
//              and leaves its other requests alone;
//   cookie     the route's NID cookie (RedisCookieJar), shared by every process,
//              replaced only when Google hands out a new one;
//   label      how Google labelled the route's client in its last token
//              (userConfig.userType), to warn when it changes.
//
// And the budget: what each route sent in the last hour and today, and how
// Google answered (blocks by kind, embed pages over quota), read by `insights
// budget` and /metrics.
import { randomUUID } from 'node:crypto';
import type { Redis } from '../../../redis/connection.js';
import type { EgressRoute } from './routes.js';
import { RedisCookieJar } from './redis-cookie-jar.js';
import { RouteWaitError, type Lease, type RouteWait } from './route-wait.js';
import { ENDPOINT_FAMILIES, type BlockKind, type EndpointFamily } from '../families.js';
import { SCRIPTS } from '../../../redis/scripts.js';
import { routeBudget, type BookedOutcome, type RouteBudget } from './route-budget.js';
import { EXPLORE_BUCKET, type EgressPoolOptions } from './egress-pool-options.js';
import { utcDay } from '../../../domain/utc-day.js';

// The Redis scripts, each in its .lua file with its KEYS, ARGV and answer at the top.
// ARGV: now, job, lease ms, lookahead ms, offset, skip flags, poll ms, embed flag. KEYS: every route.
const {
  acquire: ACQUIRE,
  reserve: RESERVE,
  bucketEmpty: BUCKET_EMPTY,
  blocked: BLOCKED,
  answered: ANSWERED,
  embedOverQuota: EMBED_OVER_QUOTA,
  label: LABEL,
  release: RELEASE,
  settle: SETTLE,
} = SCRIPTS.egressPool;

/** How long a route Google answered with its EU consent page stays aside: a restart with a consent cookie brings it back sooner. */
export const CONSENT_ASIDE_MS = 86_400_000;
/** How often a request waiting for its route's in-flight slot looks again. */
const IN_FLIGHT_POLL_MS = 25;
/** How many of its usual waits a job that has begun its exchanges may wait for its next slot (see pacers). */
const CONTINUING_WAIT_SLOTS = 6;

export { EXPLORE_BUCKET, type EgressPoolOptions } from './egress-pool-options.js';

/** Why a route cannot take a job (or a request) now. */
export { RouteWaitError, type Lease, type RouteWait } from './route-wait.js';
export { RedisCookieJar } from './redis-cookie-jar.js';

export { BOOKED_OUTCOMES, ROUTE_STATES, type BookedOutcome, type FamilyState, type RouteBudget, type RouteState } from './route-budget.js';

/** What the pool asks of a canary's result it keeps: when it was checked. The rest is the check's (GoogleCheck). */
export interface KeptCheck {
  checkedAt: string;
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

  /** Set (for a day) once Google was seen blocking an address whole, not one endpoint family (egress-pool.blocked-2.lua). */
  private get blocksWholeKey(): string {
    return `${this.prefix}:blocks-whole`;
  }

  private sentKey(route: EgressRoute): string {
    return `${this.routeKey(route)}:sent`;
  }

  /** The routes' cookies, kept beside their state (one hash tag: a cluster keeps them on one node). */
  get cookies(): RedisCookieJar {
    return new RedisCookieJar(this.redis, (route) => `${this.routeKey(route)}:cookie`);
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

  /** Milliseconds between two embed pages of one route, jittered the same way. */
  private embedGap(): number {
    const gap = this.options.embedGapMs ?? 8_000;
    if (gap <= 0) return 0;
    const spread = this.options.jitter ?? 0.2;
    return Math.max(1, Math.round(gap * (1 - spread + 2 * spread * this.random())));
  }

  /**
   * How long a job may wait inside its request for its route's next slot:
   * `paceWaitSlots` of the longest jittered interval, and at least two embed
   * gaps (an embed job's page waits for the route's embed slot).
   */
  private get maxPaceWaitMs(): number {
    const embed = 2 * (this.options.embedGapMs ?? 8_000) * (1 + (this.options.jitter ?? 0.2));
    if (this.options.requestsPerMinute <= 0) return Math.ceil(embed);
    const longest = (60_000 / this.options.requestsPerMinute) * (1 + (this.options.jitter ?? 0.2));
    return Math.max(1_000, Math.ceil(embed), Math.ceil((this.options.paceWaitSlots ?? 8) * longest));
  }

  /** A probe's lease: longer than a request with its paced exchanges, renewed with each one. */
  private get leaseMs(): number {
    return 2 * this.options.requestTimeoutMs + 2 * this.maxPaceWaitMs;
  }

  /**
   * A route for `jobId` now, or how long until one will take it. `skip`: routes
   * that refused this request; `embed`: the job sends embed pages (their quota
   * and pace count too).
   */
  async acquire(jobId: string, skip: readonly string[] = [], now = Date.now(), embed = false, family?: EndpointFamily): Promise<Lease> {
    this.offset = (this.offset + 1) % this.routes.length;
    const flags = this.routes.map((r) => (skip.includes(r.name) ? '1' : '0')).join('');
    if (!flags.includes('0')) return { refusedEverywhere: true };
    const [index, probe, waitMs, reason] = await ACQUIRE.run(
      this.redis,
      this.routes.map((r) => this.routeKey(r)),
      [
        now,
        jobId,
        this.leaseMs,
        // A route whose next slot the job may wait for inside its request: sent to wait elsewhere, a job
        // taken for its priority would let jobs of lower priority take the slots meanwhile.
        this.maxPaceWaitMs,
        this.offset,
        flags,
        1_000,
        embed ? '1' : '0',
        family ?? '',
      ],
    );
    if (index > 0) return { route: this.routes[index - 1]!, probe: probe === 1 };
    return { waitMs: Math.max(50, waitMs), reason: (reason || 'busy') as RouteWait };
  }

  /**
   * Before each HTTPS request of a job on `route`: waits for the route's next
   * slot, then checks the route is still open (a block reported while it
   * waited stops the request). Throws RouteWaitError when the request must not go.
   */
  async pace(route: EgressRoute, jobId: string, embed = false, family?: EndpointFamily, maxWaitMs = this.maxPaceWaitMs): Promise<void> {
    await this.waitForSlot(route, jobId, embed, maxWaitMs, family);
  }

  private get bucket(): { burst: number; first: number; least: number; most: number } {
    const refill = this.options.exploreRefillPerMinute ?? EXPLORE_BUCKET.refill;
    return { burst: this.options.exploreBurst ?? EXPLORE_BUCKET.burst, ...refill };
  }

  /**
   * Google answered `route`'s explore family with its rate limit (a plain 429
   * with no new cookie): the route's bucket is empty and its refill learned
   * (egress-pool.bucket-empty-1.lua). Returns how long until its next token,
   * and the refill a minute now kept.
   */
  async exploreRateLimited(route: EgressRoute, jobId: string, now = Date.now()): Promise<{ waitMs: number; refillPerMinute: number }> {
    await RELEASE.run(this.redis, [this.routeKey(route)], [jobId, ...ENDPOINT_FAMILIES]);
    const { first, least } = this.bucket;
    const [waitMs, refill] = await BUCKET_EMPTY.run(this.redis, [this.routeKey(route)], [now, first, least]);
    await this.bookField(route, 'rate_limited');
    return { waitMs, refillPerMinute: Number(refill) };
  }

  /**
   * The route's one in-flight slot, taken until the request settles (or its
   * deadline has long passed): a token to give it back with. Waits for it
   * up to the longest pace wait, then throws RouteWaitError (busy).
   */
  private async takeInFlight(route: EgressRoute, maxWaitMs = this.maxPaceWaitMs): Promise<string> {
    const token = randomUUID();
    const key = `${this.routeKey(route)}:inflight`;
    const deadline = Date.now() + maxWaitMs;
    for (;;) {
      if ((await this.redis.set(key, token, 'PX', this.options.requestTimeoutMs + 5_000, 'NX')) === 'OK') return token;
      if (Date.now() >= deadline) throw new RouteWaitError(route.name, IN_FLIGHT_POLL_MS * 4, 'busy');
      await new Promise((resolve) => setTimeout(resolve, IN_FLIGHT_POLL_MS));
    }
  }

  private async waitForSlot(route: EgressRoute, jobId: string, embed: boolean, maxWaitMs: number, family?: EndpointFamily): Promise<void> {
    const { burst, first, most } = this.bucket;
    const now = Date.now();
    const [slot, waitMs, reason] = await RESERVE.run(
      this.redis,
      [this.routeKey(route), this.sentKey(route), this.budgetKey(utcDay(new Date(now)))],
      [
        now,
        jobId,
        this.interval(),
        maxWaitMs,
        this.leaseMs,
        `${now}:${randomUUID()}`,
        route.name,
        embed ? this.embedGap() : 0,
        embed ? '1' : '0',
        family ?? '',
        burst,
        first,
        most,
      ],
    );
    if (slot < 0) throw new RouteWaitError(route.name, waitMs, reason as RouteWait);
    if (slot > now) {
      await new Promise((resolve) => setTimeout(resolve, slot - now));
      await this.stillOpen(route, jobId, embed, family);
    }
  }

  /**
   * Throws RouteWaitError when the route, or the family's requests, closed
   * while the request waited (for its slot, or for the route's in-flight
   * slot): a block, a refusal or the EU consent page another job met is not
   * followed into.
   */
  private async stillOpen(route: EgressRoute, jobId: string, embed: boolean, family?: EndpointFamily): Promise<void> {
    const sfx = family ? `:${family}` : '';
    const [refused, cool, needsProbe, probeJob, embedCool, familyCool, familyProbe, familyProbeJob, consent] = await this.redis.hmget(
      this.routeKey(route),
      'refused_until',
      'cool_until',
      'needs_probe',
      'probe_job',
      'embed_cool_until',
      `cool_until${sfx}`,
      `needs_probe${sfx}`,
      `probe_job${sfx}`,
      'consent_until',
    );
    const at = Date.now();
    if (Number(consent ?? 0) > at) throw new RouteWaitError(route.name, Number(consent) - at, 'consent');
    const coolUntil = Math.max(Number(cool ?? 0), Number(familyCool ?? 0));
    if (Number(refused ?? 0) > at) throw new RouteWaitError(route.name, Number(refused) - at, 'refused');
    if (coolUntil > at) throw new RouteWaitError(route.name, coolUntil - at, 'cooling');
    if (needsProbe === '1' && probeJob !== jobId) throw new RouteWaitError(route.name, 1_000, 'probe');
    if (familyProbe === '1' && familyProbeJob !== jobId) throw new RouteWaitError(route.name, 1_000, 'probe');
    // An embed page waiting for its slot when Google said the embed quota was spent does not follow into it.
    if (embed && Number(embedCool ?? 0) > at) throw new RouteWaitError(route.name, Number(embedCool) - at, 'embed_quota');
  }

  /**
   * The pacers of a job on `route`: every request, and embed pages (which take
   * an embed slot too); `sent` after each request gives the route's in-flight
   * slot back.
   */
  pacers(
    route: EgressRoute,
    jobId: string,
  ): {
    pace: (family?: EndpointFamily) => Promise<void>;
    paceEmbed: (family?: EndpointFamily) => Promise<void>;
    sent: () => Promise<void>;
  } {
    let held: string | undefined;
    let started = false;
    const take = async (embed: boolean, family?: EndpointFamily) => {
      // A job that has sent a request waits longer for its next one: giving up then would throw away what it spent
      // (an explore whose widgets are never asked is asked again from the start). Measured by bench:google
      // (2026-11-29): with many jobs on one route, 3 to 5 explores a run were asked twice this way.
      const paceWait = started ? CONTINUING_WAIT_SLOTS * this.maxPaceWaitMs : this.maxPaceWaitMs;
      const inFlightWait = started ? Math.max(paceWait, this.options.requestTimeoutMs + 5_000) : this.maxPaceWaitMs;
      await this.pace(route, jobId, embed, family, paceWait);
      const token = await this.takeInFlight(route, inFlightWait);
      try {
        await this.stillOpen(route, jobId, embed, family);
      } catch (error) {
        await SETTLE.run(this.redis, [`${this.routeKey(route)}:inflight`], [token]);
        throw error;
      }
      held = token;
      started = true;
    };
    return {
      pace: (family) => take(false, family),
      paceEmbed: (family) => take(true, family ?? 'embed'),
      sent: async () => {
        if (held === undefined) return;
        const token = held;
        held = undefined;
        await SETTLE.run(this.redis, [`${this.routeKey(route)}:inflight`], [token]);
      },
    };
  }

  /** Google answered `route` with its EU consent page: the route is set aside (its requests go elsewhere). Returns how long. */
  async consentRequired(route: EgressRoute, jobId: string, now = Date.now()): Promise<number> {
    await ANSWERED.run(this.redis, [this.routeKey(route)], [jobId, ...ENDPOINT_FAMILIES]);
    await this.redis.hset(this.routeKey(route), 'consent_until', now + CONSENT_ASIDE_MS);
    await this.bookField(route, 'consent');
    return CONSENT_ASIDE_MS;
  }

  /** Google answered `route` (served, empty, no data, changed shape): a probe is over and the route open. */
  async answered(
    route: EgressRoute,
    jobId: string,
    outcome: Exclude<BookedOutcome, 'blocked' | 'refused' | 'errors' | 'over_quota'>,
    options: { embed?: boolean } = {},
  ): Promise<void> {
    await ANSWERED.run(this.redis, [this.routeKey(route)], [jobId, ...ENDPOINT_FAMILIES]);
    // An embed page within the quota: the next over-quota wait starts from the shortest again.
    if (options.embed && outcome === 'answers') await this.redis.hset(this.routeKey(route), 'embed_streak', 0);
    await this.book(route, outcome);
  }

  /**
   * Google answered the requests a job sent before one of `blockedFamily` was blocked (a block met later in a job:
   * its explore answered, then its widget data blocked): the probes it holds, of the route and of the other
   * families, are over. Outside review of issue 51: an explore probe Google had answered stayed held until its
   * lease ran out. Called before `blocked`, and only when the job's first request was answered.
   */
  async answeredBeforeBlock(route: EgressRoute, jobId: string, blockedFamily: EndpointFamily): Promise<void> {
    await ANSWERED.run(this.redis, [this.routeKey(route)], [jobId, ...ENDPOINT_FAMILIES.filter((f) => f !== blockedFamily)]);
  }

  /**
   * Google blocked `route`: a cooldown, unless one runs already, at least as
   * long as Google's Retry-After. Returns how long the job should wait, and
   * whether a new cooldown started.
   */
  async blocked(
    route: EgressRoute,
    jobId: string,
    now = Date.now(),
    block: { kind?: BlockKind; retryAfterMs?: number; family?: EndpointFamily } = {},
  ): Promise<{ cooldownMs: number; started: boolean }> {
    const jitter = 0.9 + 0.2 * this.random();
    const asked = Math.max(0, Math.round(block.retryAfterMs ?? 0));
    const [started, cooldownMs] = await BLOCKED.run(
      this.redis,
      [this.routeKey(route), this.blocksWholeKey],
      [now, jobId, this.options.cooldownMs, this.options.cooldownMaxMs, jitter, asked, block.family ?? '', ...ENDPOINT_FAMILIES],
    );
    await this.book(route, 'blocked');
    if (block.kind) await this.bookField(route, `blocked_${block.kind}`);
    if (block.family) await this.bookField(route, `blocked_${block.family}`);
    return { cooldownMs, started: started === 1 };
  }

  /** A token over the embed quota on `route`: its embed pages wait (its other requests do not). Returns how long. */
  async embedOverQuota(route: EgressRoute, jobId: string, now = Date.now()): Promise<number> {
    await RELEASE.run(this.redis, [this.routeKey(route)], [jobId, ...ENDPOINT_FAMILIES]);
    const waitMs = Number(
      await EMBED_OVER_QUOTA.run(
        this.redis,
        [this.routeKey(route)],
        [now, this.options.embedCooldownMs ?? 300_000, Math.max(this.options.cooldownMaxMs, this.options.embedCooldownMs ?? 300_000)],
      ),
    );
    await this.book(route, 'over_quota');
    return waitMs;
  }

  /**
   * Keeps the latest scheduled canary's result (a week), for `insights budget` and /metrics. What a check holds
   * is the Google client's (GoogleCheck, src/providers/google/check.ts); the pool only keeps it beside the routes.
   */
  async saveCheck(check: KeptCheck): Promise<void> {
    await this.redis.set(`${this.prefix}:check`, JSON.stringify(check), 'EX', 7 * 86_400);
  }

  /** The latest scheduled canary's result, if one ran this week. */
  async lastCheck<C extends KeptCheck>(): Promise<C | null> {
    return readLastCheck<C>(this.redis, this.prefix);
  }

  /** Records how Google labelled the route's client; returns the label before it when it changed (null: the first seen). */
  async labelled(route: EgressRoute, userType: string, now = new Date()): Promise<{ changed: boolean; before: string | null }> {
    const before = await LABEL.run(this.redis, [this.routeKey(route)], [userType, now.toISOString()]);
    return { changed: before !== null && before !== userType, before };
  }

  /** Google refused a request on `route` (400): the route pauses; the request goes elsewhere. */
  async refused(route: EgressRoute, jobId: string, now = Date.now()): Promise<void> {
    await ANSWERED.run(this.redis, [this.routeKey(route)], [jobId, ...ENDPOINT_FAMILIES]);
    await this.redis.hset(this.routeKey(route), 'refused_until', now + this.options.refusedPauseMs);
    await this.book(route, 'refused');
  }

  /** A request refused on every route was the request's fault, not the routes': they open again. */
  async clearRefusals(routes: readonly string[]): Promise<void> {
    for (const route of routes) await this.redis.hdel(this.routeKey(route), 'refused_until');
  }

  /** The job leaves `route` without Google's answer (a network error, a timeout, a wait): its probe, if any, goes to the next job. */
  async release(route: EgressRoute, jobId: string, failed: boolean): Promise<void> {
    await RELEASE.run(this.redis, [this.routeKey(route)], [jobId, ...ENDPOINT_FAMILIES]);
    if (failed) await this.book(route, 'errors');
  }

  private async book(route: EgressRoute, outcome: BookedOutcome, now = new Date()): Promise<void> {
    await this.bookField(route, outcome, now);
    // Anything but no answer at all: Google (or what answers as Google) was reached on this route.
    if (outcome !== 'errors') await this.redis.hset(this.routeKey(route), 'last_answer_at', now.getTime());
  }

  /** Whether Google ever answered `route` (kept with its state): a route that never reached it is not told apart from a broken one by retrying. */
  async hasHadAnswer(route: EgressRoute): Promise<boolean> {
    return (await this.redis.hexists(this.routeKey(route), 'last_answer_at')) === 1;
  }

  private async bookField(route: EgressRoute, field: string, now = new Date()): Promise<void> {
    const day = this.budgetKey(utcDay(now));
    await this.redis
      .multi()
      .hincrby(day, `${route.name}|${field}`, 1)
      .expire(day, 8 * 86_400)
      .exec();
  }

  /** Each route's requests (last hour, and `day`), Google's answers that day and its state now (route-budget.ts). */
  async budget(day = utcDay(new Date()), now = Date.now()): Promise<RouteBudget[]> {
    const spent = await this.redis.hgetall(this.budgetKey(day));
    const { burst, first } = this.bucket;
    return Promise.all(
      this.routes.map((route) =>
        routeBudget(this.redis, {
          route,
          key: this.routeKey(route),
          sentKey: this.sentKey(route),
          blocksWholeKey: this.blocksWholeKey,
          spent,
          now,
          burst,
          firstRefill: first,
        }),
      ),
    );
  }
}

/** The latest scheduled canary's result kept under the pool's `prefix`, if one ran this week: readable without the pool (the web process has no routes). */
export async function readLastCheck<C extends KeptCheck>(redis: Redis, prefix: string): Promise<C | null> {
  const raw = await redis.get(`${prefix}:check`);
  if (!raw) return null;
  try {
    return JSON.parse(raw) as C;
  } catch {
    return null;
  }
}
