// /api/webhooks as a client meets it: scopes, accounts that never see each
// other's subscriptions, strict bodies, Idempotency-Key, If-Match, the plan's
// subscription limit, writes counted against the quota, nothing cached, an
// audit line per write, and no 5xx for any body.
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/api-keys/api-key.repository.js';
import { newId } from '../../src/domain/ids.js';
import { hashApiKey, generateApiKey, displayPrefix } from '../../src/domain/api-key.js';
import { createAccount } from '../../src/accounts/account.repository.js';
import { bearer, createTestApp, type TestApp } from '../support/app.js';

let t: TestApp;
const logLines: Array<Record<string, unknown>> = [];
let receiverUrl: string;

beforeAll(async () => {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) logLines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  t = await createTestApp({
    logger: pino({ level: 'info' }, sink),
    webhookAllowedCidrs: ['127.0.0.1/32'],
    webhookMaxSubscriptions: { free: 2, starter: 10, pro: 50, enterprise: 500 },
  });
  // Nothing listens there: these tests never deliver, and the guard only needs an allowed address.
  receiverUrl = 'http://127.0.0.1:9/hooks';
});
afterAll(() => t.close());

const json = (key: string, extra: Record<string, string> = {}) => ({ ...bearer(key), 'content-type': 'application/json', ...extra });

async function create(key: string, body: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  return t.app.inject({
    method: 'POST',
    url: '/api/webhooks',
    headers: json(key, headers),
    payload: JSON.stringify({ url: receiverUrl, ...body }),
  });
}

const subscriptionCount = async (accountId: string) =>
  (await t.database.db.selectFrom('webhook_subscriptions').select('id').where('account_id', '=', accountId).execute()).length;

describe('scopes', () => {
  it('a read-only key gets 403 naming webhooks:write; a webhooks-only key gets 403 naming insights:read on reads', async () => {
    const reader = await t.key('pro');
    for (const [method, url] of [
      ['GET', '/api/webhooks'],
      ['POST', '/api/webhooks'],
      ['GET', `/api/webhooks/${newId('subscription')}`],
    ] as const) {
      const res = await t.app.inject({
        method,
        url,
        headers: json(reader),
        ...(method === 'POST' ? { payload: JSON.stringify({ url: receiverUrl }) } : {}),
      });
      expect(res.statusCode, `${method} ${url}`).toBe(403);
      expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(res.json()).toMatchObject({ type: '/problems/missing-scope', status: 403 });
      expect(res.json().detail).toContain('webhooks:write');
    }
    expect((await t.app.inject({ url: '/api/insights', headers: bearer(reader) })).statusCode).toBe(200);

    const writerOnly = (await createApiKey(t.database.db, 'hooks only', 'pro', null, ['webhooks:write'])).key;
    const refused = await t.app.inject({ url: '/api/insights', headers: bearer(writerOnly) });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().detail).toContain('insights:read');
    expect((await t.app.inject({ url: '/api/webhooks', headers: bearer(writerOnly) })).statusCode).toBe(200);
    // Any key may read its own usage.
    expect((await t.app.inject({ url: '/api/usage', headers: bearer(writerOnly) })).statusCode).toBe(200);
  });

  it('a key stored without scopes (as every key before this version) reads and may not write', async () => {
    const account = await createAccount(t.database.db, 'old client', 'pro');
    const key = generateApiKey();
    // No scopes column given: the migration's default is what old keys got.
    await t.database.db
      .insertInto('api_keys')
      .values({
        id: newId('apiKey'),
        account_id: account.id,
        name: 'old',
        display_prefix: displayPrefix(key),
        key_hash: hashApiKey(key),
        expires_at: null,
      })
      .execute();
    expect(
      (await t.database.db.selectFrom('api_keys').select('scopes').where('key_hash', '=', hashApiKey(key)).executeTakeFirstOrThrow())
        .scopes,
    ).toEqual(['insights:read']);
    expect((await t.app.inject({ url: '/api/insights', headers: bearer(key) })).statusCode).toBe(200);
    const write = await create(key);
    expect(write.statusCode).toBe(403);
    expect(write.json().type).toBe('/problems/missing-scope');
  });
});

