// The gate every delivery attempt passes (domain/webhooks/fairness.ts): one
// account's slots, and its subscription's circuit, kept in Redis so every
// worker sees them. A delivery that may not go now waits without spending an
// attempt; what it waits for is the answer.
import type { Redis } from '../redis/connection.js';
import type { DeliveryFairness } from '../domain/webhooks/fairness.js';
import { lua } from '../redis/lua.js';

// The Redis scripts, each in its .lua file with its KEYS, ARGV and answer at the top.
const ENTER = lua(import.meta.url, 'lua/delivery-gate.enter.lua');

const LEAVE = lua(import.meta.url, 'lua/delivery-gate.leave.lua');

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
