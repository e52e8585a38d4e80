// Markup injection, page by page (issue 50): every field a person or a client controls (an account's name, a
// person's email, a key's name, an idea and its insight's texts, a run's step summary, a webhook's URL, keywords,
// reasons and last error, a search and a filter) holds a payload of three attacks, and every page that shows one
// must show it as text: the payload escaped is on the page (so the field is really shown there), and none of its
// markup is (no script, no image, no attribute broken out of with either quote). The report, served by the pages
// and by the API, is checked the same way.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/api-keys/api-key.repository.js';
import { createInvitation } from '../../src/members/invitations.js';
import { PAGES_DEFAULTS } from '../../src/config.js';
import { escapeXml } from '../../src/domain/text.js';
import { newId } from '../../src/domain/ids.js';
import { bearer, createTestApp, type TestApp } from '../support/app.js';
import { insertInsight } from '../support/fixtures.js';
import { csrfOf, ORIGIN, PageAgent } from '../support/account-pages.js';

const ATTACKS = ['<script>alert(1)</script>', '"><img src=x onerror=1>', "' onmouseover='"] as const;
const PAYLOAD = ATTACKS.join(' ');
const SHOWN = escapeXml(PAYLOAD);
/** An address that holds the payload (stored directly: no form accepts it, but older rows or an operator's may). */
const EVIL_EMAIL = `${PAYLOAD}@example.com`;

/** The page shows the payload as text at least `times` times, and none of its markup. */
function expectInert(body: string, times = 1): void {
  for (const attack of ATTACKS) expect(body, `raw ${attack}`).not.toContain(attack);
  expect(body).not.toMatch(/<script|<img/i);
  expect(body.split(SHOWN).length - 1, 'the payload, escaped, is on the page').toBeGreaterThanOrEqual(times);
}

let t: TestApp;
let accountId: string;
let apiKey: string;
let owner: PageAgent;
let insightA: string;
let insightB: string;
let runId: string;
let subscriptionId: string;
const OWNER = { email: 'owner@injection.test', password: 'a long enough passphrase' };

const linkOf = (outcome: Awaited<ReturnType<typeof createInvitation>>): string => {
  if (outcome.kind !== 'printed') throw new Error(`no invitation was made: ${outcome.kind}`);
  return outcome.link;
};
const invite = (account: string, email: string, role: 'owner' | 'member' = 'owner') =>
  createInvitation(t.database.db, { accountId: account, accountName: PAYLOAD, email, role, invitedBy: null }, ORIGIN, {
    printTo: 'operator',
  }).then(linkOf);

beforeAll(async () => {
  t = await createTestApp({
    cacheTtlSeconds: 0,
    webhookAllowedCidrs: ['127.0.0.1/32'],
    research: {},
    pages: { ...PAGES_DEFAULTS, perSessionPerMinute: 100_000, perAccountPerMinute: 100_000 },
  });
  const db = t.database.db;
  // The account's name is the payload: the frame of every signed-in page shows it.
  const created = await createApiKey(db, PAYLOAD, 'pro', null, ['insights:read', 'research:write', 'webhooks:write']);
  accountId = created.accountId;
  apiKey = created.key;
  owner = new PageAgent(t.app);
  expect((await owner.acceptInvitation(await invite(accountId, OWNER.email), OWNER.password)).statusCode).toBe(303);
  expect((await owner.signIn(OWNER.email, OWNER.password)).headers.location).toBe('/account');

  // A member whose address is the payload, a pending invitation to another, and a second account of the owner's.
  const member = new PageAgent(t.app);
  expect((await member.acceptInvitation(await invite(accountId, 'member@injection.test', 'member'), 'another passphrase')).statusCode).toBe(
    303,
  );
  await db.updateTable('people').set({ email: EVIL_EMAIL }).where('email', '=', 'member@injection.test').execute();
  await invite(accountId, 'pending@injection.test', 'member');
  await db.updateTable('account_invitations').set({ email: EVIL_EMAIL }).where('email', '=', 'pending@injection.test').execute();
  const second = await createApiKey(db, PAYLOAD, 'free');
  const ownerPerson = await db.selectFrom('people').select('id').where('email', '=', OWNER.email).executeTakeFirstOrThrow();
  await db
    .insertInto('account_members')
    .values({ id: newId('member'), account_id: second.accountId, person_id: ownerPerson.id, role: 'member' })
    .execute();

  // Two public insights whose texts are the payload.
  insightA = await insertInsight(db, { score: 0.7, title: PAYLOAD, idea: PAYLOAD, keywords: [PAYLOAD] });
  insightB = await insertInsight(db, { score: 0.6, title: PAYLOAD, idea: PAYLOAD });
  await db.updateTable('insights').set({ summary: PAYLOAD }).where('id', 'in', [insightA, insightB]).execute();
});
afterAll(async () => {
  await t?.close();
});

