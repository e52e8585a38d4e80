// Shared insights have owners (issue 48, from a security review): an account's
// public research of an idea the operator (the demo) or another account
// published makes or refreshes the account's own public insight, never theirs;
// what it sends to other accounts' receivers counts in its day's sends (and
// stops when they are spent); and a title keeps what was typed, less what no
// one sees. Each test failed before its fix.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { StepQueue } from '../../src/research/step-queue.js';
import { startRun } from '../../src/research/start-run.js';
import type { Pipeline } from '../../src/runtime/workers.js';
import { startTestWorkers } from '../support/services.js';
import { bearer, createTestApp, type TestApp } from '../support/app.js';
import { until } from '../support/pipeline.js';
import { testResources } from '../support/redis.js';

let t: TestApp;
let pipeline: Pipeline;
let hook: http.Server;
let hookUrl: string;

beforeAll(async () => {
  t = await createTestApp({ cacheTtlSeconds: 0, webhookAllowedCidrs: ['127.0.0.1/32'], research: {} });
  const config = loadConfig({
    REDIS_PREFIX: t.redis.prefix,
    TRENDS_PROVIDER: 'synthetic',
    WEBHOOK_ENCRYPTION_KEY: t.webhookEncryptionKey,
    WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32',
  });
  pipeline = await startTestWorkers(testResources(t.database, t.redis), config, pino({ level: 'silent' }));
  // Every tenant's receiver: answers 200 (what arrives is read from the deliveries the match made).
  hook = http.createServer((req, res) => req.resume().on('end', () => res.writeHead(200).end()));
  await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await pipeline?.close();
  await t?.close();
  hook?.close();
});

