// Comparing a presented secret with the real one must take the same time
// whatever the two hold, their lengths included: `a.length === b.length &&
// timingSafeEqual(a, b)` answers a wrong length at once, so its timing tells an
// attacker how long the secret is. Both sides are first reduced to an HMAC of
// fixed length under a key made at start-up, and those are compared; the
// secret's own HMAC is made once, so its length never enters a request's time.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const KEY = randomBytes(32);
const digest = (value: string) => createHmac('sha256', KEY).update(value, 'utf8').digest();

export class SecretMatcher {
  private readonly expected: Buffer;

  constructor(secret: string) {
    this.expected = digest(secret);
  }

  matches(presented: string): boolean {
    return timingSafeEqual(digest(presented), this.expected);
  }
}