describe('one account never sees another', () => {
  it("answers 404 (never 403) for every route on another account's subscription, and lists none of it", async () => {
    const a = await t.webhookKey('pro');
    const b = await t.webhookKey('pro');
    const made = await create(a.key, { keywords: ['violin'] });
    expect(made.statusCode, made.body).toBe(201);
    const id = made.json().data.id as string;
    const ping = await t.app.inject({ method: 'POST', url: `/api/webhooks/${id}/test`, headers: json(a.key), payload: '{}' });
    expect(ping.statusCode, ping.body).toBe(202);
    const deliveryId = ping.json().data.delivery_id as string;

    const attempts: Array<{ method: 'GET' | 'POST' | 'PATCH' | 'DELETE'; url: string; payload?: string }> = [
      { method: 'GET', url: `/api/webhooks/${id}` },
      { method: 'PATCH', url: `/api/webhooks/${id}`, payload: JSON.stringify({ enabled: false }) },
      { method: 'POST', url: `/api/webhooks/${id}/test`, payload: '{}' },
      { method: 'POST', url: `/api/webhooks/${id}/rotate`, payload: '{}' },
      { method: 'GET', url: `/api/webhooks/${id}/deliveries` },
      { method: 'POST', url: `/api/webhooks/${id}/deliveries/${deliveryId}/replay`, payload: '{}' },
      { method: 'POST', url: `/api/webhooks/${id}/replay`, payload: JSON.stringify({ since: '2020-01-01T00:00:00Z' }) },
      { method: 'DELETE', url: `/api/webhooks/${id}` },
    ];
    for (const attempt of attempts) {
      const res = await t.app.inject({ ...attempt, headers: attempt.payload ? json(b.key) : bearer(b.key) });
      expect(res.statusCode, `${attempt.method} ${attempt.url}: ${res.body}`).toBe(404);
      expect(res.json().type).toBe('/problems/not-found');
    }
    const listed = await t.app.inject({ url: '/api/webhooks', headers: bearer(b.key) });
    expect(listed.json()).toEqual({ data: [], next_cursor: null });
    // Nothing of B's attempts changed A's subscription.
    const still = await t.app.inject({ url: `/api/webhooks/${id}`, headers: bearer(a.key) });
    expect(still.json().data).toMatchObject({ id, enabled: true, previous_secret_expires_at: null });
    // A's delivery is not replayable under another of A's subscriptions either.
    const other = (await create(a.key)).json().data.id as string;
    const crossed = await t.app.inject({
      method: 'POST',
      url: `/api/webhooks/${other}/deliveries/${deliveryId}/replay`,
      headers: json(a.key),
      payload: '{}',
    });
    expect(crossed.statusCode).toBe(404);
  });
});