describe('every page shows what others typed as text, never as markup', () => {
  it('sign in: an address typed back into the form', async () => {
    const agent = new PageAgent(t.app);
    const page = await agent.get('/account/sign-in');
    const res = await agent.post('/account/sign-in', { csrf: csrfOf(page.body), email: PAYLOAD, password: 'wrong password' });
    expect(res.statusCode).toBe(401);
    // Lower-cased as the form keeps it.
    for (const attack of ATTACKS) expect(res.body).not.toContain(attack);
    expect(res.body).toContain(`value="${escapeXml(PAYLOAD.trim().toLowerCase())}"`);
  });

  it('an invitation: the account it invites to and the address', async () => {
    const link = await invite(accountId, 'newcomer@injection.test', 'member');
    await t.database.db
      .updateTable('account_invitations')
      .set({ email: EVIL_EMAIL })
      .where('email', '=', 'newcomer@injection.test')
      .execute();
    const res = await new PageAgent(t.app).get(new URL(link).pathname);
    expect(res.statusCode).toBe(200);
    // Title, the sentence, the address twice (bold and the form's value).
    expectInert(res.body, 4);
  });

  it('Overview: the frame (account name, the signed-in address)', async () => {
    await t.database.db
      .updateTable('people')
      .set({ email: `owner${PAYLOAD}@injection.test` })
      .where('email', '=', OWNER.email)
      .execute();
    try {
      const res = await owner.get('/account');
      expect(res.statusCode).toBe(200);
      expectInert(res.body, 2);
    } finally {
      await t.database.db.updateTable('people').set({ email: OWNER.email }).where('email', '=', `owner${PAYLOAD}@injection.test`).execute();
    }
  });

  it('API Keys: a key named with the payload, shown once, listed, asked about and revoked', async () => {
    const page = await owner.get('/account/keys');
    const made = await owner.submit('/account/keys', {
      csrf: csrfOf(page.body),
      name: PAYLOAD,
      scopes: ['insights:read'],
      expiry: 'never',
    });
    expect(made.posted.statusCode).toBe(303);
    // The shown-once notice, the list (name and two buttons' labels) and the account's name (frame and heading).
    expectInert(made.body, 6);
    // The newest key of that name: the account's first key (the API's, named after the account) is the payload too.
    const key = await t.database.db
      .selectFrom('api_keys')
      .select('id')
      .where('name', '=', PAYLOAD)
      .where('account_id', '=', accountId)
      .orderBy('created_at', 'desc')
      .limit(1)
      .executeTakeFirstOrThrow();
    const csrf = csrfOf(made.body);
    const ask = await owner.post(`/account/keys/${key.id}/revoke`, { csrf });
    expect(ask.statusCode).toBe(200);
    expectInert(ask.body, 3);
    const revoked = await owner.submit(`/account/keys/${key.id}/revoke`, { csrf, confirm: 'yes' });
    expect(revoked.statusCode).toBe(200);
    expectInert(revoked.body, 3);
    expect(revoked.body).toContain(`Revoked “${SHOWN}”`);
  });

  it('Webhooks: the receiver URL, keywords, a disabled reason and a delivery’s last error', async () => {
    const page = await owner.get('/account/webhooks');
    const made = await owner.submit('/account/webhooks', { csrf: csrfOf(page.body), url: 'http://127.0.0.1:9/hook', keywords: PAYLOAD });
    expect(made.posted.statusCode, made.posted.body).toBe(303);
    const row = await t.database.db
      .selectFrom('webhook_subscriptions')
      .select('id')
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    subscriptionId = row.id;
    const tested = await owner.submit(`/account/webhooks/${subscriptionId}/test`, { csrf: csrfOf(made.body) });
    expect(tested.posted.statusCode, tested.posted.body).toBe(303);
    await t.database.db
      .updateTable('webhook_subscriptions')
      .set({ url: `http://127.0.0.1:9/${PAYLOAD}`, state: 'disabled', disabled_reason: PAYLOAD, disabled_by: 'account' })
      .where('id', '=', subscriptionId)
      .execute();
    await t.database.db
      .updateTable('webhook_deliveries')
      .set({ last_error: PAYLOAD })
      .where('subscription_id', '=', subscriptionId)
      .execute();
    const res = await owner.get('/account/webhooks');
    expect(res.statusCode).toBe(200);
    for (const attack of ATTACKS) expect(res.body).not.toContain(attack);
    expect(res.body).not.toMatch(/<script|<img/i);
    // The URL is shown in its heading, the edit form's value, the buttons' labels and the deliveries' caption.
    expect(res.body).toContain(`<h2 id="h-${subscriptionId}">http://127.0.0.1:9/${SHOWN}</h2>`);
    expect(res.body).toContain(`value="http://127.0.0.1:9/${SHOWN}"`);
    expect(res.body).toContain(`value="${SHOWN}"`);
    expect(res.body).toContain(`<td>${SHOWN}</td>`);
    expect(res.body).toContain(`(${SHOWN})`);
  });

  it('Research: an idea typed into the form, a run of it listed, its step summary on the run page', async () => {
    const page = await owner.get('/account/research');
    const res = await owner.post('/account/research', { csrf: csrfOf(page.body), idea: PAYLOAD, geo: PAYLOAD.slice(0, 20) });
    // Refused (the market is no market) with the form kept: both values back in their fields.
    expect(res.statusCode).toBeGreaterThanOrEqual(400);
    expect(res.statusCode).toBeLessThan(500);
    expectInert(res.body, 2);
    expect(res.body).toContain(`value="${SHOWN}"`);

    const started = await owner.submit('/account/research', { csrf: csrfOf(page.body), idea: 'standing desks for kids', geo: 'US' });
    expect(started.posted.statusCode, started.posted.body).toBe(303);
    const run = await t.database.db.selectFrom('research_runs').select('id').where('account_id', '=', accountId).executeTakeFirstOrThrow();
    runId = run.id;
    await t.database.db.updateTable('research_runs').set({ idea: PAYLOAD, insight_id: insightA }).where('id', '=', runId).execute();
    await t.database.db
      .insertInto('research_steps')
      .values({
        run_id: runId,
        step: 1,
        name: 'normalise_idea',
        status: 'done',
        input_hash: null,
        output: null,
        summary: PAYLOAD,
        duration_ms: 1,
        error: null,
        started_at: new Date(),
        finished_at: new Date(),
      })
      .execute();
    const list = await owner.get('/account/research');
    expectInert(list.body, 1);
    const one = await owner.get(`/account/research/${runId}`);
    expect(one.statusCode).toBe(200);
    // The idea (twice: the facts and the insight's link) and the step's summary.
    expectInert(one.body, 3);
  });

  it('People: a member’s and an invitation’s address, the account and the other account’s names', async () => {
    const res = await owner.get('/account/people');
    expect(res.statusCode).toBe(200);
    // Emails: the member (cell, remove button label, hidden value) and the invitation (same three).
    expectInert(res.body, 6);
    expect(res.body).toContain(`value="${escapeXml(EVIL_EMAIL)}"`);
  });

  it('Insights: the list (a search typed, a filter refused), an insight’s page and the comparison', async () => {
    const searched = await owner.get(`/account/insights?q=${encodeURIComponent(PAYLOAD)}`);
    expect(searched.statusCode).toBe(200);
    expectInert(searched.body, 1);
    const list = await owner.get('/account/insights');
    // Each insight's title: the link, the compare box's label and the sparkline's title.
    expectInert(list.body, 4);
    const refused = await owner.get(`/account/insights?category=${encodeURIComponent(PAYLOAD)}`);
    expect(refused.statusCode).toBe(400);
    for (const attack of ATTACKS.slice(0, 2)) expect(refused.body).not.toContain(attack);
    expect(refused.body).not.toMatch(/<script|<img/i);
    expect(refused.body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    const one = await owner.get(`/account/insights/${insightA}`);
    expect(one.statusCode).toBe(200);
    // Title (frame's title and h1), idea, summary.
    expectInert(one.body, 4);
    // The chart, built with the same tag: the title in its aria-label, its <title> and its heading.
    const chart = /<figure class="chart">(<svg[\s\S]*?<\/svg>)/.exec(one.body)?.[1] ?? '';
    expectInert(chart, 3);
    const compared = await owner.get(`/account/compare?id=${insightA}&id=${insightB}`);
    expect(compared.statusCode).toBe(200);
    // Both titles and the account's name in the frame.
    expectInert(compared.body, 3);
  });

  it('the printable report, from the pages and from the API', async () => {
    const fromPage = await owner.get(`/account/insights/${insightA}/report`);
    expect(fromPage.statusCode).toBe(200);
    expectInert(fromPage.body, 3);
    const fromApi = await t.app.inject({ url: `/api/insights/${insightA}/report`, headers: { ...bearer(apiKey), accept: 'text/html' } });
    expect(fromApi.statusCode).toBe(200);
    expect(fromApi.headers['content-type']).toMatch(/^text\/html/);
    expectInert(fromApi.body, 3);
  });

  it('the chart the API draws', async () => {
    const svg = await t.app.inject({ url: `/api/insights/${insightA}/chart.svg`, headers: bearer(apiKey) });
    expect(svg.statusCode).toBe(200);
    expectInert(svg.body, 3);
  });
});
