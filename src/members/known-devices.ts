// The browsers a person signed in from (their device cookie's SHA-256), which sign-in-limiter.ts holds by a
// bound of their own for that person's address only. Until 2026-11-28 a browser was known to the whole
// ACCOUNT after any of its people signed in from it, with no cap: an outside review had a member sign in
// from 8 fresh browsers in 9.6 s and then spend each one's bound guessing the owner's password (160
// checks in 166 s, none refused), and a removed member's old browser still got its 20 checks.
// Now a browser is known for an address only if that address's person signed in from it, a person keeps
// their newest KNOWN_DEVICES.perPerson browsers (a sign-in from a sixth forgets the one used longest ago),
// and removal from an account forgets every browser of the person.
// One sorted set per person (member: device hash, score: its last sign-in in ms), in the sign-in slot.
import type { Redis } from '../redis/connection.js';

export const KNOWN_DEVICES = {
  /** Browsers a person keeps known at once: the newest by last sign-in. */
  perPerson: 5,
  /** How long a browser stays known after its last sign-in (its cookie lives as long). */
  seconds: 30 * 86_400,
} as const;

export class KnownDevices {
  constructor(
    private readonly redis: Redis,
    private readonly keyOf: (personId: string) => string,
  ) {}

  /** Whether this person signed in from this browser within the last KNOWN_DEVICES.seconds (and it is among their newest). */
  async isKnown(personId: string, deviceHash: string): Promise<boolean> {
    const score = await this.redis.zscore(this.keyOf(personId), deviceHash);
    return score !== null && Number(score) > Date.now() - KNOWN_DEVICES.seconds * 1000;
  }

  /** A right password from this browser: it is known for the person from now on, and only their newest few stay. */
  async remember(personId: string, deviceHash: string): Promise<void> {
    const key = this.keyOf(personId);
    const now = Date.now();
    await this.redis
      .multi()
      .zadd(key, now, deviceHash)
      .zremrangebyscore(key, '-inf', now - KNOWN_DEVICES.seconds * 1000)
      .zremrangebyrank(key, 0, -(KNOWN_DEVICES.perPerson + 1))
      .expire(key, KNOWN_DEVICES.seconds)
      .exec();
  }

  /** Every browser of the person is a stranger again (they were removed from an account). */
  async forget(personId: string): Promise<void> {
    await this.redis.del(this.keyOf(personId));
  }
}