describe('the lifecycle answers', () => {
  it('create shows the secret once; show, list, patch, rotate, deliveries and delete answer as documented, never cached', async () => {
    const a = await t.webhookKey('pro');
    const made = await create(a.key, {
      min_score: 0.5,
      categories: ['computers-electronics'],
      sources: ['research'],
      keywords: ['Agent'],
      events: ['insight.created'],
    });
    expect(made.statusCode, made.body).toBe(201);
    const sub = made.json().data;
    expect(sub.secret).toMatch(/^whsec_/);
    expect(sub).toMatchObject({
      url: receiverUrl,
      enabled: true,
      min_score: 0.5,
      categories: ['computers-electronics'],
      sources: ['research'],
      keywords: ['agent'],
      events: ['insight.created'],
    });
    expect(made.headers.location).toBe(`/api/webhooks/${sub.id}`);
    expect(made.headers['cache-control']).toBe('no-store');
    const stored = await t.database.db.selectFrom('webhook_subscriptions').selectAll().where('id', '=', sub.id).executeTakeFirstOrThrow();
    expect(stored.account_id).toBe(a.accountId);
    expect(JSON.stringify(stored)).not.toContain(sub.secret.slice(6));

    const shown = await t.app.inject({ url: `/api/webhooks/${sub.id}`, headers: bearer(a.key) });
    expect(shown.statusCode).toBe(200);
    expect(shown.body).not.toContain(sub.secret);
    expect(shown.json().data.recent_deliveries).toEqual([]);
    expect(shown.headers.etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(shown.headers['x-cache']).toBeUndefined();

    // Nothing is cached: a change shows at once in the list and in show.
    const before = await t.app.inject({ url: '/api/webhooks', headers: bearer(a.key) });
    expect(before.json().data.map((s: { id: string }) => s.id)).toEqual([sub.id]);
    const second = (await create(a.key)).json().data.id as string;
    const after = await t.app.inject({ url: '/api/webhooks', headers: bearer(a.key) });
    expect(after.json().data.map((s: { id: string }) => s.id)).toEqual([sub.id, second]);
    expect(after.headers['cache-control']).toBe('no-store');

    const paused = await t.app.inject({
      method: 'PATCH',
      url: `/api/webhooks/${sub.id}`,
      headers: json(a.key),
      payload: JSON.stringify({ enabled: false, keywords: [] }),
    });
    expect(paused.statusCode, paused.body).toBe(200);
    expect(paused.json().data).toMatchObject({ enabled: false, disabled_reason: 'disabled by the account', keywords: [], min_score: 0.5 });
    const resumed = await t.app.inject({
      method: 'PATCH',
      url: `/api/webhooks/${sub.id}`,
      headers: json(a.key),
      payload: JSON.stringify({ enabled: true }),
    });
    expect(resumed.json().data).toMatchObject({ enabled: true, disabled_reason: null });

    const rotated = await t.app.inject({
      method: 'POST',
      url: `/api/webhooks/${sub.id}/rotate`,
      headers: json(a.key),
      payload: JSON.stringify({ overlap_hours: 2 }),
    });
    expect(rotated.statusCode, rotated.body).toBe(200);
    expect(rotated.json().data.secret).toMatch(/^whsec_/);
    expect(rotated.json().data.secret).not.toBe(sub.secret);
    const overlapEnds = Date.parse(rotated.json().data.previous_secret_expires_at);
    expect(overlapEnds - Date.now()).toBeGreaterThan(1.9 * 3600_000);
    expect(overlapEnds - Date.now()).toBeLessThan(2.1 * 3600_000);

    // Pings make a delivery log, paged newest first by cursor.
    const pings = [];
    for (let i = 0; i < 3; i += 1)
      pings.push(
        (await t.app.inject({ method: 'POST', url: `/api/webhooks/${sub.id}/test`, headers: bearer(a.key) })).json().data.delivery_id,
      );
    const page1 = await t.app.inject({ url: `/api/webhooks/${sub.id}/deliveries?limit=2`, headers: bearer(a.key) });
    expect(page1.statusCode, page1.body).toBe(200);
    expect(page1.json().data.map((d: { id: string }) => d.id)).toEqual([pings[2], pings[1]]);
    expect(page1.json().data[0]).toMatchObject({ event_type: 'ping', status: 'pending' });
    const page2 = await t.app.inject({
      url: `/api/webhooks/${sub.id}/deliveries?limit=2&cursor=${page1.json().next_cursor}`,
      headers: bearer(a.key),
    });
    expect(page2.json()).toEqual({ data: [expect.objectContaining({ id: pings[0] })], next_cursor: null });
    const badCursor = await t.app.inject({ url: `/api/webhooks/${sub.id}/deliveries?cursor=bm9wZQ`, headers: bearer(a.key) });
    expect(badCursor.statusCode).toBe(400);
    expect(badCursor.json().invalid_params[0].name).toBe('cursor');
    // The ping went through the outbox, already relayed (never matched to other subscriptions).
    const event = await t.database.db
      .selectFrom('outbox_events')
      .selectAll()
      .where('id', '=', page1.json().data[0].event_id)
      .executeTakeFirstOrThrow();
    expect(event.type).toBe('ping');
    expect(event.relayed_at).not.toBeNull();

    const replayed = await t.app.inject({
      method: 'POST',
      url: `/api/webhooks/${sub.id}/replay`,
      headers: json(a.key),
      payload: JSON.stringify({ since: '2020-01-01T00:00:00Z' }),
    });
    expect(replayed.statusCode, replayed.body).toBe(202);
    // Still pending (no worker runs here): on their way already, so not sent twice. The pings counted in the day's sends.
    expect(replayed.json().data).toEqual({ replayed: [], truncated: false, pending: 3, remaining_today: 4997 });
    await t.database.db.updateTable('webhook_deliveries').set({ status: 'failed' }).where('id', 'in', pings).execute();
    const again = await t.app.inject({
      method: 'POST',
      url: `/api/webhooks/${sub.id}/replay`,
      headers: json(a.key),
      payload: JSON.stringify({ since: '2020-01-01T00:00:00Z' }),
    });
    expect(again.json().data).toEqual({ replayed: [pings[0], pings[1], pings[2]], truncated: false, pending: 0, remaining_today: 4994 });
    const badWindow = await t.app.inject({
      method: 'POST',
      url: `/api/webhooks/${sub.id}/replay`,
      headers: json(a.key),
      payload: JSON.stringify({ since: '2026-11-24T00:00:00Z', until: '2026-11-23T00:00:00Z' }),
    });
    expect(badWindow.statusCode).toBe(400);
    expect(badWindow.json().invalid_params[0].name).toBe('until');

    const deleted = await t.app.inject({ method: 'DELETE', url: `/api/webhooks/${sub.id}`, headers: bearer(a.key) });
    expect(deleted.statusCode).toBe(204);
    expect((await t.app.inject({ url: `/api/webhooks/${sub.id}`, headers: bearer(a.key) })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'DELETE', url: `/api/webhooks/${sub.id}`, headers: bearer(a.key) })).statusCode).toBe(404);
  });

  it('PUT is a 405 with Allow; DELETE with a body is a 400', async () => {
    const a = await t.webhookKey('pro');
    const put = await t.app.inject({ method: 'PUT', url: '/api/webhooks', headers: bearer(a.key) });
    expect(put.statusCode).toBe(405);
    expect(put.headers.allow).toMatch(/GET.*POST/);
    const id = (await create(a.key)).json().data.id as string;
    const withBody = await t.app.inject({ method: 'DELETE', url: `/api/webhooks/${id}`, headers: json(a.key), payload: '{"x":1}' });
    expect(withBody.statusCode).toBe(400);
    expect((await t.app.inject({ url: `/api/webhooks/${id}`, headers: bearer(a.key) })).statusCode).toBe(200);
  });
});

