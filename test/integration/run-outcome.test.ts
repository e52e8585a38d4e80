// Issue 49, item 3: runs that say why, and cost only what they deliver. A run
// that fails because Google could not be reached, or refused it, gives its run
// of the allowance back, once, whatever retries and reopens do; its page and
// the API say why and what to do, and the steps it never reached read "not
// run". Replay refuses what it has no recording of before charging anything,
// and a submission's estimate says so when Google is not answering.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STEP_NAMES } from '../../src/domain/research/step-names.js';
import { createInvitation } from '../../src/members/invitations.js';
import { createApiKey } from '../../src/api-keys/api-key.repository.js';
import { insertInsight } from '../support/fixtures.js';
import { refundFailedRun } from '../../src/research/allowance.repository.js';
import { StepQueue } from '../../src/research/step-queue.js';
import { ResearchService } from '../../src/research/research-service.js';
import { failRun } from '../../src/research/run-outcome.js';
import { reopenRun, type RunRow } from '../../src/research/run.repository.js';
import { ReplayTrendsProvider } from '../../src/providers/replay/provider.js';
import { PageAgent, ORIGIN } from '../support/account-pages.js';
import { bearer, createTestApp, TEST_RESEARCH, type TestApp } from '../support/app.js';
import { REPLAY_DIR } from '../support/shared-data.js';

/** What the trends job leaves in a step's error when the egress proxy refuses the tunnel (src/providers/google/egress/routes.ts). */
const UNREACHABLE = 'proxy 127.0.0.1:9 refused CONNECT trends.google.com:443 (502)';
/** A failure of the answer, not of the reach: it still costs. */
const UNRECOGNISED = 'Google Trends answered interest over time for "x" in a malformed shape';

let t: TestApp;

beforeAll(async () => {
  // Live Google as the series provider (no workers: the runs stay where the test puts them), paced as production is.
  t = await createTestApp({
    cacheTtlSeconds: 0,
    research: { provider: 'google', reuseDays: 0 },
    webhookAllowedCidrs: ['127.0.0.1/32'],
  });
});
afterAll(async () => {
  await t?.close();
});

