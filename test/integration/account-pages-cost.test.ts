// What an account page costs the service, whatever the account holds, and what it answers when the service has
// nothing left (issue 48, second outside review, 2026-11-28). The Webhooks tab ran two queries per subscription
// (200 subscriptions and four looping sessions took another tenant's API read from 24 ms to 2.7 s and timed
// out the pool); it runs one per page now, SUBSCRIPTIONS_PER_PAGE subscriptions a page. And a page whose request
// waited in vain for a database connection answered 500 where SECURITY.md promises 503 for outages.
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createInvitation } from '../../src/members/invitations.js';
import { createApiKey } from '../../src/api-keys/api-key.repository.js';
import type { Database } from '../../src/db/database.js';
import { newId } from '../../src/domain/ids.js';
import { SUBSCRIPTIONS_PER_PAGE } from '../../src/http/pages/webhooks.pages.js';
import { createPingDelivery } from '../../src/webhooks/delivery.repository.js';
import { buildTestApp } from '../support/app.js';
import { csrfOf, ORIGIN, PageAgent } from '../support/account-pages.js';
import type { TestDatabase } from '../support/database.js';
import type { TestRedis } from '../support/redis.js';
import { createTestStack, type TestStack } from '../support/stack.js';

let database: TestDatabase;
let redis: TestRedis;
let stack: TestStack;
let app: FastifyInstance;
/** The app's own database handle: ONE connection, so a test can hold it. */
let appDb: Kysely<Database>;
/**
 * Its pool. It waits as long as a loaded CI machine needs while the tests set up and read pages (a 1 s wait
 * failed CI at 20:32 on 2026-11-28: the invitation page's own queries queued behind each other past it), and
 * only 1 s while a test holds the connection on purpose. pg-pool reads the wait from its options at each
 * connect, so the test changes it there.
 */
let appPool: pg.Pool;
const PATIENT_WAIT_MS = 30_000;
const queries: string[] = [];

beforeAll(async () => {
  stack = await createTestStack();
  ({ database, redis } = stack);
  appPool = new pg.Pool({ connectionString: database.url, max: 1, connectionTimeoutMillis: PATIENT_WAIT_MS });
  appDb = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: appPool }),
    log: (event) => {
      if (event.level === 'query') queries.push(event.query.sql);
    },
  });
  app = await buildTestApp({ database, redis, db: appDb });
  await app.ready();
});
afterAll(async () => {
  await app.close();
  await appDb.destroy();
  await stack?.close();
});

let accounts = 0;
/** An Enterprise account with `subscriptions` subscriptions (the first with a pending ping), and its owner signed in. */
async function accountWith(subscriptions: number) {
  accounts += 1;
  const account = await createApiKey(database.db, `cost account ${accounts}`, 'enterprise');
  const rows = Array.from({ length: subscriptions }, (_, i) => ({
    id: newId('subscription'),
    url: `https://receiver-${accounts}.example/hook/${i}`,
    secret_encrypted: 'not read by the page',
    min_score: null,
    categories: '[]',
    sources: '[]',
    keywords: '[]',
    event_types: '[]',
    state: 'enabled' as const,
    account_id: account.accountId,
  }));
  await database.db.insertInto('webhook_subscriptions').values(rows).execute();
  await database.db.transaction().execute((trx) => createPingDelivery(trx, rows[0]!.id, { type: 'ping' }));
  const email = `owner${accounts}@cost.example`;
  const password = `owner ${accounts} long password`;
  const invited = await createInvitation(
    database.db,
    { accountId: account.accountId, accountName: 'cost', email, role: 'owner', invitedBy: null },
    ORIGIN,
    { printTo: 'operator' },
  );
  if (invited.kind !== 'printed') throw new Error(invited.kind);
  const agent = new PageAgent(app);
  expect((await agent.acceptInvitation(invited.link, password)).statusCode).toBe(303);
  expect((await agent.signIn(email, password)).statusCode).toBe(303);
  return { agent, rows, key: account.key };
}

/** The queries of the webhook tables one GET of the page ran. */
async function webhookQueriesOf(agent: PageAgent, url: string) {
  const from = queries.length;
  const page = await agent.get(url);
  expect(page.statusCode, page.body.slice(0, 500)).toBe(200);
  return { page, count: queries.slice(from).filter((q) => /webhook_(subscriptions|deliveries)/.test(q)).length };
}

describe('the Webhooks tab', () => {
  it('costs the same queries for 1 subscription as for 200, and shows them a page at a time', async () => {
    const one = await accountWith(1);
    const many = await accountWith(200);
    const small = await webhookQueriesOf(one.agent, '/account/webhooks');
    const big = await webhookQueriesOf(many.agent, '/account/webhooks');
    expect(big.count).toBe(small.count);
    expect(big.count).toBe(1);
    // The one subscription, its ping among its deliveries; no "more".
    expect(small.page.body).toContain(one.rows[0]!.url);
    expect(small.page.body).toMatch(/<td>ping<\/td><td>—<\/td><td>pending<\/td>/);
    expect(small.page.body).not.toContain('More subscriptions');
    // 200: the oldest SUBSCRIPTIONS_PER_PAGE, then the next page through "More subscriptions", and so on to the end.
    const seen: string[] = [];
    let body = big.page.body;
    for (;;) {
      seen.push(...[...body.matchAll(/<h2 id="h-(sub_[a-z0-9]+)">/g)].map((m) => m[1]!));
      const next = /<a href="(\/account\/webhooks\?after=[A-Za-z0-9_-]+)">More subscriptions<\/a>/.exec(body);
      if (!next) break;
      const following = await webhookQueriesOf(many.agent, next[1]!);
      expect(following.count).toBe(1);
      body = following.page.body;
    }
    expect(seen).toHaveLength(200);
    expect(new Set(seen)).toEqual(new Set(many.rows.map((r) => r.id)));
    expect(big.page.body.match(/<h2 id="h-sub_/g)).toHaveLength(SUBSCRIPTIONS_PER_PAGE);
    // A forged "after" is refused with a page, not a 500.
    const forged = await many.agent.get('/account/webhooks?after=bm90LW91cnM');
    expect(forged.statusCode).toBe(400);
    expect(forged.body).toContain('The first page of your subscriptions');
  }, 120_000);
});

describe('a page while the database pool has no connection to give', () => {
  it('is a 503 page with Retry-After (not a 500), as the API answers', async () => {
    const { agent, key } = await accountWith(1);
    const csrf = csrfOf((await agent.get('/account/webhooks')).body);
    // The pool's one connection is held until the requests have been answered, and they wait 1 s for it.
    const answers = await appDb.connection().execute(async () => {
      appPool.options.connectionTimeoutMillis = 1_000;
      try {
        return await Promise.all([
          agent.get('/account/webhooks'),
          agent.post('/account/webhooks', { csrf, url: 'https://example.com/while-held' }),
          app.inject({ method: 'GET', url: '/api/insights', headers: { authorization: `Bearer ${key}` } }),
        ]);
      } finally {
        appPool.options.connectionTimeoutMillis = PATIENT_WAIT_MS;
      }
    });
    const [page, form, api] = answers;
    for (const res of [page!, form!]) {
      expect(res.statusCode, res.body.slice(0, 300)).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.body).toContain('Try again in a few seconds');
    }
    expect(api!.statusCode).toBe(503);
    expect(api!.headers['content-type']).toMatch(/^application\/problem\+json/);
    // The connection back, the page is served again.
    expect((await agent.get('/account/webhooks')).statusCode).toBe(200);
  }, 60_000);
});