describe('bodies', () => {
  it.each([
    ['an unknown field', { url: 'http://127.0.0.1:9/x', colour: 'red' }, 'colour'],
    ['a score as text', { url: 'http://127.0.0.1:9/x', min_score: '0.5' }, 'min_score'],
    ['a score above 1', { url: 'http://127.0.0.1:9/x', min_score: 1.5 }, 'min_score'],
    ['an unknown category', { url: 'http://127.0.0.1:9/x', categories: ['spaceships'] }, 'categories'],
    ['a category not in a list', { url: 'http://127.0.0.1:9/x', categories: 'computers-electronics' }, 'categories'],
    ['no url', { keywords: ['x'] }, 'url'],
    ['an ftp url', { url: 'ftp://example.com/x' }, 'url'],
    ['url credentials', { url: 'https://user:pw@example.com/x' }, 'url'],
    ['an address the guard refuses', { url: 'http://127.0.0.2:8080/hooks' }, 'url'],
    ['cloud metadata', { url: 'http://169.254.169.254/latest/meta-data' }, 'url'],
    ['a NUL in a keyword', { url: 'http://127.0.0.1:9/x', keywords: ['a\u0000b'] }, 'keywords[0]'],
    ['half a character in a keyword (security review: 500)', { url: 'http://127.0.0.1:9/x', keywords: ['\ud800'] }, 'keywords[0]'],
    ['an unknown event', { url: 'http://127.0.0.1:9/x', events: ['insight.deleted'] }, 'events'],
  ])('400 naming the field for %s', async (_what, body, field) => {
    const a = await t.webhookKey('pro');
    const res = await t.app.inject({ method: 'POST', url: '/api/webhooks', headers: json(a.key), payload: JSON.stringify(body) });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.json().invalid_params.map((p: { name: string }) => p.name)).toContain(field);
    expect(res.json().detail).toContain(field.replace(/\[0\]$/, ''));
    expect(await subscriptionCount(a.accountId)).toBe(0);
  });

  it('415 for another content type, 413 past 16 KB, 400 for broken JSON and a PATCH naming nothing', async () => {
    const a = await t.webhookKey('pro');
    const text = await t.app.inject({
      method: 'POST',
      url: '/api/webhooks',
      headers: { ...bearer(a.key), 'content-type': 'text/plain' },
      payload: JSON.stringify({ url: receiverUrl }),
    });
    expect(text.statusCode).toBe(415);
    expect(text.json().type).toBe('/problems/unsupported-media-type');
    const form = await t.app.inject({
      method: 'POST',
      url: '/api/webhooks',
      headers: { ...bearer(a.key), 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'url=x',
    });
    expect(form.statusCode).toBe(415);
    const huge = await create(a.key, { keywords: Array.from({ length: 40 }, (_, i) => `${'k'.repeat(450)}${i}`) });
    expect(huge.statusCode).toBe(413);
    expect(huge.json().type).toBe('/problems/payload-too-large');
    const broken = await t.app.inject({ method: 'POST', url: '/api/webhooks', headers: json(a.key), payload: '{"url": ' });
    expect(broken.statusCode).toBe(400);
    expect(broken.json().title, 'a title for people, not an error class').toBe('Bad Request');
    const id = (await create(a.key)).json().data.id as string;
    const empty = await t.app.inject({ method: 'PATCH', url: `/api/webhooks/${id}`, headers: json(a.key), payload: '{}' });
    expect(empty.statusCode).toBe(400);
    // Clients that send "Content-Type: application/json" with every request, bodiless ones too.
    for (const [method, url] of [
      ['POST', `/api/webhooks/${id}/test`],
      ['DELETE', `/api/webhooks/${id}`],
    ] as const) {
      const bodiless = await t.app.inject({ method, url, headers: json(a.key) });
      expect(bodiless.statusCode, `${method} ${url}: ${bodiless.body}`).toBeLessThan(300);
    }
    expect(await subscriptionCount(a.accountId)).toBe(0);
    await create(a.key);
    expect(await subscriptionCount(a.accountId)).toBe(1);
  });

  it('never answers 5xx, whatever the body', async () => {
    const a = await t.webhookKey('enterprise');
    const id = (await create(a.key)).json().data.id as string;
    const bodies = [
      '[]',
      '[1,2,3]',
      'null',
      'true',
      '"text"',
      '1e400',
      '{"url": null}',
      '{"url": 12}',
      '{"url": []}',
      '{"url": {"a": 1}}',
      '{"url": "http://127.0.0.1:9/x", "min_score": 1e400}',
      '{"url": "http://127.0.0.1:9/x", "min_score": -1e308}',
      '{"url": "http://127.0.0.1:9/x", "min_score": null}',
      '{"url": "http://127.0.0.1:9/x", "keywords": [null]}',
      '{"url": "http://127.0.0.1:9/x", "keywords": ["", " "]}',
      '{"url": "http://127.0.0.1:9/x", "keywords": ["\\u0000"]}',
      '{"url": "http://127.0.0.1:9/\\u0000"}',
      '{"url": "http://127.0.0.1:9/x", "keywords": ["Ünïcødé 🚀 日本語", "\\u202e evil"]}',
      '{"url": "http://[::1]:9/x"}',
      '{"url": "http://localhost:9/x"}',
      '{"url": "http://does-not-resolve.invalid/x"}',
      '{"url": "http://127.0.0.1:9/x", "events": [1]}',
      '{"__proto__": {"x": 1}, "url": "http://127.0.0.1:9/x"}',
      '{"url": "http://127.0.0.1:9/x", "categories": [' + '"computers-electronics",'.repeat(100) + '"computers-electronics"]}',
      `{"url": "http://127.0.0.1:9/${'a'.repeat(3000)}"}`,
      '{"url": "http://127.0.0.1:9/x", "\\u0007": 1}',
      '{"since": 12}',
    ];
    for (const url of [
      '/api/webhooks',
      `/api/webhooks/${id}`,
      `/api/webhooks/${id}/rotate`,
      `/api/webhooks/${id}/replay`,
      `/api/webhooks/${id}/test`,
    ]) {
      for (const payload of bodies) {
        const method = url === `/api/webhooks/${id}` ? 'PATCH' : 'POST';
        const res = await t.app.inject({ method, url, headers: json(a.key), payload });
        expect(res.statusCode, `${method} ${url} ${payload.slice(0, 80)}: ${res.body}`).toBeLessThan(500);
        expect(res.headers['content-type'], payload.slice(0, 80)).toMatch(/json/);
      }
    }
    // Ids of every shape in the path, too.
    for (const bad of ['x', 'sub_', 'sub_%00', `sub_${'z'.repeat(60)}`, '%F0%9F%9A%80', 'dlv_00000000000000000000']) {
      for (const res of [
        await t.app.inject({ url: `/api/webhooks/${bad}`, headers: bearer(a.key) }),
        await t.app.inject({ url: `/api/webhooks/${bad}/deliveries?limit=1e400`, headers: bearer(a.key) }),
        await t.app.inject({ method: 'POST', url: `/api/webhooks/${id}/deliveries/${bad}/replay`, headers: bearer(a.key) }),
      ]) {
        expect(res.statusCode, `${bad}: ${res.body}`).toBeGreaterThanOrEqual(400);
        expect(res.statusCode, `${bad}: ${res.body}`).toBeLessThan(500);
      }
    }
  });
});