const db = () => t.database.db;
const api = (key: string, method: 'GET' | 'POST', url: string, body?: unknown) =>
  t.app.inject({
    method,
    url,
    headers: { ...bearer(key), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });

async function finished(runId: string) {
  const done = await until(
    () => db().selectFrom('research_runs').selectAll().where('id', '=', runId).executeTakeFirstOrThrow(),
    (r) => r.status === 'succeeded' || r.status === 'failed',
    120_000,
    `run ${runId}`,
  );
  expect(done.status, done.error ?? '').toBe('succeeded');
  // Its insight event matched (deliveries made) before anything is read of them.
  await until(
    () => db().selectFrom('outbox_events').select('relayed_at').where('insight_id', '=', done.insight_id!).execute(),
    (events) => events.length > 0 && events.every((e) => e.relayed_at !== null),
    60_000,
    `the events of ${done.insight_id}`,
  );
  return done;
}

/** The operator's public research (the CLI's, discovery's, the demo's): no account. */
async function operatorResearch(idea: string) {
  const run = await startRun(db(), new StepQueue(pipeline.queues.research), {
    idea,
    hints: [],
    provider: 'synthetic',
    source: 'synthetic',
  });
  return (await finished(run.id)).insight_id!;
}

async function publicResearch(key: string, idea: string, refresh = true) {
  const res = await api(key, 'POST', '/api/research-runs', { idea, visibility: 'public', refresh });
  expect(res.statusCode, res.body).toBe(202);
  return finished(res.json().data.id as string);
}

/** A catch-all subscription of the key's account. */
async function subscribe(key: string, path: string): Promise<string> {
  const res = await api(key, 'POST', '/api/webhooks', { url: `${hookUrl}/${path}` });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data.id as string;
}

const insightRow = (id: string) =>
  db()
    .selectFrom('insights')
    .select([
      'id',
      'title',
      'idea',
      'overall_score',
      'dimension_scores',
      'summary',
      'updated_at',
      'owner_account_id',
      'publisher_account_id',
    ])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
/** The insight.* events of an insight (research.completed goes to the run's account alone). */
const eventsOf = (insightId: string) =>
  db()
    .selectFrom('outbox_events')
    .select(['id', 'type'])
    .where('insight_id', '=', insightId)
    .where('type', 'like', 'insight.%')
    .orderBy('created_at')
    .execute();
const deliveredTo = (eventId: string) =>
  db()
    .selectFrom('webhook_deliveries')
    .select('subscription_id')
    .where('event_id', '=', eventId)
    .execute()
    .then((rows) => rows.map((r) => r.subscription_id).sort());
const sharedOf = async (accountId: string) =>
  (await db().selectFrom('webhook_sends_daily').select('shared').where('account_id', '=', accountId).executeTakeFirst())?.shared ?? 0;

describe('a public submission of an idea someone else owns', () => {
  it("does not rewrite the demo's insight nor another account's: the account gets its own, and its deliveries to other tenants count in its sends", async () => {
    const a = await t.researchKey('free'); // the submitter
    const b = await t.researchKey('free'); // another account that publishes
    const c = await t.webhookKey('pro'); // a tenant that only listens
    const subA = await subscribe(a.key, 'a');
    const subB = await subscribe(b.key, 'b');
    const subC = await subscribe(c.key, 'c');

    const demo = await operatorResearch('Dog walking marketplace (simulated demo)');
    const demoBefore = await insightRow(demo);
    expect(demoBefore).toMatchObject({ owner_account_id: null, publisher_account_id: null });
    const theirs = (await publicResearch(b.key, 'Cat sitting exchange')).insight_id!;
    const theirsBefore = await insightRow(theirs);
    expect(theirsBefore).toMatchObject({ owner_account_id: null, publisher_account_id: b.accountId });
    // B's public research reached A and C: counted in B's sends, not in no one's.
    const [theirsCreated] = await eventsOf(theirs);
    expect(await deliveredTo(theirsCreated!.id)).toEqual([subA, subB, subC].sort());
    expect(await sharedOf(b.accountId)).toBe(2);

    // What the review sent: the same letters and digits, shouted, with invisible characters, refresh: true.
    const shouted = 'DOG-WALKING MARKETPLACE?!! \u200b…\u202f ⚠️☠☠☠⚠️ «»\u2060 (simulated\u00ad demo)\ufeff';
    const mine = await publicResearch(a.key, shouted);
    const catMine = await publicResearch(a.key, 'CAT sitting exchange!!!');

    // The operator's and B's insights are as they were: title, scores, summary, when they changed; no event of theirs since.
    expect(await insightRow(demo)).toEqual(demoBefore);
    expect(await insightRow(theirs)).toEqual(theirsBefore);
    expect((await eventsOf(demo)).map((e) => e.type)).toEqual(['insight.created']);
    expect((await eventsOf(theirs)).map((e) => e.type)).toEqual(['insight.created']);

    // A has its own public insights, titled as typed less the invisible characters.
    expect(mine.insight_id).not.toBe(demo);
    expect(catMine.insight_id).not.toBe(theirs);
    const own = await insightRow(mine.insight_id!);
    expect(own).toMatchObject({ owner_account_id: null, publisher_account_id: a.accountId });
    expect(own.title).toBe('DOG-WALKING MARKETPLACE?!! … ⚠️☠☠☠⚠️ «» (simulated demo)');
    expect(own.title).not.toMatch(/[\p{Cc}\p{Cf}]/u);
    // Both are in the catalogue every key reads.
    const listed = (await api(c.key, 'GET', '/api/insights?limit=100')).json().data.map((i: { id: string }) => i.id);
    expect(listed).toEqual(expect.arrayContaining([demo, theirs, mine.insight_id, catMine.insight_id]));

    // Each of A's insight.created went to every catch-all subscription; the two to B and C, each time, are A's sends.
    for (const id of [mine.insight_id!, catMine.insight_id!]) {
      const [created] = await eventsOf(id);
      expect(created!.type).toBe('insight.created');
      expect(await deliveredTo(created!.id)).toEqual([subA, subB, subC].sort());
    }
    expect(await sharedOf(a.accountId)).toBe(4);
    expect(await sharedOf(b.accountId)).toBe(2);

    // Only the owner refreshes: A's next public research of the idea updates A's own insight (same id), never the demo's.
    // With one send left of its day (Free: 50), one other tenant is told and the other is not.
    await db().updateTable('webhook_sends_daily').set({ replays: 45 }).where('account_id', '=', a.accountId).execute();
    const again = await publicResearch(a.key, 'Dog walking marketplace (simulated demo)');
    expect(again.insight_id).toBe(mine.insight_id);
    expect(await insightRow(demo)).toEqual(demoBefore);
    const updates = (await eventsOf(mine.insight_id!)).filter((e) => e.type === 'insight.updated');
    expect(updates).toHaveLength(1);
    const told = await deliveredTo(updates[0]!.id);
    expect(told).toContain(subA); // its own subscription is its own business
    expect(told.filter((s) => s !== subA)).toHaveLength(1);
    expect(await sharedOf(a.accountId)).toBe(5);
  }, 300_000);
});

describe('titles lose what no one sees', () => {
  it('zero-width, joiners and the BOM are stripped at submission; controls and bidi overrides are refused by name', async () => {
    const a = await t.researchKey('free');
    const res = await api(a.key, 'POST', '/api/research-runs', {
      idea: 'Kayak\u200b tide\u200d tables\u2061 for anglers\ufeff',
      visibility: 'private',
    });
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json().data.idea).toBe('Kayak tide tables for anglers');
    for (const idea of ['Kayak \u202etide tables', 'Kayak \u0007tide tables', 'Kayak \u2066tide\u2069 tables']) {
      const refused = await api(a.key, 'POST', '/api/research-runs', { idea, visibility: 'public' });
      expect(refused.statusCode, idea).toBe(400);
      expect(refused.json().detail).toMatch(/control character U\+/);
    }
  });
});
