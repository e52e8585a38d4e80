// What no client can turn /api/webhooks into (issue 35, from an outside
// review): a flood of deliveries from replays and pings (bounded per call,
// per account and day, and never twice while pending), an operator's disable
// undone by the account, a rotated secret handed out again by a create's
// retry, and a 500 from a forged cursor or an impossible date. Each test
// failed before its fix.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids.js';
import { encodeCursor } from '../../src/domain/cursor.js';
import { encodeDeliveryCursor } from '../../src/domain/webhooks/subscription-input.js';
import { WebhookService } from '../../src/webhooks/webhook-service.js';
import { bearer, createTestApp, type TestApp } from '../support/app.js';
import { pastDeliveries as pastDeliveriesOf } from '../support/webhooks.js';
import { pruneProcessor } from '../../jobs/prune.job.js';

let t: TestApp;
const receiverUrl = 'http://127.0.0.1:9/hooks';
beforeAll(async () => {
  t = await createTestApp({ webhookAllowedCidrs: ['127.0.0.1/32'] });
});
afterAll(() => t.close());

const json = (key: string, extra: Record<string, string> = {}) => ({ ...bearer(key), 'content-type': 'application/json', ...extra });
const post = (key: string, url: string, body?: unknown, headers: Record<string, string> = {}) =>
  t.app.inject({
    method: 'POST',
    url,
    headers: body === undefined ? bearer(key) : json(key, headers),
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });

async function subscription(key: string): Promise<string> {
  const res = await post(key, '/api/webhooks', { url: receiverUrl });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data.id as string;
}

const pastDeliveries = (subscriptionId: string, n: number) => pastDeliveriesOf(t.database.db, subscriptionId, n);

/** The operators' service (the CLI's): scope null. */
const operatorService = () =>
  new WebhookService({
    db: t.database.db,
    redis: t.redis.redis,
    subscriptionsVersionKey: t.redis.keys.subscriptionsVersion,
    box: undefined as never,
    enqueue: async () => {},
    policy: { allowPrivate: false, allowedCidrs: ['127.0.0.1/32'] },
    secretOverlapHours: 24,
    maxSubscriptions: { free: 2, starter: 10, pro: 50, enterprise: 500 },
  });

const jobsOf = async (ids: readonly string[]) => {
  const jobs = await t.redis.redis.keys(`${t.redis.keys.queuePrefix('webhooks')}:webhooks:deliver-*`);
  return jobs.filter((k) => ids.some((id) => k.includes(id)) && !/:(logs|lock)$/.test(k));
};