describe('Idempotency-Key', () => {
  it('the same key and body get the first answer again; another body gets 409', async () => {
    const a = await t.webhookKey('pro');
    const first = await create(a.key, { keywords: ['harp'] }, { 'idempotency-key': 'create-harp-1' });
    expect(first.statusCode).toBe(201);
    const again = await create(a.key, { keywords: ['harp'] }, { 'idempotency-key': 'create-harp-1' });
    expect(again.statusCode).toBe(201);
    expect(again.json()).toEqual(first.json());
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers.location).toBe(first.headers.location);
    expect(await subscriptionCount(a.accountId)).toBe(1);

    const other = await create(a.key, { keywords: ['oboe'] }, { 'idempotency-key': 'create-harp-1' });
    expect(other.statusCode).toBe(409);
    expect(other.json().type).toBe('/problems/idempotency-key-reused');
    expect(await subscriptionCount(a.accountId)).toBe(1);

    // The stored answer holds the secret: it is sealed, never in clear in Redis.
    const keys = await t.redis.redis.keys(`*${t.redis.prefix}:idem:${a.accountId}*`);
    expect(keys).toHaveLength(1);
    const stored = await t.redis.redis.get(keys[0]!);
    expect(stored).not.toContain(first.json().data.secret);
    expect(stored).not.toContain('harp');
    // Another account's identical key is its own.
    const b = await t.webhookKey('pro');
    const theirs = await create(b.key, { keywords: ['harp'] }, { 'idempotency-key': 'create-harp-1' });
    expect(theirs.statusCode).toBe(201);
    expect(theirs.json().data.id).not.toBe(first.json().data.id);
    const malformed = await create(b.key, {}, { 'idempotency-key': 'x'.repeat(300) });
    expect(malformed.statusCode).toBe(400);
  });

  it('20 concurrent sends of one key create exactly one subscription, and all get its answer', async () => {
    const a = await t.webhookKey('enterprise');
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => create(a.key, { keywords: ['tuba'] }, { 'idempotency-key': 'burst-1' })),
    );
    expect(answers.map((r) => r.statusCode)).toEqual(Array(20).fill(201));
    expect(new Set(answers.map((r) => r.json().data.id)).size).toBe(1);
    expect(new Set(answers.map((r) => r.json().data.secret)).size).toBe(1);
    expect(await subscriptionCount(a.accountId)).toBe(1);
  });

  it('a create whose answer was never kept (the web process died after the write) is not made twice when retried', async () => {
    const a = await t.webhookKey('pro');
    const first = await create(a.key, { keywords: ['lute'] }, { 'idempotency-key': 'crash-1' });
    expect(first.statusCode).toBe(201);
    // What Redis holds once a process dies between the commit and keeping the answer:
    // its claim, which expires after a minute, then nothing.
    const keys = await t.redis.redis.keys(`*${t.redis.prefix}:idem:${a.accountId}*`);
    expect(keys).toHaveLength(1);
    await t.redis.redis.del(keys[0]!);

    const retried = await create(a.key, { keywords: ['lute'] }, { 'idempotency-key': 'crash-1' });
    expect(retried.statusCode).toBe(201);
    expect(retried.headers['idempotent-replayed']).toBe('true');
    expect(retried.json().data.id).toBe(first.json().data.id);
    expect(retried.json().data.secret).toBe(first.json().data.secret);
    expect(retried.headers.location).toBe(first.headers.location);
    expect(await subscriptionCount(a.accountId)).toBe(1);

    // The key is still bound to that request: another body under it is refused, and makes nothing.
    await t.redis.redis.del(keys[0]!);
    const other = await create(a.key, { keywords: ['viol'] }, { 'idempotency-key': 'crash-1' });
    expect(other.statusCode).toBe(409);
    expect(other.json().type).toBe('/problems/idempotency-key-reused');
    expect(await subscriptionCount(a.accountId)).toBe(1);
    // That refusal did not take the key's place: the first request, retried, still gets its subscription.
    const retriedAgain = await create(a.key, { keywords: ['lute'] }, { 'idempotency-key': 'crash-1' });
    expect(retriedAgain.statusCode).toBe(201);
    expect(retriedAgain.json().data.id).toBe(first.json().data.id);

    // Past the 24 h the key is kept for, the same request is a new one.
    await t.database.db
      .updateTable('webhook_subscriptions')
      .set({ created_at: new Date(Date.now() - 25 * 3600 * 1000) })
      .where('id', '=', first.json().data.id)
      .execute();
    await t.redis.redis.del(keys[0]!);
    const later = await create(a.key, { keywords: ['lute'] }, { 'idempotency-key': 'crash-1' });
    expect(later.statusCode).toBe(201);
    expect(later.json().data.id).not.toBe(first.json().data.id);
    expect(await subscriptionCount(a.accountId)).toBe(2);
  });
});