const api = (key: string, method: 'GET' | 'POST', url: string, body?: unknown) =>
  t.app.inject({
    method,
    url,
    headers: { ...bearer(key), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });

async function submit(key: string, idea: string): Promise<{ run: { id: string }; queue: Record<string, unknown> }> {
  const res = await api(key, 'POST', '/api/research-runs', { idea, geo: 'US' });
  expect(res.statusCode, res.body).toBe(202);
  const body = res.json<{ data: { id: string }; queue: Record<string, unknown> }>();
  return { run: body.data, queue: body.queue };
}

const usage = async (key: string) =>
  (await api(key, 'GET', '/api/usage')).json<{ data: { research: { limit: number; used: number; remaining: number; refunded: number } } }>()
    .data.research;

/** Fails the run at `step` as the step runner does when its last attempt fails. */
const fail = (runId: string, step: number, error: string) =>
  failRun(t.database.db, runId, step, `step ${step} (interest_30d) failed: ${error}`);

const runRow = (id: string): Promise<RunRow> =>
  t.database.db.selectFrom('research_runs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

describe('a run failed by the provider gives its allowance back', () => {
  it('once, however often its failure is recorded (concurrently, or after a reopen), visible in /api/usage; another failure still costs', async () => {
    const { key } = await t.researchKey('free');
    const { run } = await submit(key, 'cat water fountains');
    expect(await usage(key)).toMatchObject({ limit: 3, used: 1, remaining: 2, refunded: 0 });

    // Ten workers record the same failure at once (retried deliveries): the run fails once, and is given back once.
    await Promise.all(Array.from({ length: 10 }, () => fail(run.id, 7, UNREACHABLE)));
    expect(await usage(key)).toMatchObject({ used: 0, remaining: 3, refunded: 1 });

    // The refund itself raced directly, ten transactions at once: still one.
    const row = await runRow(run.id);
    const given = await Promise.all(
      Array.from({ length: 10 }, () =>
        t.database.db
          .transaction()
          .execute((trx) => refundFailedRun(trx, { id: run.id, accountId: row.account_id!, chargedAt: row.created_at }, 'unreachable')),
      ),
    );
    expect(given.filter(Boolean)).toHaveLength(0);
    // Reopened (an operator's retry) and failed the same way again: nothing more is given back.
    expect(await reopenRun(t.database.db, run.id)).toBe(1);
    await fail(run.id, 7, UNREACHABLE);
    expect(await usage(key)).toMatchObject({ used: 0, remaining: 3, refunded: 1 });
    const refunds = await t.database.db.selectFrom('research_allowance_refunds').selectAll().where('run_id', '=', run.id).execute();
    expect(refunds).toHaveLength(1);
    expect(refunds[0]).toMatchObject({ account_id: row.account_id, reason: 'unreachable' });

    // Blocked by Google (429) is the provider's refusal too.
    const blocked = await submit(key, 'dog water fountains');
    await fail(blocked.run.id, 7, 'Google Trends rate limited the request (429) on every route');
    expect(await usage(key)).toMatchObject({ used: 0, refunded: 2 });

    // An answer Google gave that could not be read is no failure of reach: it costs.
    const broken = await submit(key, 'bird water fountains');
    await fail(broken.run.id, 7, UNRECOGNISED);
    expect(await usage(key)).toMatchObject({ used: 1, remaining: 2, refunded: 2 });
  });

  it("an operator's run (no allowance) gives nothing back", async () => {
    const { key, accountId } = await t.researchKey('free');
    const run = await t.database.db
      .insertInto('research_runs')
      .values({
        id: 'run_operatorrefund1',
        idea: 'x',
        idea_key: 'x',
        keyword_hints: '[]',
        provider: 'google',
        source: 'research',
        started_by: 'cli',
        status: 'running',
        account_id: accountId,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await fail(run.id, 7, UNREACHABLE);
    expect(await usage(key)).toMatchObject({ used: 0, refunded: 0 });
    expect(await t.database.db.selectFrom('research_allowance_refunds').selectAll().where('run_id', '=', run.id).execute()).toHaveLength(0);
  });
});

describe('a failed run says why and what to do', () => {
  it('in the API (what_to_do, allowance_refunded; later steps "not run") and on its page, as a sentence', async () => {
    const { key, accountId } = await t.researchKey('free');
    const { run } = await submit(key, 'solar phone chargers');
    await t.database.db
      .insertInto('research_steps')
      .values(
        [1, 2].map((step) => ({ run_id: run.id, step, name: STEP_NAMES[step - 1]!, status: 'done' as const, summary: `did ${step}` })),
      )
      .execute();
    await t.database.db.updateTable('research_runs').set({ status: 'running', next_step: 3 }).where('id', '=', run.id).execute();
    await t.database.db
      .insertInto('research_steps')
      .values({ run_id: run.id, step: 3, name: 'autocomplete_phrases', status: 'failed', attempts: 3, error: UNREACHABLE })
      .execute();
    await fail(run.id, 3, UNREACHABLE);

    const report = (await api(key, 'GET', `/api/research-runs/${run.id}`)).json<{
      data: { error: string; what_to_do: string; allowance_refunded: boolean; steps: Array<{ step: number; status: string }> };
    }>().data;
    expect(report.error).toBe('step 3 (autocomplete_phrases) failed: Google Trends could not be reached');
    expect(report.what_to_do).toMatch(/could not reach Google Trends; nothing is wrong with the idea\. Submit it again later\./);
    expect(report.what_to_do).toContain('research allowance was given back');
    expect(report.allowance_refunded).toBe(true);
    expect(report.steps.slice(0, 4).map((s) => s.status)).toEqual(['done', 'done', 'failed', 'not run']);
    expect(report.steps.filter((s) => s.status === 'pending')).toHaveLength(0);
    expect(report.steps.filter((s) => s.status === 'not run')).toHaveLength(37);
    const listed = (await api(key, 'GET', '/api/research-runs')).json<{ data: Array<{ id: string; what_to_do: string | null }> }>();
    expect(listed.data.find((r) => r.id === run.id)?.what_to_do).toBe(report.what_to_do);

    const agent = await signedIn(accountId, 'failed-run@example.com');
    const page = await agent.get(`/account/research/${run.id}`);
    expect(page.statusCode, page.body).toBe(200);
    expect(page.body).toMatch(
      /This run failed \(ended [^)]+\): step 3 \(autocomplete_phrases\) failed: Google Trends could not be reached\./,
    );
    expect(page.body).toContain('<strong>What to do:</strong> This service could not reach Google Trends');
    expect(page.body).toContain('research allowance was given back');
    expect(page.body).not.toContain('This run is failed');
    // The failed step says how it failed (not "—"); the steps after it were never run.
    expect(page.body).toContain(
      '<tr><td>3</td><td>autocomplete_phrases</td><td>failed</td><td>Google Trends could not be reached</td></tr>',
    );
    expect(page.body).toContain('<tr><td>4</td><td>choose_primary</td><td>not run</td><td>—</td></tr>');
    expect(page.body).not.toContain('<td>pending</td>');
    // The Overview shows what was given back.
    expect((await agent.get('/account')).body).toMatch(/<dt>Research runs<\/dt><dd>0 of 3 \(3 left\); 1 given back/);

    // A waiting run: its reason and that nothing needs doing; a succeeded one in plain grammar.
    const waiting = await submit(key, 'solar lanterns');
    await t.database.db
      .updateTable('research_runs')
      .set({ status: 'waiting', waiting_reason: 'waiting for Google Trends (interest over time for "solar lanterns") — route cooling' })
      .where('id', '=', waiting.run.id)
      .execute();
    const waitingPage = await agent.get(`/account/research/${waiting.run.id}`);
    expect(waitingPage.body).toContain(
      'This run is waiting: waiting for Google Trends (interest over time for &quot;solar lanterns&quot;).',
    );
    expect(waitingPage.body).not.toContain('route cooling');
    expect(waitingPage.body).toContain('<strong>What to do:</strong> Nothing: the run goes on by itself');
    await t.database.db
      .updateTable('research_runs')
      .set({ status: 'succeeded', next_step: 41, finished_at: new Date() })
      .where('id', '=', waiting.run.id)
      .execute();
    const done = await agent.get(`/account/research/${waiting.run.id}`);
    expect(done.body).toMatch(/This run succeeded \(ended /);
    expect(done.body).not.toContain('This run is succeeded');
  });
});

describe('estimates follow the provider', () => {
  it('while the latest run asking Google failed unreachable (or the canary says so), no time is promised; a success clears it', async () => {
    const { key } = await t.researchKey('starter');
    const before = await submit(key, 'electric kick scooters');
    expect(before.queue.estimated_finish_at).toEqual(expect.any(String));
    expect(before.queue.estimate_note).toBeNull();

    await fail(before.run.id, 7, UNREACHABLE);
    const during = await submit(key, 'electric skateboards');
    expect(during.queue).toMatchObject({ estimated_start_at: null, estimated_finish_at: null });
    expect(during.queue.estimate_note).toMatch(
      /^No time can be promised: Google Trends cannot be reached \(the latest run asking Google failed: Google Trends could not be reached, /,
    );

    // A run asking Google succeeds after the outage: the newest evidence says Google answers.
    await t.database.db
      .updateTable('research_runs')
      .set({ status: 'succeeded', next_step: 41, finished_at: new Date(Date.now() + 1_000) })
      .where('id', '=', during.run.id)
      .execute();
    const after = await submit(key, 'electric unicycles');
    expect(after.queue.estimate_note).toBeNull();
    expect(after.queue.estimated_finish_at).toEqual(expect.any(String));

    // The canary, newer than any run: blocked.
    const service = new ResearchService(
      t.database.db,
      new StepQueue(undefined as never),
      { ...TEST_RESEARCH, provider: 'google' },
      () => new Date(Date.now() + 5_000),
      async () => ({ checkedAt: new Date(Date.now() + 4_000), verdict: 'blocked', detail: 'Google blocked this client (sorry_302)' }),
    );
    expect(await service.googleTrouble()).toMatchObject({ state: 'blocked', evidence: 'the Google canary: blocked' });
  });
});

describe('replay refuses at once what it has no recording of', () => {
  let replay: TestApp;
  beforeAll(async () => {
    replay = await createTestApp({
      cacheTtlSeconds: 0,
      research: { provider: 'replay', reuseDays: 0, replay: new ReplayTrendsProvider(REPLAY_DIR).coverage() },
    });
  });
  afterAll(async () => {
    await replay?.close();
  });

  it('422 problem+json naming the recorded phrases and markets, nothing charged; a recorded idea is accepted', async () => {
    const { key } = await replay.researchKey('free');
    const post = (body: unknown) =>
      replay.app.inject({
        method: 'POST',
        url: '/api/research-runs',
        headers: { ...bearer(key), 'content-type': 'application/json' },
        payload: JSON.stringify(body),
      });
    const us = await post({ idea: 'pizza', geo: 'US' });
    expect(us.statusCode, us.body).toBe(422);
    expect(us.headers['content-type']).toMatch(/^application\/problem\+json/);
    const problem = us.json<{ type: string; detail: string; invalid_params: Array<{ name: string; allowed: string[] }> }>();
    expect(problem.type).toBe('/problems/not-answerable');
    expect(problem.detail).toContain('no market "US"');
    expect(problem.detail).toContain('"pizza"');
    expect(problem.detail).toContain('worldwide ("")');
    expect(problem.invalid_params).toEqual([{ name: 'geo', reason: 'is not a recorded market', allowed: [''] }]);

    const unknown = await post({ idea: 'AI meal planner for busy parents', geo: '' });
    expect(unknown.statusCode, unknown.body).toBe(422);
    const unknownProblem = unknown.json<{ invalid_params: Array<{ name: string; allowed: string[] }> }>();
    expect(unknownProblem.invalid_params[0]).toMatchObject({ name: 'idea', allowed: ['pizza'] });
    // The anchor's series was recorded, its autocomplete was not: a run on it would fail at autocomplete_phrases.
    const anchor = await post({ idea: 'bagel', geo: '' });
    expect(anchor.statusCode, anchor.body).toBe(422);

    // A recorded word inside the idea is not enough: the run researches the idea's own phrase.
    const dough = await post({ idea: 'pizza dough recipes', geo: '' });
    expect(dough.statusCode, dough.body).toBe(422);
    expect(dough.json<{ detail: string }>().detail).toContain('no phrase of this idea');

    const usageOf = async () =>
      (await replay.app.inject({ url: '/api/usage', headers: bearer(key) })).json<{ data: { research: { used: number } } }>().data.research
        .used;
    expect(await usageOf()).toBe(0);
    const accepted = await post({ idea: 'pizza', geo: '' });
    expect(accepted.statusCode, accepted.body).toBe(202);
    expect(await usageOf()).toBe(1);
  });
});

describe('the small things', () => {
  it("a key without the scope is told the scope it needs in the API's words, not a CLI flag", async () => {
    const { key } = await createApiKey(t.database.db, 'read only', 'pro', null, ['insights:read']);
    const res = await api(key, 'POST', '/api/research-runs', { idea: 'portable saunas', geo: 'US' });
    expect(res.statusCode).toBe(403);
    const detail = res.json<{ detail: string }>().detail;
    expect(detail).toContain('lacks the scope research:write that POST /api/research-runs needs');
    expect(detail).toContain('Use a key with the scope research:write');
    expect(detail).not.toContain('--scope');
  });

  it('the Webhooks page names what each delivery was about: the insight (linked) or the idea of a run', async () => {
    const { key, accountId } = await t.researchKey('pro');
    const created = await api(key, 'POST', '/api/webhooks', { url: 'http://127.0.0.1:9/about-hook' });
    expect(created.statusCode, created.body).toBe(201);
    const subscriptionId = created.json<{ data: { id: string } }>().data.id;
    const insightId = await insertInsight(t.database.db, { score: 0.8, title: 'Heated bike grips' });
    const events = await t.database.db
      .insertInto('outbox_events')
      .values([
        { id: 'evt_aboutinsight1', type: 'insight.created', insight_id: insightId, payload: JSON.stringify({ id: insightId }) },
        { id: 'evt_aboutrun1', type: 'research.failed', insight_id: null, payload: JSON.stringify({ idea: 'heated ski gloves' }) },
      ])
      .returning('id')
      .execute();
    await t.database.db
      .insertInto('webhook_deliveries')
      .values(
        events.map((e, i) => ({ id: `dlv_about${i}`, event_id: e.id, subscription_id: subscriptionId, status: 'succeeded' as const })),
      )
      .execute();
    const agent = await signedIn(accountId, 'hooks-about@example.com');
    const page = await agent.get('/account/webhooks');
    expect(page.statusCode, page.body).toBe(200);
    expect(page.body).toContain('<th scope="col">About</th>');
    expect(page.body).toContain(`<td>insight.created</td><td><a href="/account/insights/${insightId}/report">Heated bike grips</a></td>`);
    expect(page.body).toContain('<td>research.failed</td><td>heated ski gloves</td>');
  });
});

async function signedIn(accountId: string, email: string): Promise<PageAgent> {
  const invitation = await createInvitation(
    t.database.db,
    { accountId, accountName: 'runs', email, role: 'owner', invitedBy: null },
    ORIGIN,
    { printTo: 'operator' },
  );
  if (invitation.kind !== 'printed') throw new Error(`no invitation: ${invitation.kind}`);
  const agent = new PageAgent(t.app);
  const password = 'a long enough passphrase';
  expect((await agent.acceptInvitation(invitation.link, password)).statusCode).toBe(303);
  expect((await agent.signIn(email, password)).statusCode).toBe(303);
  return agent;
}
