// The gate every delivery attempt passes (domain/webhooks/fairness.ts): one
// account's slots, and its subscription's circuit, kept in Redis so every
// worker sees them. A delivery its account's slots refuse is parked: it sleeps
// until the account frees a slot, and the slot is handed to it then (the
// account's parked jobs go in arrival order; the job that freed it may send
// it in its stead: delivery-runner.ts carryOn); nothing asks again on a timer.
// Deliveries enqueued while their account's slots are full are parked as they
// are enqueued (admit), so workers take only deliveries that may go. What the
// circuit refuses waits without spending an attempt; what it waits for is the
// answer. Every key is in the webhooks queue's hash tag.
import type { Redis } from '../redis/connection.js';
import type { DeliveryFairness } from '../domain/webhooks/fairness.js';
import { SCRIPTS } from '../redis/scripts.js';

// The Redis scripts, each in its .lua file with its KEYS, ARGV and answer at the top.
const { enter: ENTER, leave: LEAVE, admit: ADMIT, claimWakes: CLAIM_WAKES } = SCRIPTS.deliveryGate;

export type GateRefusal = 'account' | 'circuit' | 'probe';

export interface GateKeys {
  inFlight: (owner: string) => string;
  circuit: (subscriptionId: string) => string;
  parked: (owner: string) => string;
  wakes: string;
}

/** How long a slot handed to a parked job is kept for it: it is woken at once and asks within milliseconds. */
export const WAKE_LEASE_MS = 10_000;

export class DeliveryGate {
  constructor(
    private readonly redis: Redis,
    private readonly keys: GateKeys,
    private readonly fairness: DeliveryFairness,
    /** How long a slot is held at most: an attempt's deadline and some (a crashed worker's slot frees itself). */
    private readonly leaseMs: number,
  ) {}

  /** The subscriptions of an account's parked jobs (job → subscription), beside its parked set. */
  private parkedSubscriptions(owner: string): string {
    return `${this.keys.parked(owner)}:subscriptions`;
  }

  /** Takes a slot for `job` of `owner`'s subscription, or says how long (and why) to wait; a job the account's slots refuse is parked. */
  async enter(
    owner: string,
    subscriptionId: string,
    job: string,
    now = Date.now(),
  ): Promise<{ go: true } | { go: false; waitMs: number; why: GateRefusal }> {
    const [go, waitMs, why] = await ENTER.run(
      this.redis,
      [this.keys.inFlight(owner), this.keys.circuit(subscriptionId), this.keys.parked(owner), this.parkedSubscriptions(owner)],
      [now, job, this.leaseMs, this.fairness.perAccount, this.fairness.circuit.failures, subscriptionId],
    );
    return go === 1 ? { go: true } : { go: false, waitMs, why: why as GateRefusal };
  }

  /**
   * Gives the slot back and tells the circuit how the receiver answered:
   * answers how long it is now open (0: closed), and the account's parked job
   * the slot was handed to, if any (the caller wakes it).
   */
  async leaveAndWake(
    owner: string,
    subscriptionId: string,
    job: string,
    outcome: 'ok' | 'failing' | 'other',
    now = Date.now(),
  ): Promise<{ openMs: number; woken: string | undefined }> {
    const { openMs, woken } = await this.leaveAndHandOn(owner, subscriptionId, job, outcome, false, now);
    return { openMs, woken };
  }

  /**
   * leaveAndWake for a caller that sends the next delivery itself (carry): the
   * job the slot is handed to has also entered (`entered`: as enter() would
   * have let it, so the caller goes straight to its POST) unless its circuit
   * refuses or its subscription is unknown (then the caller enters it, as before).
   */
  async leaveAndHandOn(
    owner: string,
    subscriptionId: string,
    job: string,
    outcome: 'ok' | 'failing' | 'other',
    carry: boolean,
    now = Date.now(),
  ): Promise<{ openMs: number; woken: string | undefined; entered: boolean }> {
    const { failures, openMs, maxOpenMs } = this.fairness.circuit;
    const [open, woken, entered] = await LEAVE.run(
      this.redis,
      [
        this.keys.inFlight(owner),
        this.keys.circuit(subscriptionId),
        this.keys.parked(owner),
        this.keys.wakes,
        this.parkedSubscriptions(owner),
      ],
      [now, job, outcome, failures, openMs, maxOpenMs, WAKE_LEASE_MS, carry ? 1 : 0, this.leaseMs, this.keys.circuit('')],
    );
    return { openMs: Number(open), woken: woken === '' ? undefined : woken, entered: woken !== '' && Number(entered) === 1 };
  }

  /** leaveAndWake, for callers that wake nobody (tests of the circuit). */
  async leave(owner: string, subscriptionId: string, job: string, outcome: 'ok' | 'failing' | 'other', now = Date.now()): Promise<number> {
    return (await this.leaveAndWake(owner, subscriptionId, job, outcome, now)).openMs;
  }

  /**
   * For jobs about to be enqueued: which get a slot now (true) and which are
   * parked, asleep until a slot is theirs (false). `subscriptions` (in the
   * order of `jobs`) lets a parked job be handed its slot already entered (leaveAndHandOn).
   */
  async admit(
    owner: string,
    jobs: readonly string[],
    now = Date.now(),
    subscriptions?: ReadonlyArray<string | undefined>,
  ): Promise<boolean[]> {
    if (jobs.length === 0) return [];
    const answer = await ADMIT.run(
      this.redis,
      [this.keys.inFlight(owner), this.keys.parked(owner), this.parkedSubscriptions(owner)],
      [now, this.leaseMs, this.fairness.perAccount, ...jobs.flatMap((job, i) => [job, subscriptions?.[i] ?? ''])],
    );
    return answer.map((a) => a === 1);
  }

  /** Of these jobs, just put to sleep, the ones a slot was handed to before they slept: they wake themselves. */
  async claimWakes(jobs: readonly string[], now = Date.now()): Promise<string[]> {
    if (jobs.length === 0) return [];
    return CLAIM_WAKES.run(this.redis, [this.keys.wakes], [now, ...jobs]);
  }
}