describe('If-Match', () => {
  it('PATCH with a stale ETag is 412 and changes nothing; with the current one it goes through', async () => {
    const a = await t.webhookKey('pro');
    const id = (await create(a.key, { min_score: 0.2 })).json().data.id as string;
    const etag = (await t.app.inject({ url: `/api/webhooks/${id}`, headers: bearer(a.key) })).headers.etag as string;
    const changed = await t.app.inject({
      method: 'PATCH',
      url: `/api/webhooks/${id}`,
      headers: json(a.key, { 'if-match': etag }),
      payload: JSON.stringify({ min_score: 0.4 }),
    });
    expect(changed.statusCode, changed.body).toBe(200);
    const newEtag = changed.headers.etag as string;
    expect(newEtag).not.toBe(etag);

    const stale = await t.app.inject({
      method: 'PATCH',
      url: `/api/webhooks/${id}`,
      headers: json(a.key, { 'if-match': etag }),
      payload: JSON.stringify({ min_score: 0.9 }),
    });
    expect(stale.statusCode).toBe(412);
    expect(stale.json().type).toBe('/problems/precondition-failed');
    expect(stale.headers.etag).toBe(newEtag);
    expect((await t.app.inject({ url: `/api/webhooks/${id}`, headers: bearer(a.key) })).json().data.min_score).toBe(0.4);
    // Without If-Match the change is made (last write wins), as documented.
    const blind = await t.app.inject({
      method: 'PATCH',
      url: `/api/webhooks/${id}`,
      headers: json(a.key),
      payload: JSON.stringify({ min_score: 0.6 }),
    });
    expect(blind.statusCode).toBe(200);
    expect(blind.json().data.min_score).toBe(0.6);
  });
});