describe('replays and pings are bounded', () => {
  it('a delivery is replayed at most once while the replay is pending: the same window replayed again sends nothing, and the job ids come from the delivery', async () => {
    const a = await t.webhookKey('pro');
    const sub = await subscription(a.key);
    const ids = await pastDeliveries(sub, 5);
    const first = await post(a.key, `/api/webhooks/${sub}/replay`, { since: '2020-01-01T00:00:00Z' });
    expect(first.json().data).toMatchObject({ replayed: ids, pending: 0 });
    const second = await post(a.key, `/api/webhooks/${sub}/replay`, { since: '2020-01-01T00:00:00Z' });
    expect(second.json().data).toMatchObject({ replayed: [], pending: 5 });
    const one = await post(a.key, `/api/webhooks/${sub}/deliveries/${ids[0]}/replay`);
    expect(one.json().data).toMatchObject({ replayed: [], pending: 1 });
    // One job per delivery, named by it and its replay count: deliver-<id>-replay-1.
    const jobs = await jobsOf(ids);
    expect(jobs).toHaveLength(5);
    expect(jobs.every((k) => /deliver-dlv_[a-z0-9]+-replay-1$/.test(k))).toBe(true);
    // Done, and replayed again: the next generation of the job.
    await t.database.db.updateTable('webhook_deliveries').set({ status: 'succeeded' }).where('id', '=', ids[0]!).execute();
    expect((await post(a.key, `/api/webhooks/${sub}/deliveries/${ids[0]}/replay`)).json().data.replayed).toEqual([ids[0]]);
    expect((await jobsOf([ids[0]!])).some((k) => k.endsWith(`deliver-${ids[0]}-replay-2`))).toBe(true);
  });

  it("a Free account sends at most its plan's replays and pings a day, whatever it asks: 50 by default, each a delivery of at most 8 attempts; past it, 429 with Retry-After", async () => {
    const a = await t.webhookKey('free');
    const sub = await subscription(a.key);
    await pastDeliveries(sub, 300);
    // What the outside review sent: 30 pings, then replays until the day's quota (100 requests) ran out.
    const answers: number[] = [];
    let reopened = 0;
    for (let i = 0; i < 30; i += 1) answers.push((await post(a.key, `/api/webhooks/${sub}/test`)).statusCode);
    for (let i = 0; i < 70; i += 1) {
      const res = await post(a.key, `/api/webhooks/${sub}/replay`, { since: '2020-01-01T00:00:00Z' });
      answers.push(res.statusCode);
      if (res.statusCode === 202) reopened += (res.json().data.replayed as string[]).length;
      if (res.statusCode === 429 && res.json().type === '/problems/webhook-sends-exceeded') {
        expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
        expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(86_400);
        expect(res.json().detail).toMatch(/The free plan allows 50 replays and pings a day/);
      }
      // Free holds 100 requests a day: the quota's own 429s end it.
      if (res.statusCode === 429 && res.json().type === '/problems/quota-exceeded') break;
    }
    // The pings: at most 10 a minute went through (the 11th and later answer 429), all counted in the day's sends.
    expect(answers.slice(0, 30).filter((s) => s === 202)).toHaveLength(10);
    const sends = await t.database.db
      .selectFrom('webhook_sends_daily')
      .select(['replays', 'pings'])
      .where('account_id', '=', a.accountId)
      .executeTakeFirstOrThrow();
    expect(sends).toEqual({ replays: 40, pings: 10 });
    expect(reopened).toBe(40);
    // Deliveries the account caused on request today: 50, so at most 400 POSTs with every retry.
    const replayedRows = await t.database.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('subscription_id', '=', sub)
      .where('replays', '>', 0)
      .execute();
    expect(replayedRows).toHaveLength(40);
  });

  it('holds exactly under 20 concurrent replays of one account: never more than the day allows, each delivery once', async () => {
    const a = await t.webhookKey('starter'); // 500 a day, 100 a call
    const sub = await subscription(a.key);
    await pastDeliveries(sub, 2_000);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => post(a.key, `/api/webhooks/${sub}/replay`, { since: '2020-01-01T00:00:00Z' })),
    );
    const replayed = answers.filter((r) => r.statusCode === 202).flatMap((r) => r.json().data.replayed as string[]);
    expect(new Set(replayed).size).toBe(replayed.length);
    expect(replayed).toHaveLength(500);
    expect(
      answers.every((r) => r.statusCode === 202 || (r.statusCode === 429 && r.json().type === '/problems/webhook-sends-exceeded')),
    ).toBe(true);
    expect(
      (
        await t.database.db
          .selectFrom('webhook_sends_daily')
          .select('replays')
          .where('account_id', '=', a.accountId)
          .executeTakeFirstOrThrow()
      ).replays,
    ).toBe(500);
  });
});

