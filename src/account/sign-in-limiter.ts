// Sign-in attempts, limited in Redis so every web process counts together:
// - per address (email): 10 wrong passwords in a 15-minute window lock it until the
//   window ends, the right password included (a guesser who found it learns nothing);
// - per client (IPv4 address or IPv6 /64): 20 attempts a minute, right or wrong, so one
//   client cannot walk through many addresses.
// Fixed windows (INCR, EXPIRE on the first): the limits may be met twice around a window's edge, never more.
import type { Redis } from '../redis/connection.js';

export const SIGN_IN_LIMITS = {
  failuresPerEmail: 10,
  emailWindowSeconds: 900,
  attemptsPerClient: 20,
  clientWindowSeconds: 60,
} as const;

export interface SignInKeys {
  email: (emailHash: string) => string;
  client: (client: string) => string;
}

export class SignInLimiter {
  constructor(
    private readonly redis: Redis,
    private readonly keys: SignInKeys,
  ) {}

  /** Counts an attempt from this client and says how long to wait when the client or the address is held. */
  async attempt(emailHash: string, client: string): Promise<{ retryAfterSeconds: number } | null> {
    const clientKey = this.keys.client(client);
    const emailKey = this.keys.email(emailHash);
    // The window starts with its first attempt: SET NX with the expiry, then INCR, in one MULTI (no key is ever left without an expiry).
    const replies = (await this.redis
      .multi()
      .set(clientKey, 0, 'EX', SIGN_IN_LIMITS.clientWindowSeconds, 'NX')
      .incr(clientKey)
      .ttl(clientKey)
      .get(emailKey)
      .ttl(emailKey)
      .exec())!.map(([error, value]) => {
      if (error) throw error;
      return value;
    });
    const [, attempts, clientTtl, failures, emailTtl] = replies as [unknown, number, number, string | null, number];
    if (Number(failures ?? 0) >= SIGN_IN_LIMITS.failuresPerEmail) return { retryAfterSeconds: Math.max(1, emailTtl) };
    if (attempts > SIGN_IN_LIMITS.attemptsPerClient) return { retryAfterSeconds: Math.max(1, clientTtl) };
    return null;
  }

  async failed(emailHash: string): Promise<void> {
    const key = this.keys.email(emailHash);
    await this.redis.multi().set(key, 0, 'EX', SIGN_IN_LIMITS.emailWindowSeconds, 'NX').incr(key).exec();
  }

  async succeeded(emailHash: string): Promise<void> {
    await this.redis.del(this.keys.email(emailHash));
  }
}
