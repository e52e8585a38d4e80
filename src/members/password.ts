// Passwords of the account's people, hashed with scrypt (node:crypto; RFC 7914):
// N = 2^15, r = 8, p = 1 (32 MiB and about 60 ms a hash on this project's machine,
// OWASP's 2023 minimum for scrypt), a random 16-byte salt per password, a 32-byte
// result. The parameters are stored with each hash, so raising them later leaves
// every existing hash readable. Compared in constant time (timingSafeEqual over
// results of equal length).
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

export const SCRYPT_PARAMETERS = { N: 2 ** 15, r: 8, p: 1, keyLength: 32, saltBytes: 16 } as const;
export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 200;

function derive(password: string, salt: Buffer, keyLength: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFKC'), salt, keyLength, { ...options, maxmem: 128 * options.N! * options.r! * 2 }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

/** `scrypt$N$r$p$salt$hash` (base64url). */
export async function hashPassword(password: string): Promise<string> {
  const { N, r, p, keyLength, saltBytes } = SCRYPT_PARAMETERS;
  const salt = randomBytes(saltBytes);
  const key = await derive(password, salt, keyLength, { N, r, p });
  return ['scrypt', N, r, p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Whether the password is the one hashed; a malformed stored hash never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await derive(password, Buffer.from(salt, 'base64url'), expected.length, { N: Number(n), r: Number(r), p: Number(p) });
  return timingSafeEqual(key, expected);
}

/** Spends the time a verification would, for an address that has no password: the answer's timing tells nothing. */
let dummy: Promise<string> | undefined;
export async function verifyNothing(password: string): Promise<false> {
  dummy ??= hashPassword(randomBytes(16).toString('hex'));
  await verifyPassword(password, await dummy);
  return false;
}

/** Why a new password is refused, or null. */
export function passwordProblem(password: string): string | null {
  if (password.length < PASSWORD_MIN_LENGTH) return `A password has at least ${PASSWORD_MIN_LENGTH} characters.`;
  if (password.length > PASSWORD_MAX_LENGTH) return `A password has at most ${PASSWORD_MAX_LENGTH} characters.`;
  return null;
}

/** Which queue of the hashing gate an attempt waits in: a browser that signed in to the account before, or anyone else. */
export type HashLane = 'known' | 'other';

export interface HashGateLimits {
  /** scrypt calls running at once in this process (each holds a libuv thread and 32 MiB); 0: no bound (benchmarks' baseline only). */
  readonly concurrent: number;
  /** Of those, the ones only known browsers may use: a flood from everyone else never has them. */
  readonly reservedForKnown: number;
  /** Attempts that may wait for a slot, per lane; past it the attempt is refused at once (HashingBusy). */
  readonly waiting: number;
}

/** The gate is full: the attempt was refused without hashing; try again after `retryAfterSeconds`. */
export class HashingBusy extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super('password hashing is at its bound');
  }
}

/**
 * Bounds the password hashing of one process. scrypt runs on libuv's thread pool (4 threads by default,
 * shared with DNS and file reads), so 360 wrong sign-ins queued there held a right one 1.7 to 5.2 s
 * (an outside review). Here at most `concurrent` run at once, `reservedForKnown` of them only for
 * known browsers; each lane has `waiting` places, known browsers go first when a slot frees, and an
 * attempt that finds its lane's queue full is refused at once, never queued behind the flood.
 * An unknown address hashes against a dummy (verifyNothing) in the same lane as a known address
 * from an unknown browser: lane and cost say nothing of whether the address exists.
 */
export class HashGate {
  private running = { known: 0, other: 0 };
  private readonly queues: Record<HashLane, Array<() => void>> = { known: [], other: [] };
  readonly stats = { refused: 0 };

  constructor(private readonly limits: HashGateLimits) {}

  private get unbounded(): boolean {
    return this.limits.concurrent === 0;
  }

  private mayStart(lane: HashLane): boolean {
    const total = this.running.known + this.running.other;
    if (total >= this.limits.concurrent) return false;
    return lane === 'known' || this.running.other < this.limits.concurrent - this.limits.reservedForKnown;
  }

  /** Whether an attempt in this lane would be refused now (checked before its attempt is counted). */
  full(lane: HashLane): boolean {
    return !this.unbounded && !this.mayStart(lane) && this.queues[lane].length >= this.limits.waiting;
  }

  /** Runs `work` (a hash) when a slot is free; throws HashingBusy when the lane's queue is full. */
  async run<T>(lane: HashLane, work: () => Promise<T>): Promise<T> {
    if (this.unbounded) return work();
    if (!this.mayStart(lane)) {
      if (this.queues[lane].length >= this.limits.waiting) {
        this.stats.refused += 1;
        throw new HashingBusy(1);
      }
      await new Promise<void>((resolve) => this.queues[lane].push(resolve));
    } else {
      this.running[lane] += 1;
    }
    try {
      return await work();
    } finally {
      this.running[lane] -= 1;
      this.next();
    }
  }

  /** A slot freed: known browsers first, then the rest while the reserved slots stay free. */
  private next(): void {
    for (const lane of ['known', 'other'] as const) {
      while (this.queues[lane].length > 0 && this.mayStart(lane)) {
        this.running[lane] += 1;
        this.queues[lane].shift()!();
      }
    }
  }
}
