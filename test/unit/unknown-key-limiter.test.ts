// The failed-lookup budget is per client: an IPv4 address or an IPv6 /64. An
// X-Forwarded-For value that is no address (a trusted proxy passing on what a
// client wrote) must not mint a budget per made-up value.
import { describe, expect, it } from 'vitest';
import { clientKey, UnknownKeyLimiter } from '../../src/http/unknown-key-limiter.js';

describe('clientKey', () => {
  it('is the IPv4 address, the same for its IPv4-mapped IPv6 spelling', () => {
    expect(clientKey('203.0.113.7')).toBe('203.0.113.7');
    expect(clientKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
  });

  it('is the /64 of an IPv6 address', () => {
    expect(clientKey('2001:db8:1:2::1')).toBe(clientKey('2001:db8:1:2:ffff::9'));
    expect(clientKey('2001:db8:1:2::1')).not.toBe(clientKey('2001:db8:1:3::1'));
  });

  it('is one shared key for every value that is not an address', () => {
    expect(clientKey('garbage')).toBe(clientKey('also garbage'));
    expect(clientKey('unknown')).toBe(clientKey('999.1.1.1'));
  });
});

describe('UnknownKeyLimiter', () => {
  it('made-up addresses share one burst', () => {
    const limiter = new UnknownKeyLimiter(3, 1);
    const now = 1_000_000;
    expect([0, 1, 2].map((i) => limiter.take(`junk-${i}`, now))).toEqual([0, 0, 0]);
    expect(limiter.take('junk-99', now)).toBeGreaterThan(0);
    expect(limiter.take('198.51.100.1', now)).toBe(0);
  });

  it('a refund gives the try back', () => {
    const limiter = new UnknownKeyLimiter(1, 1);
    expect(limiter.take('198.51.100.2', 0)).toBe(0);
    limiter.refund('198.51.100.2', 0);
    expect(limiter.take('198.51.100.2', 0)).toBe(0);
    expect(limiter.take('198.51.100.2', 0)).toBeGreaterThan(0);
  });
});