describe("the operator's switch", () => {
  it('a subscription the operator disabled cannot be enabled by the account: 409 naming why; the account sees who disabled it', async () => {
    const a = await t.webhookKey('pro');
    const sub = await subscription(a.key);
    const operator = operatorService();
    await operator.setEnabled(null, sub, false);
    const shown = await t.app.inject({ url: `/api/webhooks/${sub}`, headers: bearer(a.key) });
    expect(shown.json().data).toMatchObject({ enabled: false, disabled_by: 'operator', disabled_reason: 'disabled by an operator' });
    const undo = await t.app.inject({
      method: 'PATCH',
      url: `/api/webhooks/${sub}`,
      headers: json(a.key),
      payload: JSON.stringify({ enabled: true }),
    });
    expect(undo.statusCode, undo.body).toBe(409);
    expect(undo.json()).toMatchObject({
      type: '/problems/disabled-by-operator',
      detail: expect.stringMatching(/only an operator can enable it again/),
    });
    expect((await t.app.inject({ url: `/api/webhooks/${sub}`, headers: bearer(a.key) })).json().data).toMatchObject({
      enabled: false,
      disabled_by: 'operator',
    });
    // The operator's enable is the operator's; then the account has its subscription back.
    await operator.setEnabled(null, sub, true);
    // A disable by the account, or by the system (410, a failure streak), the account may undo.
    await t.app.inject({ method: 'PATCH', url: `/api/webhooks/${sub}`, headers: json(a.key), payload: JSON.stringify({ enabled: false }) });
    expect((await t.app.inject({ url: `/api/webhooks/${sub}`, headers: bearer(a.key) })).json().data.disabled_by).toBe('account');
    expect(
      (
        await t.app.inject({
          method: 'PATCH',
          url: `/api/webhooks/${sub}`,
          headers: json(a.key),
          payload: JSON.stringify({ enabled: true }),
        })
      ).statusCode,
    ).toBe(200);
    await t.database.db
      .updateTable('webhook_subscriptions')
      .set({ state: 'disabled', disabled_by: 'system', disabled_reason: 'the endpoint answered 410 Gone' })
      .where('id', '=', sub)
      .execute();
    expect(
      (
        await t.app.inject({
          method: 'PATCH',
          url: `/api/webhooks/${sub}`,
          headers: json(a.key),
          payload: JSON.stringify({ enabled: true }),
        })
      ).statusCode,
    ).toBe(200);
  });

  it("survives the account's delete and re-create, and a disabled subscription is not pinged or replayed at the budget's cost (second review)", async () => {
    const a = await t.webhookKey('pro');
    const sub = await subscription(a.key);
    await pastDeliveries(sub, 3);
    await operatorService().update(null, sub, { enabled: false }, undefined, 'its receiver answered with spam');
    // Deleting it would undo the switch: refused, naming the reason.
    const del = await t.app.inject({ method: 'DELETE', url: `/api/webhooks/${sub}`, headers: bearer(a.key) });
    expect(del.statusCode, del.body).toBe(409);
    expect(del.json()).toMatchObject({
      type: '/problems/disabled-by-operator',
      detail: expect.stringContaining('its receiver answered with spam'),
    });
    // A new subscription to the same receiver (any path) would undo it as well.
    // (third review: IPv6 spellings of the same address got through)
    for (const url of [receiverUrl, 'http://127.0.0.1:9/other?x=1', 'http://[::ffff:127.0.0.1]:9/', 'http://[0:0:0:0:0:ffff:7f00:1]:9/x']) {
      const again = await post(a.key, '/api/webhooks', { url });
      expect(again.statusCode, `${url}: ${again.body}`).toBe(409);
      expect(again.json().type).toBe('/problems/disabled-by-operator');
    }
    // Nor by moving another subscription to it, or moving the disabled one away (third review).
    const other0 = await post(a.key, '/api/webhooks', { url: 'http://localhost:9/elsewhere' });
    expect(other0.statusCode, other0.body).toBe(201);
    const patch = (id: string, body: unknown) =>
      t.app.inject({ method: 'PATCH', url: `/api/webhooks/${id}`, headers: json(a.key), payload: JSON.stringify(body) });
    const moved = await patch(other0.json().data.id as string, { url: 'http://127.0.0.1:9/patched' });
    expect(moved.statusCode, moved.body).toBe(409);
    const away = await patch(sub, { url: 'http://127.0.0.1:10/moved' });
    expect(away.statusCode, away.body).toBe(409);
    await t.app.inject({ method: 'DELETE', url: `/api/webhooks/${other0.json().data.id as string}`, headers: bearer(a.key) });
    // Pinging or replaying it would only spend the day's sends on deliveries never sent.
    const ping = await post(a.key, `/api/webhooks/${sub}/test`);
    expect(ping.statusCode, ping.body).toBe(409);
    const replay = await post(a.key, `/api/webhooks/${sub}/replay`, { since: '2000-01-01T00:00:00Z' });
    expect(replay.statusCode, replay.body).toBe(409);
    // Another receiver (another host name) is the account's to add.
    const other = await post(a.key, '/api/webhooks', { url: 'http://localhost:9/hooks' });
    expect(other.statusCode, other.body).toBe(201);
    const otherId = other.json().data.id as string;
    await t.app.inject({
      method: 'PATCH',
      url: `/api/webhooks/${otherId}`,
      headers: json(a.key),
      payload: JSON.stringify({ enabled: false }),
    });
    const pingDisabled = await post(a.key, `/api/webhooks/${otherId}/test`);
    expect(pingDisabled.statusCode, pingDisabled.body).toBe(409);
    expect(pingDisabled.json()).toMatchObject({
      type: '/problems/subscription-disabled',
      detail: expect.stringContaining('Enable it first'),
    });
    const sends = await t.database.db.selectFrom('webhook_sends_daily').selectAll().where('account_id', '=', a.accountId).execute();
    expect(sends.reduce((n, r) => n + r.pings + r.replays, 0)).toBe(0);
    // The operator's own delete still works.
    await operatorService().remove(null, sub);
  });
});

