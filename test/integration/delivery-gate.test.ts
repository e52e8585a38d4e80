// The delivery gate in Redis (issues 35, 48): one account's slots over every
// worker, its parked deliveries each handed the next slot it frees, and a
// failing receiver's circuit, on a clock the test moves.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_DELIVERY_FAIRNESS, gateSleep, PARKED_SLEEP_MS, receiverFailing } from '../../src/domain/webhooks/fairness.js';
import { DeliveryGate } from '../../src/webhooks/delivery-gate.js';
import { createTestRedis, type TestRedis } from '../support/redis.js';

let redis: TestRedis;
beforeAll(async () => {
  redis = await createTestRedis();
});
afterAll(() => redis.destroy());

const LEASE_MS = 20_000;
const gate = (perAccount = 3) =>
  new DeliveryGate(
    redis.redis,
    {
      inFlight: redis.keys.webhookInFlight,
      circuit: redis.keys.webhookCircuit,
      parked: redis.keys.webhookParked,
      wakes: redis.keys.webhookWakes,
    },
    { ...DEFAULT_DELIVERY_FAIRNESS, perAccount },
    LEASE_MS,
  );

describe('an account holds at most its slots', () => {
  it('lets in perAccount jobs of one account, refuses the next until one leaves, and never counts another account', async () => {
    const g = gate(3);
    const now = 1_000_000;
    for (const job of ['a1', 'a2', 'a3']) expect(await g.enter('acct_a', 'sub_a', job, now)).toEqual({ go: true });
    expect(await g.enter('acct_a', 'sub_a2', 'a4', now)).toEqual({ go: false, waitMs: 0, why: 'account' });
    expect(await g.enter('acct_b', 'sub_b', 'b1', now)).toEqual({ go: true });
    // The same job asking again (a worker's retry of the call) keeps its one slot.
    expect(await g.enter('acct_a', 'sub_a', 'a1', now)).toEqual({ go: true });
    await g.leave('acct_a', 'sub_a', 'a2', 'ok', now);
    expect(await g.enter('acct_a', 'sub_a2', 'a4', now)).toEqual({ go: true });
  });

  it('parks what its slots refuse and hands each slot it frees to the first parked job, in arrival order', async () => {
    const g = gate(2);
    const now = 1_500_000;
    expect(await g.admit('acct_p', ['p1', 'p2', 'p3', 'p4'], now)).toEqual([true, true, false, false]);
    // Parked jobs are refused, and a job that asks again keeps its place; another account is not held.
    expect(await g.enter('acct_p', 'sub_p', 'p5', now)).toEqual({ go: false, waitMs: 0, why: 'account' });
    expect(await g.admit('acct_q', ['q1'], now)).toEqual([true]);
    // A slot freed goes to p3 (parked first), then p4, then p5, each woken; nobody takes it in between.
    expect(await g.enter('acct_p', 'sub_p', 'p1', now)).toEqual({ go: true });
    expect(await g.leaveAndWake('acct_p', 'sub_p', 'p1', 'ok', now)).toEqual({ openMs: 0, woken: 'p3' });
    expect((await g.enter('acct_p', 'sub_p', 'p6', now)).go).toBe(false);
    expect(await g.enter('acct_p', 'sub_p', 'p3', now)).toEqual({ go: true });
    expect((await g.leaveAndWake('acct_p', 'sub_p', 'p2', 'ok', now)).woken).toBe('p4');
    // p4 was woken before it lay down: it finds the wake-up itself, once.
    expect(await g.claimWakes(['p4', 'p6'], now)).toEqual(['p4']);
    expect(await g.claimWakes(['p4'], now)).toEqual([]);
    expect((await g.leaveAndWake('acct_p', 'sub_p', 'p3', 'ok', now)).woken).toBe('p5');
    // While jobs are parked, new ones queue behind them even with a slot about to free.
    expect(await g.admit('acct_p', ['p7'], now)).toEqual([false]);
  });

  it('hands a carried slot to the next parked job already entered, unless its circuit is open or its subscription unknown', async () => {
    const g = gate(1);
    const { failures } = DEFAULT_DELIVERY_FAIRNESS.circuit;
    const now = 1_800_000;
    // h2 and h4 parked with their subscriptions (as the match job parks them), h3 without (parked by older code).
    expect(await g.admit('acct_h', ['h1', 'h2', 'h3', 'h4'], now, ['sub_h', 'sub_h', undefined, 'sub_hx'])).toEqual([
      true,
      false,
      false,
      false,
    ]);
    expect(await g.leaveAndHandOn('acct_h', 'sub_h', 'h1', 'ok', true, now)).toEqual({ openMs: 0, woken: 'h2', entered: true });
    // Entered: it holds the account's one slot (nobody else gets in) and goes without asking again.
    expect((await g.enter('acct_h', 'sub_h', 'h9', now)).go).toBe(false);
    expect(await g.enter('acct_h', 'sub_h', 'h2', now)).toEqual({ go: true });
    // Unknown subscription: handed the slot, not entered (the carrier asks enter() as before).
    expect(await g.leaveAndHandOn('acct_h', 'sub_h', 'h2', 'ok', true, now)).toEqual({ openMs: 0, woken: 'h3', entered: false });
    // sub_hx's circuit is open: h4 is handed the slot but not entered; its own enter() says to wait.
    for (let i = 0; i < failures; i += 1) await g.leave('acct_x', 'sub_hx', `x${i}`, 'failing', now);
    expect(await g.leaveAndHandOn('acct_h', 'sub_h', 'h3', 'ok', true, now)).toEqual({ openMs: 0, woken: 'h4', entered: false });
    expect((await g.enter('acct_h', 'sub_hx', 'h4', now)).go).toBe(false);
    // Without carry nothing enters: the woken job asks itself.
    expect(await g.admit('acct_k', ['k1', 'k2'], now, ['sub_k', 'sub_k'])).toEqual([true, false]);
    expect(await g.leaveAndHandOn('acct_k', 'sub_k', 'k1', 'ok', false, now)).toEqual({ openMs: 0, woken: 'k2', entered: false });
  });

  it("frees a crashed worker's slot when its lease runs out", async () => {
    const g = gate(1);
    const now = 2_000_000;
    expect((await g.enter('acct_c', 'sub_c', 'c1', now)).go).toBe(true);
    expect((await g.enter('acct_c', 'sub_c', 'c2', now + LEASE_MS - 1)).go).toBe(false);
    expect((await g.enter('acct_c', 'sub_c', 'c2', now + LEASE_MS + 1)).go).toBe(true);
  });
});

