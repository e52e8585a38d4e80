// Sign-in attempts, limited in Redis so every web process counts together. Every attempt is
// counted BEFORE its password is checked, in one Lua script (atomic: 50 concurrent guesses
// cannot all read "9 so far"), and a right password gives its count back afterwards:
// - per address (email): 10 attempts in a 15-minute window lock it until the window ends,
//   the right password included (a guesser who found it learns nothing); a right password
//   (checked while not locked) resets the address's count;
// - per account: 30 attempts in 15 minutes over all its members' addresses (so walking
//   through an account's people is limited too); a right password gives back its one attempt.
//   A person's known browser (below) is not held by this limit for that person's address, so someone
//   who knows three addresses cannot keep the account's people out;
// - per client (IPv4 address or IPv6 /48: one site's usual allocation, 65,536 /64s that would each
//   have been a client of their own): 20 attempts a minute, right or wrong, so one
//   client cannot walk through many addresses. A client over its limit is refused without
//   spending the address's or the account's count.
// A known browser is held by none of those three: it has a bound of its own, per address and
// browser (attemptsPerKnownDevice in the address's window, and the client limit counted for that
// browser alone), so ten wrong passwords from anywhere else no longer lock a person out on the
// browser they always use, and a guesser without that browser's cookie cannot spend its bound.
// Known means known for THIS address: its person signed in from the browser (known-devices.ts: at
// most their 5 newest, forgotten when they are removed from an account). Until 2026-11-28 a browser
// was known to the whole account, so a member multiplied the bound against the owner's address by
// signing in from fresh browsers (an outside review: 8 browsers, 160 checks in 166 s, none refused).
// Fixed windows (the expiry set by the script on a window's first attempt): the limits may be met
// twice around a window's edge, never more.
import type { Redis } from '../redis/connection.js';
import { SCRIPTS } from '../redis/scripts.js';

export const SIGN_IN_LIMITS = {
  attemptsPerEmail: 10,
  emailWindowSeconds: 900,
  attemptsPerAccount: 30,
  accountWindowSeconds: 900,
  attemptsPerClient: 20,
  clientWindowSeconds: 60,
  /** Per address, from one browser that signed in to its account before (emailWindowSeconds). */
  attemptsPerKnownDevice: 20,
} as const;

export interface SignInKeys {
  email: (emailHash: string) => string;
  client: (client: string) => string;
  account: (accountId: string) => string;
}

// KEYS: client, then the held keys (address, account when known); see the file for ARGV.
// Returns 0 (counted, go on) or the seconds to wait.
const { reserve: RESERVE, giveBack: GIVE_BACK } = SCRIPTS.signIn;

export class SignInLimiter {
  constructor(
    private readonly redis: Redis,
    private readonly keys: SignInKeys,
  ) {}

  /** The address's count: everyone's, or one known browser's own. */
  private emailKey(emailHash: string, knownDevice: string | undefined): string {
    return this.keys.email(knownDevice === undefined ? emailHash : `${emailHash}:device:${knownDevice}`);
  }

  /**
   * Counts this attempt (client, address and, when the address is a member's, the account) before the
   * password is checked; says how long to wait when any of them is over its limit (then nothing is checked).
   */
  async reserve(
    emailHash: string,
    client: string,
    accountId: string | undefined,
    /** The hash of the device cookie of a browser the address's person signed in from, when it is one (known-devices.ts). */
    knownDevice?: string,
  ): Promise<{ retryAfterSeconds: number } | null> {
    const known = knownDevice !== undefined;
    const keys = [this.keys.client(known ? `device:${knownDevice}` : client), this.emailKey(emailHash, knownDevice)];
    const args: number[] = [
      SIGN_IN_LIMITS.attemptsPerClient,
      SIGN_IN_LIMITS.clientWindowSeconds,
      known ? SIGN_IN_LIMITS.attemptsPerKnownDevice : SIGN_IN_LIMITS.attemptsPerEmail,
      SIGN_IN_LIMITS.emailWindowSeconds,
    ];
    if (accountId !== undefined && !known) {
      keys.push(this.keys.account(accountId));
      args.push(SIGN_IN_LIMITS.attemptsPerAccount, SIGN_IN_LIMITS.accountWindowSeconds);
    }
    const wait = Number(await RESERVE.run(this.redis, keys, args));
    return wait > 0 ? { retryAfterSeconds: wait } : null;
  }

  /**
   * A right password: the address's count (a known browser's: its own) starts afresh and, when this
   * attempt counted against the account (not from the person's known browser), the account gets its one attempt back.
   */
  async succeeded(emailHash: string, accountId: string, knownDevice?: string): Promise<void> {
    GIVE_BACK.define(this.redis); // before multi(): a MULTI knows the commands its client had when it was made
    const steps = this.redis.multi().del(this.emailKey(emailHash, knownDevice));
    if (knownDevice === undefined) GIVE_BACK.queue(steps, [this.keys.account(accountId)], []);
    await steps.exec();
  }
}