describe("the operator's switch holds against every change (issue 48)", () => {
  it('PATCH {"enabled": false} then {"enabled": true} is refused at both steps: the reason, who disabled it and the receiver block stay', async () => {
    const a = await t.webhookKey('pro');
    const sub = await subscription(a.key);
    await operatorService().update(null, sub, { enabled: false }, undefined, 'its receiver is a third party that never asked');
    const patch = (body: unknown) =>
      t.app.inject({ method: 'PATCH', url: `/api/webhooks/${sub}`, headers: json(a.key), payload: JSON.stringify(body) });
    const off = await patch({ enabled: false });
    expect(off.statusCode, off.body).toBe(409);
    expect(off.json()).toMatchObject({
      type: '/problems/disabled-by-operator',
      detail: expect.stringMatching(
        /An operator disabled this subscription \(its receiver is a third party that never asked\).*To appeal, ask your operator/,
      ),
    });
    const on = await patch({ enabled: true });
    expect(on.statusCode, on.body).toBe(409);
    expect((await t.app.inject({ url: `/api/webhooks/${sub}`, headers: bearer(a.key) })).json().data).toMatchObject({
      enabled: false,
      disabled_by: 'operator',
      disabled_reason: 'its receiver is a third party that never asked',
    });
    // The receiver stays closed to the account's other subscriptions.
    expect((await post(a.key, '/api/webhooks', { url: receiverUrl })).statusCode).toBe(409);
    expect((await post(a.key, `/api/webhooks/${sub}/test`)).statusCode).toBe(409);
  });

  it('every change, in every order of two, through the API: each 409, and the row (state, reason, URL, criteria, secret) never moves', async () => {
    const a = await t.webhookKey('pro');
    const sub = await subscription(a.key);
    const [delivery] = await pastDeliveries(sub, 1);
    await operatorService().update(null, sub, { enabled: false }, undefined, 'spam complaints');
    const patch = (body: unknown) => () =>
      t.app.inject({ method: 'PATCH', url: `/api/webhooks/${sub}`, headers: json(a.key), payload: JSON.stringify(body) });
    const operations: Record<string, () => ReturnType<typeof post>> = {
      disable: patch({ enabled: false }),
      enable: patch({ enabled: true }),
      'enable with criteria': patch({ enabled: true, min_score: 0 }),
      url: patch({ url: 'http://localhost:9/moved' }),
      'url on the same receiver': patch({ url: `${receiverUrl}/deeper` }),
      events: patch({ events: ['insight.created'] }),
      'min score': patch({ min_score: 0.1 }),
      categories: patch({ categories: ['finance'] }),
      keywords: patch({ keywords: ['lute'] }),
      rotate: () => post(a.key, `/api/webhooks/${sub}/rotate`),
      delete: () => t.app.inject({ method: 'DELETE', url: `/api/webhooks/${sub}`, headers: bearer(a.key) }),
      test: () => post(a.key, `/api/webhooks/${sub}/test`),
      replay: () => post(a.key, `/api/webhooks/${sub}/replay`, { since: '2000-01-01T00:00:00Z' }),
      'replay one': () => post(a.key, `/api/webhooks/${sub}/deliveries/${delivery}/replay`),
    };
    const rowOf = () => t.database.db.selectFrom('webhook_subscriptions').selectAll().where('id', '=', sub).executeTakeFirstOrThrow();
    const before = await rowOf();
    expect(before).toMatchObject({ state: 'disabled', disabled_by: 'operator', disabled_reason: 'spam complaints' });
    const names = Object.keys(operations);
    for (const first of names)
      for (const second of names) {
        for (const name of [first, second]) {
          const res = await operations[name]!();
          expect(res.statusCode, `${first} then ${second}: ${name} answered ${res.body}`).toBe(409);
          expect(res.json().type, `${first} then ${second}: ${name}`).toBe('/problems/disabled-by-operator');
        }
        expect(await rowOf(), `${first} then ${second}`).toEqual(before);
      }
    // Nothing was sent, nothing spent, nothing reopened.
    expect(
      await t.database.db.selectFrom('webhook_deliveries').select(['id', 'status', 'replays']).where('subscription_id', '=', sub).execute(),
    ).toEqual([{ id: delivery, status: 'failed', replays: 0 }]);
    const sends = await t.database.db.selectFrom('webhook_sends_daily').selectAll().where('account_id', '=', a.accountId).execute();
    expect(sends.reduce((n, r) => n + r.pings + r.replays, 0)).toBe(0);
    // The operator's enable gives it back: the account changes it again.
    await operatorService().setEnabled(null, sub, true);
    expect((await operations.keywords!()).statusCode).toBe(200);
    expect((await operations.disable!()).statusCode).toBe(200);
    expect((await operations.enable!()).statusCode).toBe(200);
  });
});