describe("a failing receiver's circuit", () => {
  it('opens after 5 failures in a row, lets one probe through when it closes, doubles while the probe fails and closes on a success', async () => {
    const g = gate(100);
    const { failures, openMs } = DEFAULT_DELIVERY_FAIRNESS.circuit;
    let now = 3_000_000;
    for (let i = 0; i < failures - 1; i += 1) {
      await g.enter('acct_d', 'sub_d', `d${i}`, now);
      expect(await g.leave('acct_d', 'sub_d', `d${i}`, 'failing', now)).toBe(0);
    }
    // An answer that is not the receiver's fault (a 4xx) neither trips nor resets it.
    await g.enter('acct_d', 'sub_d', 'd-400', now);
    expect(await g.leave('acct_d', 'sub_d', 'd-400', 'other', now)).toBe(0);
    await g.enter('acct_d', 'sub_d', 'd-last', now);
    expect(await g.leave('acct_d', 'sub_d', 'd-last', 'failing', now)).toBe(openMs);
    expect(await g.enter('acct_d', 'sub_d', 'd-next', now + 1)).toEqual({ go: false, waitMs: openMs - 1, why: 'circuit' });
    // Another subscription of the same account is not held.
    expect((await g.enter('acct_d', 'sub_d_other', 'o1', now + 1)).go).toBe(true);

    now += openMs + 1;
    expect(await g.enter('acct_d', 'sub_d', 'probe1', now)).toEqual({ go: true });
    expect(await g.enter('acct_d', 'sub_d', 'd-next', now + 10)).toEqual({ go: false, waitMs: LEASE_MS - 10, why: 'probe' });
    expect(await g.leave('acct_d', 'sub_d', 'probe1', 'failing', now + 100)).toBe(openMs * 2);

    now += 100 + openMs * 2 + 1;
    expect(await g.enter('acct_d', 'sub_d', 'probe2', now)).toEqual({ go: true });
    await g.leave('acct_d', 'sub_d', 'probe2', 'ok', now);
    for (const job of ['e1', 'e2', 'e3']) expect((await g.enter('acct_d', 'sub_d', job, now)).go).toBe(true);
  });

  it('a crashed probe does not hold the circuit past its lease', async () => {
    const g = gate(100);
    let now = 9_000_000;
    for (let i = 0; i < DEFAULT_DELIVERY_FAIRNESS.circuit.failures; i += 1) {
      await g.enter('acct_e', 'sub_e', `f${i}`, now);
      await g.leave('acct_e', 'sub_e', `f${i}`, 'failing', now);
    }
    now += DEFAULT_DELIVERY_FAIRNESS.circuit.openMs + 1;
    expect((await g.enter('acct_e', 'sub_e', 'lost-probe', now)).go).toBe(true);
    expect((await g.enter('acct_e', 'sub_e', 'next', now + LEASE_MS + 1)).go).toBe(true);
  });
});

describe('how long a held delivery sleeps', () => {
  it('parked, sleeps only as a safety net (it is woken); sleeps until a circuit closes and at most 5 s behind a probe', () => {
    expect(gateSleep({ why: 'account', waitMs: 0 }).baseMs).toBe(PARKED_SLEEP_MS);
    expect(gateSleep({ why: 'circuit', waitMs: 30_000 })).toEqual({ baseMs: 30_000, spreadMs: 7_500 });
    expect(gateSleep({ why: 'probe', waitMs: 10 })).toEqual({ baseMs: 1_000, spreadMs: 1_000 });
    expect(gateSleep({ why: 'probe', waitMs: 19_000 })).toEqual({ baseMs: 5_000, spreadMs: 1_000 });
  });

  it('a timeout, a 5xx, 429 and 408 say the receiver is failing; a 4xx or a refused address do not', () => {
    expect([null, 500, 503, 429, 408].map((c) => receiverFailing(c, false))).toEqual([true, true, true, true, true]);
    expect([400, 404, 410, 200].map((c) => receiverFailing(c, false))).toEqual([false, false, false, false]);
    expect(receiverFailing(null, true)).toBe(false);
  });
});