describe('limits, quota and audit', () => {
  it("refuses a subscription past the plan's limit with 409 naming it, also under concurrency", async () => {
    const a = await t.webhookKey('free');
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => create(a.key, { keywords: [`k${i}`] })));
    expect(answers.filter((r) => r.statusCode === 201)).toHaveLength(2);
    const refused = answers.filter((r) => r.statusCode === 409);
    expect(refused).toHaveLength(4);
    expect(refused[0]!.json().type).toBe('/problems/subscription-limit');
    expect(refused[0]!.json().detail).toMatch(/free plan allows 2 webhook subscriptions/);
    expect(await subscriptionCount(a.accountId)).toBe(2);
  });

  it('counts every write against the daily quota like a read', async () => {
    const a = await t.webhookKey('starter');
    const remaining = (res: { headers: Record<string, unknown> }) => Number(/r=(\d+)/.exec(String(res.headers.ratelimit))![1]);
    const created = await create(a.key);
    const id = created.json().data.id as string;
    const patched = await t.app.inject({
      method: 'PATCH',
      url: `/api/webhooks/${id}`,
      headers: json(a.key),
      payload: '{"enabled": false}',
    });
    const tested = await t.app.inject({ method: 'POST', url: `/api/webhooks/${id}/test`, headers: bearer(a.key) });
    const removed = await t.app.inject({ method: 'DELETE', url: `/api/webhooks/${id}`, headers: bearer(a.key) });
    expect([created, patched, tested, removed].map(remaining)).toEqual([999, 998, 997, 996]);
    const usage = await t.app.inject({ url: '/api/usage', headers: bearer(a.key) });
    expect(usage.json().data.used).toBe(5);
  });

  it('logs one audit line per write: account, key, action, subscription, time; never the secret or the URL', async () => {
    const a = await t.webhookKey('pro');
    const secretUrl = 'http://127.0.0.1:9/hooks?token=do-not-log-me';
    const made = await t.app.inject({
      method: 'POST',
      url: '/api/webhooks',
      headers: json(a.key),
      payload: JSON.stringify({ url: secretUrl }),
    });
    const id = made.json().data.id as string;
    const rotated = await t.app.inject({ method: 'POST', url: `/api/webhooks/${id}/rotate`, headers: bearer(a.key) });
    await t.app.inject({ method: 'DELETE', url: `/api/webhooks/${id}`, headers: bearer(a.key) });
    const mine = logLines
      .filter((l) => (l.audit as { subscription_id?: string } | undefined)?.subscription_id === id)
      .map((l) => l.audit as Record<string, unknown>);
    expect(mine.map((l) => l.action)).toEqual(['create', 'rotate-secret', 'delete']);
    for (const line of mine) {
      expect(line).toMatchObject({ account_id: a.accountId, key_id: a.keyId });
      expect(Date.parse(String(line.at))).toBeGreaterThan(0);
    }
    const everything = JSON.stringify(logLines);
    expect(everything).not.toContain('do-not-log-me');
    expect(everything).not.toContain(made.json().data.secret);
    expect(everything).not.toContain(rotated.json().data.secret);
  });
});