describe('Retry-After of a refused ping', () => {
  it("names the day's reset, not the minute, when the day is spent (second review)", async () => {
    const a = await t.webhookKey('free');
    const sub = await subscription(a.key);
    // The day's 50 spent by replays; then 12 pings in the same minute.
    await t.database.db
      .insertInto('webhook_sends_daily')
      .values({ account_id: a.accountId, day: new Date().toISOString().slice(0, 10), replays: 50, pings: 0 })
      .execute();
    const answers = [];
    for (let i = 0; i < 12; i += 1) answers.push(await post(a.key, `/api/webhooks/${sub}/test`));
    for (const res of answers) {
      expect(res.statusCode).toBe(429);
      expect(res.json().detail).toMatch(/replays and pings a day/);
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(60);
    }
  });
});

describe("a create's retry after its answer was lost", () => {
  it('never hands out a secret the create did not issue: rotated since, the retry answers without one', async () => {
    const a = await t.webhookKey('pro');
    const first = await post(a.key, '/api/webhooks', { url: receiverUrl }, { 'idempotency-key': 'lost-then-rotated' });
    expect(first.statusCode).toBe(201);
    const rotated = await post(a.key, `/api/webhooks/${first.json().data.id}/rotate`);
    expect(rotated.statusCode).toBe(200);
    // Redis lost the kept answer (a crash, or a restart without persistence).
    for (const key of await t.redis.redis.keys(`*${t.redis.prefix}:idem:${a.accountId}*`)) await t.redis.redis.del(key);
    const retried = await post(a.key, '/api/webhooks', { url: receiverUrl }, { 'idempotency-key': 'lost-then-rotated' });
    expect(retried.statusCode).toBe(201);
    expect(retried.headers['idempotent-replayed']).toBe('true');
    expect(retried.json().data).toMatchObject({ id: first.json().data.id, secret: null });
    expect(retried.json().data.secret).not.toBe(rotated.json().data.secret);
  });
});

