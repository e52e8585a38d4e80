// The gate every delivery attempt passes (domain/webhooks/fairness.ts): one
// account's slots, and its subscription's circuit, kept in Redis so every
// worker sees them. A delivery that may not go now waits without spending an
// attempt; what it waits for is the answer.
import type { Redis } from '../redis/connection.js';
import type { DeliveryFairness } from '../domain/webhooks/fairness.js';

// KEYS: the account's in-flight set, the subscription's circuit.
// ARGV: now, job, lease ms, per-account slots, failures to trip.
// Returns {1, 0, ''} to go, or {0, wait ms, why}.
const ENTER = `
local now = tonumber(ARGV[1])
local job = ARGV[2]
local lease = tonumber(ARGV[3])
local c = redis.call('HMGET', KEYS[2], 'open_until', 'failures', 'probe_job', 'probe_until')
local openUntil = tonumber(c[1] or '0')
if openUntil > now then return {0, openUntil - now, 'circuit'} end
local halfOpen = tonumber(c[2] or '0') >= tonumber(ARGV[5])
if halfOpen and c[3] and c[3] ~= job and tonumber(c[4] or '0') > now then return {0, tonumber(c[4]) - now, 'probe'} end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if not redis.call('ZSCORE', KEYS[1], job) and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then
  return {0, 0, 'account'}
end
redis.call('ZADD', KEYS[1], now + lease, job)
redis.call('PEXPIRE', KEYS[1], lease * 2)
if halfOpen then redis.call('HSET', KEYS[2], 'probe_job', job, 'probe_until', now + lease) end
return {1, 0, ''}
`;

// KEYS: the account's in-flight set, the subscription's circuit.
// ARGV: now, job, outcome ('ok', 'failing', 'other'), failures to trip, open ms, max open ms.
const LEAVE = `
local now = tonumber(ARGV[1])
redis.call('ZREM', KEYS[1], ARGV[2])
if ARGV[3] == 'ok' then
  redis.call('DEL', KEYS[2])
  return 0
end
if redis.call('HGET', KEYS[2], 'probe_job') == ARGV[2] then redis.call('HDEL', KEYS[2], 'probe_job', 'probe_until') end
if ARGV[3] ~= 'failing' then return 0 end
local failures = redis.call('HINCRBY', KEYS[2], 'failures', 1)
local trip = tonumber(ARGV[4])
local open = 0
if failures >= trip then
  open = math.min(tonumber(ARGV[6]), tonumber(ARGV[5]) * 2 ^ math.min(20, failures - trip))
  redis.call('HSET', KEYS[2], 'open_until', now + open)
end
redis.call('PEXPIRE', KEYS[2], math.max(open * 4, 86400000))
return open
`;

export type GateRefusal = 'account' | 'circuit' | 'probe';

export class DeliveryGate {
  constructor(
    private readonly redis: Redis,
    private readonly keys: { inFlight: (owner: string) => string; circuit: (subscriptionId: string) => string },
    private readonly fairness: DeliveryFairness,
    /** How long a slot is held at most: an attempt's deadline and some (a crashed worker's slot frees itself). */
    private readonly leaseMs: number,
  ) {}

  /** Takes a slot for `job` of `owner`'s subscription, or says how long (and why) to wait. */
  async enter(
    owner: string,
    subscriptionId: string,
    job: string,
    now = Date.now(),
  ): Promise<{ go: true } | { go: false; waitMs: number; why: GateRefusal }> {
    const [go, waitMs, why] = (await this.redis.eval(
      ENTER,
      2,
      this.keys.inFlight(owner),
      this.keys.circuit(subscriptionId),
      now,
      job,
      this.leaseMs,
      this.fairness.perAccount,
      this.fairness.circuit.failures,
    )) as [number, number, string];
    return go === 1 ? { go: true } : { go: false, waitMs, why: why as GateRefusal };
  }

  /** Gives the slot back and tells the circuit how the receiver answered; answers how long it is now open (0: closed). */
  async leave(owner: string, subscriptionId: string, job: string, outcome: 'ok' | 'failing' | 'other', now = Date.now()): Promise<number> {
    const { failures, openMs, maxOpenMs } = this.fairness.circuit;
    return Number(
      await this.redis.eval(
        LEAVE,
        2,
        this.keys.inFlight(owner),
        this.keys.circuit(subscriptionId),
        now,
        job,
        outcome,
        failures,
        openMs,
        maxOpenMs,
      ),
    );
  }
}
