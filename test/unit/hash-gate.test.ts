// The password-hashing gate (members/password.ts): a bound on scrypt calls per process, with slots and a
// queue that only browsers known to an account may use, so a flood from everyone else neither waits
// them out nor fills their queue. Also the client groups of the sign-in limits (an IPv6 /48 is one client).
import { describe, expect, it } from 'vitest';
import { HashGate, HashingBusy } from '../../src/members/password.js';
import { clientGroup, parseIp } from '../../src/domain/ip.js';
import { clientKey, signInClientKey } from '../../src/http/unknown-key-limiter.js';

/** Work the test finishes by hand, so nothing waits on a clock. */
function held() {
  const started: Array<() => void> = [];
  const work = () =>
    new Promise<string>((resolve) => {
      started.push(() => resolve('done'));
    });
  return { work, started };
}

describe('HashGate', () => {
  it('runs at most `concurrent` at once, keeps the reserved slots for known browsers and refuses past each queue', async () => {
    const gate = new HashGate({ concurrent: 2, reservedForKnown: 1, waiting: 2 });
    const h = held();
    const others = Array.from({ length: 3 }, () => gate.run('other', h.work));
    await Promise.resolve();
    // One "other" runs (the second slot is reserved); two wait; the fourth is refused at once.
    expect(h.started).toHaveLength(1);
    expect(gate.full('other')).toBe(true);
    await expect(gate.run('other', h.work)).rejects.toBeInstanceOf(HashingBusy);
    // A known browser is not queued behind them: the reserved slot is its.
    expect(gate.full('known')).toBe(false);
    const known = gate.run('known', h.work);
    await Promise.resolve();
    expect(h.started).toHaveLength(2);
    h.started[1]!();
    expect(await known).toBe('done');
    // The freed reserved slot does not go to the waiting others.
    expect(h.started).toHaveLength(2);
    h.started[0]!();
    await others[0];
    await Promise.resolve();
    expect(h.started).toHaveLength(3);
    h.started[2]!();
    await others[1];
    await Promise.resolve();
    h.started[3]!();
    await expect(Promise.all(others)).resolves.toEqual(['done', 'done', 'done']);
  });

  it('known browsers waiting go first when a slot frees', async () => {
    const gate = new HashGate({ concurrent: 1, reservedForKnown: 0, waiting: 5 });
    const order: string[] = [];
    const h = held();
    const first = gate.run('other', h.work);
    const other = gate.run('other', async () => void order.push('other'));
    const known = gate.run('known', async () => void order.push('known'));
    await Promise.resolve();
    h.started[0]!();
    await Promise.all([first, other, known]);
    expect(order).toEqual(['known', 'other']);
  });

  it('a failed hash gives its slot back', async () => {
    const gate = new HashGate({ concurrent: 1, reservedForKnown: 0, waiting: 0 });
    await expect(gate.run('other', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(gate.run('other', async () => 'again')).resolves.toBe('again');
  });

  it('concurrent 0 is no bound (the benchmark baseline)', async () => {
    const gate = new HashGate({ concurrent: 0, reservedForKnown: 0, waiting: 0 });
    const h = held();
    const runs = Array.from({ length: 50 }, () => gate.run('other', h.work));
    await Promise.resolve();
    expect(h.started).toHaveLength(50);
    for (const go of h.started) go();
    await Promise.all(runs);
  });
});

describe('sign-in client groups', () => {
  it('count an IPv6 /48 as one client for sign-in, a /64 for the other limits; IPv4 as it is', () => {
    expect(signInClientKey('2001:db8:1:2::1')).toBe(signInClientKey('2001:db8:1:ffff::9'));
    expect(signInClientKey('2001:db8:1::1')).not.toBe(signInClientKey('2001:db8:2::1'));
    expect(clientKey('2001:db8:1:2::1')).not.toBe(clientKey('2001:db8:1:3::1'));
    expect(signInClientKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientGroup(parseIp('2001:db8:abcd:12::1')!, 48)).toBe('20010db8abcd/48');
    expect(signInClientKey('garbage')).toBe('unparseable');
  });
});