describe('no input reaches a 500', () => {
  it('a forged delivery cursor with a well-formed but impossible date, and replay times out of range, answer 400 naming the field', async () => {
    const a = await t.webhookKey('pro');
    const sub = await subscription(a.key);
    for (const createdKey of [
      '2026-02-30 10:00:00+00',
      '2026-04-31 00:00:00.5+00',
      '2025-02-29 00:00:00+00',
      '2026-11-22 24:00:00+00',
      '0001-01-01 00:00:00+00',
    ]) {
      const cursor = encodeDeliveryCursor({ createdKey, id: newId('delivery') });
      const res = await t.app.inject({ url: `/api/webhooks/${sub}/deliveries?cursor=${cursor}`, headers: bearer(a.key) });
      expect(res.statusCode, createdKey).toBe(400);
      expect(res.json().detail).toBe('cursor is not a value returned as next_cursor');
    }
    for (const since of ['-004800-01-01T00:00:00Z', '2026-02-30T00:00:00Z', '1900-01-01', '+275760-09-13T00:00:00Z']) {
      const res = await post(a.key, `/api/webhooks/${sub}/replay`, { since });
      expect(res.statusCode, since).toBe(400);
      expect(res.json().invalid_params[0].name).toBe('since');
    }
    // The insights cursor names itself once.
    const insights = await t.app.inject({ url: '/api/insights?cursor=bm9wZQ', headers: bearer(await t.key('pro')) });
    expect(insights.json().detail).toBe('cursor is not a value returned as next_cursor');
  });

  it('for any cursor and any date, every route that takes one answers a 2xx or a 400, never a 5xx (property test)', async () => {
    const a = await t.webhookKey('enterprise');
    const sub = await subscription(a.key);
    const reader = await t.key('enterprise');
    const part = (max: number) => fc.integer({ min: 0, max }).map((n) => String(n).padStart(2, '0'));
    const timestamp = fc
      .tuple(fc.integer({ min: -5000, max: 300_000 }), part(14), part(40), part(25), part(61), part(61))
      .map(([y, mo, d, h, mi, s]) => `${String(y).padStart(4, '0')}-${mo}-${d} ${h}:${mi}:${s}+00`);
    const iso = fc.oneof(
      timestamp.map((x) => x.replace(' ', 'T').replace('+00', 'Z')),
      fc.date({ noInvalidDate: false }).map((d) => (Number.isNaN(d.getTime()) ? 'Invalid Date' : d.toISOString())),
      fc.string({ maxLength: 40 }),
    );
    await fc.assert(
      fc.asyncProperty(timestamp, iso, fc.constantFrom('score', 'newest', 'demand'), async (createdKey, since, sort) => {
        const cursor = encodeDeliveryCursor({ createdKey, id: newId('delivery') });
        const deliveries = await t.app.inject({ url: `/api/webhooks/${sub}/deliveries?cursor=${cursor}`, headers: bearer(a.key) });
        const replay = await post(a.key, `/api/webhooks/${sub}/replay`, { since: since.slice(0, 40) || 'x' });
        const insightCursor = encodeCursor({ sort: sort as 'score', value: sort === 'newest' ? since : 0.5, id: newId('insight') });
        const insights = await t.app.inject({ url: `/api/insights?sort=${sort}&cursor=${insightCursor}`, headers: bearer(reader) });
        for (const res of [deliveries, replay, insights])
          expect([200, 202, 400], `${res.statusCode} ${res.body.slice(0, 200)}`).toContain(res.statusCode);
      }),
      { numRuns: 120 },
    );
  });

  it('says what is wrong once and rightly: a key with a bad checksum is told so', async () => {
    const good = await t.key('pro');
    const bad = `${good.slice(0, -1)}${good.endsWith('A') ? 'B' : 'A'}`;
    const res = await t.app.inject({ url: '/api/insights', headers: bearer(bad) });
    expect(res.statusCode).toBe(401);
    expect(res.json().detail).toMatch(/its checksum does not match: the key was mistyped or cut short/);
    expect((await t.app.inject({ url: '/api/insights', headers: bearer('pk_live_123') })).json().detail).toMatch(/keys start with sik_/);
  });
});

describe('what grows with use is kept for a bounded time', () => {
  it('the daily prune deletes attempts older than WEBHOOK_ATTEMPTS_KEEP_DAYS and send counts older than 40 days; the deliveries and newer rows stay', async () => {
    const a = await t.webhookKey('pro');
    const sub = await subscription(a.key);
    const [oldDelivery, newDelivery] = await pastDeliveries(sub, 2);
    const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000);
    await t.database.db
      .insertInto('webhook_attempts')
      .values([
        ...Array.from({ length: 3 }, (_, i) => ({
          delivery_id: oldDelivery!,
          attempt: i + 1,
          at: daysAgo(31 + i),
          status_code: 500,
          latency_ms: 5,
          error: null,
        })),
        { delivery_id: newDelivery!, attempt: 1, at: daysAgo(29), status_code: 500, latency_ms: 5, error: null },
      ])
      .execute();
    await t.database.db
      .insertInto('webhook_sends_daily')
      .values([
        { account_id: a.accountId, day: daysAgo(41).toISOString().slice(0, 10), replays: 5, pings: 1 },
        { account_id: a.accountId, day: daysAgo(39).toISOString().slice(0, 10), replays: 5, pings: 1 },
      ])
      .execute();
    const pruned = await pruneProcessor({ db: t.database.db, attemptsKeepDays: 30 })();
    expect(pruned.attempts).toBeGreaterThanOrEqual(3); // other tests' rows are all recent
    const left = await t.database.db
      .selectFrom('webhook_attempts')
      .select(['delivery_id', 'attempt'])
      .where('delivery_id', 'in', [oldDelivery!, newDelivery!])
      .execute();
    expect(left).toEqual([{ delivery_id: newDelivery, attempt: 1 }]);
    const days = await t.database.db.selectFrom('webhook_sends_daily').select('day').where('account_id', '=', a.accountId).execute();
    expect(days.map((d) => String(d.day).slice(0, 10))).toEqual([daysAgo(39).toISOString().slice(0, 10)]);
    expect(
      await t.database.db.selectFrom('webhook_deliveries').select('id').where('id', 'in', [oldDelivery!, newDelivery!]).execute(),
    ).toHaveLength(2);
  });
});
