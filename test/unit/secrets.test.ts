// Secrets at rest and secrets presented. Both tests failed before their fixes:
// the secret box let GCM accept an authentication tag cut to 4 bytes (a forger's
// 2^32 guesses), and the admin token comparison returned at once on a length
// mismatch, so its timing told an attacker the token's length.
import { randomBytes } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';

const comparisons = vi.hoisted(() => ({ lengths: [] as Array<[number, number]> }));
vi.mock('node:crypto', async (importOriginal) => {
  const crypto = await importOriginal<typeof import('node:crypto')>();
  return {
    ...crypto,
    timingSafeEqual: (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
      comparisons.lengths.push([a.byteLength, b.byteLength]);
      return crypto.timingSafeEqual(a, b);
    },
  };
});

const { SecretBox } = await import('../../src/webhooks/secret-box.js');
const { isAdmin } = await import('../../src/observability/metrics.js');

describe('the secret box (AES-256-GCM)', () => {
  const box = new SecretBox(randomBytes(32));

  it('opens what it sealed', () => {
    for (const secret of ['', 'whsec_abc', 'ü'.repeat(100)]) expect(box.open(box.seal(secret))).toBe(secret);
  });

  it('refuses a sealed value whose tag was cut short, whatever the cut', () => {
    const raw = Buffer.from(box.seal('').slice(3), 'base64'); // nonce (12) + tag (16), no ciphertext
    for (const tagBytes of [4, 8, 12, 15]) {
      const truncated = `v1.${raw.subarray(0, 12 + tagBytes).toString('base64')}`;
      expect(() => box.open(truncated), `a ${tagBytes}-byte tag`).toThrow();
    }
  });

  it('refuses a tampered ciphertext or tag', () => {
    const raw = Buffer.from(box.seal('whsec_secret').slice(3), 'base64');
    for (const at of [12, 27, 28, raw.length - 1]) {
      const tampered = Buffer.from(raw);
      tampered[at]! ^= 1;
      expect(() => box.open(`v1.${tampered.toString('base64')}`)).toThrow();
    }
  });
});

describe('the admin token comparison', () => {
  const token = 'admin-token-0123456789abcdef';

  it('accepts the token as Bearer or as the Basic password, and nothing else', () => {
    expect(isAdmin(`Bearer ${token}`, token)).toBe(true);
    expect(isAdmin(`Basic ${Buffer.from(`ops:${token}`).toString('base64')}`, token)).toBe(true);
    for (const wrong of [
      'Bearer x',
      `Bearer ${token}x`,
      `Bearer ${token.slice(0, -1)}`,
      `Bearer ${token.toUpperCase()}`,
      'Bearer ',
      `Basic ${Buffer.from(token).toString('base64')}`,
    ]) {
      expect(isAdmin(wrong, token), wrong).toBe(false);
    }
    expect(isAdmin(undefined, token)).toBe(false);
    expect(isAdmin(`Bearer ${token}`, undefined)).toBe(false);
  });

  it('compares values of one fixed length whatever is presented, so a wrong length answers no faster', () => {
    for (const presented of ['x', token.slice(0, -1), `${token}x`, 'y'.repeat(1000)]) {
      comparisons.lengths.length = 0;
      expect(isAdmin(`Bearer ${presented}`, token)).toBe(false);
      expect(comparisons.lengths, `presented ${presented.length} characters`).toHaveLength(1);
      const [a, b] = comparisons.lengths[0]!;
      expect(a).toBe(b);
      expect(a).toBe(32);
    }
  });
});

describe("sealing (domain/sealed.ts), shared by webhook secrets and the account pages' flash", () => {
  it('opens what it sealed, and refuses another key, a flipped byte and a tag cut short', async () => {
    const { seal, open } = await import('../../src/domain/sealed.js');
    const { openFlash, sealFlash } = await import('../../src/http/pages/page-kit.js');
    const key = Buffer.alloc(32, 7);
    const sealed = seal(key, 'the new key: si_live_x');
    expect(open(key, sealed)).toBe('the new key: si_live_x');
    expect(() => open(Buffer.alloc(32, 8), sealed)).toThrow();
    const flipped = Buffer.from(sealed);
    flipped[flipped.length - 1]! ^= 1;
    expect(() => open(key, flipped)).toThrow();
    // An empty text sealed, then its tag cut to 4 bytes: GCM would check only those 4 unless told the length.
    const empty = seal(key, '');
    expect(() => open(key, empty.subarray(0, 16))).toThrow(/full authentication tag/);
    expect(openFlash('session-a', sealFlash('session-a', 'hello'))).toBe('hello');
    expect(openFlash('session-b', sealFlash('session-a', 'hello'))).toBe('');
  });
});
