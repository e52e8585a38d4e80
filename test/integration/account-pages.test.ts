// The account's own pages over HTTP (issue 40): the protections a person relies on,
// each shown to refuse what it must and to let the honest request through (so a
// test that passes is not one that cannot fail): cross-site form posts, a session
// cookie used after sign-out, a session id planted before sign-in, 50 wrong passwords
// in a minute, a member revoking an owner's key, a cookie on /api and a key on
// /account. The first invitations are made by `insights accounts invite --print-link` itself, in process (an
// operator without SMTP); the People page mails its invitations to a loopback SMTP server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STEP_NAMES } from '../../src/domain/research/step-names.js';
import { createApiKey, createKeyForAccount } from '../../src/api-keys/api-key.repository.js';
import { PAGES_DEFAULTS } from '../../src/config.js';
import { createInvitation } from '../../src/members/invitations.js';
import { hashToken } from '../../src/members/tokens.js';
import { hashApiKey } from '../../src/domain/api-key.js';
import { SIGN_IN_LIMITS } from '../../src/members/sign-in-limiter.js';
import { bearer, createTestApp, type TestApp } from '../support/app.js';
import { insertInsight } from '../support/fixtures.js';
import { csrfOf, HOST, ORIGIN, PageAgent, recordingLogger, runCliInProcess } from '../support/account-pages.js';
import { smtpMailer, type Mailer } from '../../src/mail/mailer.js';
import { startLoopbackSmtp, type LoopbackSmtp } from '../support/smtp.js';

let t: TestApp;
let accountId: string;
let operatorKey: string;
const log = recordingLogger();
const OWNER = { email: 'owner@example.com', password: 'correct horse battery staple' };
const MEMBER = { email: 'member@example.com', password: 'another long passphrase' };
let owner: PageAgent;
let member: PageAgent;
let smtp: LoopbackSmtp;
let mailer: Mailer;

const keyCount = async () =>
  Number(
    (
      await t.database.db
        .selectFrom('api_keys')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );
/** The link of an invitation that was made (fails the test when it was refused). */
const linkOf = (outcome: Awaited<ReturnType<typeof createInvitation>>): string => {
  if (outcome.kind !== 'printed') throw new Error(`no invitation was made: ${outcome.kind}`);
  return outcome.link;
};
/** An operator's invitation, its link handed to the test (as `insights accounts invite --print-link` prints it). */
const operatorInvite = (accountId: string, email: string, role: 'owner' | 'member' = 'member', now?: Date) =>
  createInvitation(
    t.database.db,
    { accountId, accountName: 'an account', email, role, invitedBy: null },
    ORIGIN,
    { printTo: 'operator' },
    now,
  );
const keyFrom = (html: string) => /id="new-key"[^>]*value="(sik_[A-Za-z0-9]+)"/.exec(html)?.[1];
const keyIdOf = async (key: string) =>
  (await t.database.db.selectFrom('api_keys').select('id').where('key_hash', '=', hashApiKey(key)).executeTakeFirstOrThrow()).id;

async function invite(email: string, role: 'owner' | 'member'): Promise<string> {
  const out = await runCliInProcess(
    ['accounts', 'invite', '--account', accountId, '--email', email, '--role', role, '--print-link', '--json'],
    {
      ...t.database.env,
      REDIS_URL: t.redis.url,
      REDIS_PREFIX: t.redis.prefix,
      PUBLIC_BASE_URL: ORIGIN,
    },
  );
  return (JSON.parse(out) as { link: string }).link;
}

async function createKey(agent: PageAgent, name: string): Promise<{ key: string; id: string }> {
  const page = await agent.get('/account/keys');
  const res = await agent.submit('/account/keys', { csrf: csrfOf(page.body), name, scopes: ['insights:read'], expiry: 'never' });
  expect(res.posted.statusCode, res.posted.body).toBe(303);
  expect(res.statusCode, res.body).toBe(200);
  const key = keyFrom(res.body)!;
  return { key, id: await keyIdOf(key) };
}

beforeAll(async () => {
  smtp = await startLoopbackSmtp();
  mailer = smtpMailer({ url: smtp.url, from: 'Startup Insights <insights@pages.test>' });
  t = await createTestApp({
    mailer,
    cacheTtlSeconds: 0,
    logger: log.logger,
    trustProxy: ['127.0.0.1/32'],
    webhookAllowedCidrs: ['127.0.0.1/32'],
    research: {},
    // This file walks every page with one session, far past a person's 60 pages a minute; the limits
    // have their own tests (account-pages-limits.test.ts).
    pages: { ...PAGES_DEFAULTS, perSessionPerMinute: 100_000, perAccountPerMinute: 100_000 },
  });
  const created = await createApiKey(t.database.db, 'pages account', 'pro');
  accountId = created.accountId;
  operatorKey = created.key;
  owner = new PageAgent(t.app);
  member = new PageAgent(t.app);
  expect((await owner.acceptInvitation(await invite(OWNER.email, 'owner'), OWNER.password)).statusCode).toBe(303);
  expect((await member.acceptInvitation(await invite(MEMBER.email, 'member'), MEMBER.password)).statusCode).toBe(303);
  expect((await owner.signIn(OWNER.email, OWNER.password)).headers.location).toBe('/account');
  expect((await member.signIn(MEMBER.email, MEMBER.password)).headers.location).toBe('/account');
});
afterAll(async () => {
  mailer?.close();
  await t?.close();
  await smtp?.close();
});

describe('invitations', () => {
  it('the CLI (--print-link, no SMTP) prints a one-time link at PUBLIC_BASE_URL; the token is stored only as a hash and works once', async () => {
    const link = await invite('once@example.com', 'member');
    expect(link).toMatch(new RegExp(`^${ORIGIN}/account/invite/[A-Za-z0-9_-]{43}$`));
    const token = link.split('/').at(-1)!;
    const stored = await t.database.db.selectFrom('account_invitations').select('token_hash').execute();
    expect(stored.map((r) => r.token_hash)).toContain(hashToken(token));
    expect(JSON.stringify(stored)).not.toContain(token);
    const agent = new PageAgent(t.app);
    const short = await agent.post(new URL(link).pathname, {
      csrf: csrfOf((await agent.get(new URL(link).pathname)).body),
      password: 'short',
      confirm: 'short',
    });
    expect(short.statusCode).toBe(400);
    expect((await agent.acceptInvitation(link, 'a password long enough')).statusCode).toBe(303);
    expect((await agent.get(new URL(link).pathname)).statusCode).toBe(410);
    const hash = (
      await t.database.db.selectFrom('people').select('password_hash').where('email', '=', 'once@example.com').executeTakeFirstOrThrow()
    ).password_hash!;
    expect(hash).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
  });
});

describe('sessions', () => {
  it('the cookie is HttpOnly, SameSite=Strict, Path=/; __Host- and Secure over https', async () => {
    const plain = await new PageAgent(t.app).signIn(MEMBER.email, MEMBER.password);
    const cookie = [plain.headers['set-cookie']].flat().find((c) => c!.startsWith('si_session='))!;
    expect(cookie).toMatch(/; Path=\/; Max-Age=604800; HttpOnly; SameSite=Strict$/);
    const https = new PageAgent(t.app, { origin: `https://${HOST}`, headers: { 'x-forwarded-proto': 'https' } });
    const secure = await https.signIn(MEMBER.email, MEMBER.password);
    expect(secure.statusCode, secure.body).toBe(303);
    const secureCookie = [secure.headers['set-cookie']].flat().find((c) => c!.startsWith('__Host-si_session='))!;
    expect(secureCookie).toMatch(/; Path=\/; Max-Age=604800; HttpOnly; SameSite=Strict; Secure$/);
    expect((await https.get('/account')).statusCode).toBe(200);
  });

  it('a cookie copied before sign-out is refused after it', async () => {
    const agent = new PageAgent(t.app);
    await agent.signIn(OWNER.email, OWNER.password);
    const stolen = new PageAgent(t.app);
    for (const [name, value] of agent.cookies) stolen.cookies.set(name, value);
    const page = await stolen.get('/account/keys');
    expect(page.statusCode).toBe(200);
    const csrf = csrfOf(page.body);
    const out = await agent.post('/account/sign-out', { csrf });
    expect(out.headers.location).toBe('/account/sign-in?signed_out');
    const after = await stolen.get('/account/keys');
    expect(after.statusCode).toBe(303);
    expect(after.headers.location).toBe('/account/sign-in');
    const before = await keyCount();
    const write = await stolen.post('/account/keys', { csrf, name: 'with a stolen cookie', scopes: 'insights:read' });
    expect(write.statusCode).toBe(303);
    expect(await keyCount()).toBe(before);
  });

  it('a session id planted before sign-in is never kept', async () => {
    // The attacker's own valid session, planted in the victim's browser, and a made-up one.
    const attacker = new PageAgent(t.app);
    await attacker.signIn(MEMBER.email, MEMBER.password);
    const planted = attacker.cookies.get('si_session')!;
    const victim = new PageAgent(t.app);
    victim.cookies.set('si_session', planted);
    await victim.signIn(OWNER.email, OWNER.password);
    const issued = victim.cookies.get('si_session')!;
    expect(issued).not.toBe(planted);
    expect((await attacker.get('/account')).statusCode).toBe(303);
    const victimPage = await victim.get('/account');
    expect(victimPage.body).toContain(OWNER.email);

    const madeUp = 'A'.repeat(43);
    const other = new PageAgent(t.app);
    other.cookies.set('si_session', madeUp);
    await other.signIn(OWNER.email, OWNER.password);
    expect(other.cookies.get('si_session')).not.toBe(madeUp);
    const rows = await t.database.db.selectFrom('account_sessions').select('id_hash').execute();
    expect(rows.map((r) => r.id_hash)).not.toContain(hashToken(madeUp));
  });
});

describe('cross-site forms', () => {
  it('a form post from another origin, with no origin, or with a wrong token changes nothing (403); the honest one works', async () => {
    const page = await owner.get('/account/keys');
    const csrf = csrfOf(page.body);
    const form = { csrf, name: 'cross-site', scopes: 'insights:read', expiry: 'never' };
    const before = await keyCount();
    const foreign = await owner.post('/account/keys', form, { origin: 'https://evil.example' });
    expect(foreign.statusCode).toBe(403);
    expect(foreign.headers['content-type']).toMatch(/^text\/html/);
    expect((await owner.post('/account/keys', form, { origin: undefined })).statusCode).toBe(403);
    expect((await owner.post('/account/keys', form, { origin: undefined, 'sec-fetch-site': 'cross-site' })).statusCode).toBe(403);
    expect((await owner.post('/account/keys', { ...form, csrf: csrf.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')) })).statusCode).toBe(403);
    expect((await owner.post('/account/keys', { name: 'no token', scopes: 'insights:read' })).statusCode).toBe(403);
    // Another session's token is not this session's.
    const memberToken = csrfOf((await member.get('/account/keys')).body);
    expect((await owner.post('/account/keys', { ...form, csrf: memberToken })).statusCode).toBe(403);
    expect(await keyCount()).toBe(before);
    // Sign-out and sign-in are forms too.
    expect((await owner.post('/account/sign-out', { csrf }, { origin: 'https://evil.example' })).statusCode).toBe(403);
    expect((await owner.get('/account')).statusCode).toBe(200);
    const signInPage = await new PageAgent(t.app).get('/account/sign-in');
    expect(signInPage.statusCode).toBe(200);
    const loginCsrf = new PageAgent(t.app, { origin: 'https://evil.example' });
    const login = await loginCsrf.post('/account/sign-in', {
      csrf: csrfOf((await loginCsrf.get('/account/sign-in')).body),
      email: OWNER.email,
      password: OWNER.password,
    });
    expect(login.statusCode).toBe(403);
    // The same form, from the page, with its token: created.
    expect((await owner.post('/account/keys', form, { origin: undefined, 'sec-fetch-site': 'same-origin' })).statusCode).toBe(303);
    expect((await owner.post('/account/keys', form)).statusCode).toBe(303);
    expect(await keyCount()).toBe(before + 2);
    // A control character in a form is the client's fault: a 400 page, nothing created.
    const control = await owner.post('/account/keys', { ...form, name: 'bell\u0007' });
    expect(control.statusCode).toBe(400);
    expect(control.headers['content-type']).toMatch(/^text\/html/);
    expect(control.body).toMatch(/control character/);
    expect(await keyCount()).toBe(before + 2);
  });
});

describe('sign-in attempts', () => {
  it(`50 concurrent wrong passwords from 50 clients: ${SIGN_IN_LIMITS.attemptsPerEmail} are checked (401), the rest refused (429); the right password refused during the lockout`, async () => {
    const email = 'locked@example.com';
    const password = 'the right password, at last';
    await new PageAgent(t.app).acceptInvitation(await invite(email, 'member'), password);
    // A client of its own each time: the address is what is limited, not only the client. All at once:
    // a count read before the check and written after it let every one of them through.
    const agents = Array.from({ length: 50 }, (_, i) => new PageAgent(t.app, { remoteAddress: `198.51.100.${i + 1}` }));
    const pages = await Promise.all(agents.map((agent) => agent.get('/account/sign-in')));
    const answers = await Promise.all(
      agents.map((agent, i) => agent.post('/account/sign-in', { csrf: csrfOf(pages[i]!.body), email, password: `wrong guess ${i}` })),
    );
    const codes = answers.map((res) => res.statusCode);
    expect(codes.filter((c) => c === 401)).toHaveLength(SIGN_IN_LIMITS.attemptsPerEmail);
    expect(codes.filter((c) => c === 429)).toHaveLength(50 - SIGN_IN_LIMITS.attemptsPerEmail);
    const lastRetryAfter = answers.find((res) => res.statusCode === 429)!.headers['retry-after'] as string;
    expect(Number(lastRetryAfter)).toBeGreaterThan(0);
    expect(Number(lastRetryAfter)).toBeLessThanOrEqual(SIGN_IN_LIMITS.emailWindowSeconds);
    const right = await new PageAgent(t.app, { remoteAddress: '198.51.100.200' }).signIn(email, password);
    expect(right.statusCode).toBe(429);
    expect(right.headers['retry-after']).toMatch(/^\d+$/);
    expect(right.body).toMatch(/Sign-in is locked: try again in \d+ minutes?/);
    expect(right.headers['set-cookie'] ?? '').not.toMatch(/si_session=[^;]/);
    // Another address is not locked out by it.
    expect((await new PageAgent(t.app, { remoteAddress: '198.51.100.201' }).signIn(MEMBER.email, MEMBER.password)).statusCode).toBe(303);
  }, 60_000);

  it(`an account's people together get ${SIGN_IN_LIMITS.attemptsPerAccount} attempts in the window, then the account is held; a right password is not counted`, async () => {
    const other = await createApiKey(t.database.db, 'walked account', 'free');
    const emails = Array.from({ length: 4 }, (_, i) => `walked${i}@example.com`);
    const rightOne = { email: 'walked-right@example.com', password: 'walked account password' };
    for (const email of emails)
      await new PageAgent(t.app).acceptInvitation(linkOf(await operatorInvite(other.accountId, email)), `${email} password`);
    await new PageAgent(t.app).acceptInvitation(linkOf(await operatorInvite(other.accountId, rightOne.email)), rightOne.password);
    // Right passwords before the walk give their attempt back; each of these browsers is known for that person from then on.
    const known = Array.from({ length: 3 }, (_, i) => new PageAgent(t.app, { remoteAddress: `192.0.2.${200 + i}` }));
    for (const agent of known) expect((await agent.signIn(rightOne.email, rightOne.password)).statusCode).toBe(303);
    const codes: number[] = [];
    for (let i = 0; i < SIGN_IN_LIMITS.attemptsPerAccount + 5; i += 1) {
      const agent = new PageAgent(t.app, { remoteAddress: `192.0.2.${i + 1}` });
      codes.push((await agent.signIn(emails[i % emails.length]!, `wrong ${i}`)).statusCode);
    }
    expect(codes.filter((c) => c === 401)).toHaveLength(SIGN_IN_LIMITS.attemptsPerAccount);
    expect(codes.slice(SIGN_IN_LIMITS.attemptsPerAccount)).toEqual([429, 429, 429, 429, 429]);
    // Every address of the account is held now, the right password of an untouched one too, from a new browser;
    // but not from a browser its person signed in from before (its device cookie): the walk cannot lock its people out.
    expect((await new PageAgent(t.app, { remoteAddress: '192.0.2.250' }).signIn(rightOne.email, rightOne.password)).statusCode).toBe(429);
    expect((await known[0]!.signIn(rightOne.email, rightOne.password)).statusCode).toBe(303);
    // A device cookie of another person's browser, or a made-up one, counts for nothing.
    const stranger = new PageAgent(t.app, { remoteAddress: '192.0.2.251' });
    stranger.cookies.set('si_device', 'x'.repeat(43));
    expect((await stranger.signIn(rightOne.email, rightOne.password)).statusCode).toBe(429);
  }, 60_000);

  it(`one client may try ${SIGN_IN_LIMITS.attemptsPerClient} times a minute, over any addresses`, async () => {
    const agent = new PageAgent(t.app, { remoteAddress: '203.0.113.9' });
    const answers: number[] = [];
    for (let i = 0; i < SIGN_IN_LIMITS.attemptsPerClient + 3; i += 1)
      answers.push((await agent.signIn(`nobody${i}@example.com`, 'a wrong password')).statusCode);
    expect(answers.filter((s) => s === 401)).toHaveLength(SIGN_IN_LIMITS.attemptsPerClient);
    expect(answers.slice(SIGN_IN_LIMITS.attemptsPerClient)).toEqual([429, 429, 429]);
    expect((await agent.signIn(OWNER.email, OWNER.password)).statusCode).toBe(429);
  }, 60_000);
});

describe('roles', () => {
  it("a member cannot rotate or revoke an owner's key (nor an operator's), nor invite; their own key they can", async () => {
    const ownerKey = await createKey(owner, 'owner key');
    const operatorKeyId = await keyIdOf(operatorKey);
    const page = await member.get('/account/keys');
    const csrf = csrfOf(page.body);
    expect(page.body).not.toContain(`/account/keys/${ownerKey.id}/revoke`);
    for (const id of [ownerKey.id, operatorKeyId]) {
      expect((await member.post(`/account/keys/${id}/revoke`, { csrf })).statusCode).toBe(403);
      expect((await member.post(`/account/keys/${id}/rotate`, { csrf })).statusCode).toBe(403);
    }
    expect((await t.app.inject({ url: '/api/insights', headers: bearer(ownerKey.key) })).statusCode).toBe(200);
    expect((await t.app.inject({ url: '/api/insights', headers: bearer(operatorKey) })).statusCode).toBe(200);
    expect((await member.post('/account/people', { csrf, email: 'friend@example.com', role: 'owner' })).statusCode).toBe(403);

    const own = await createKey(member, 'member key');
    // The first submit only asks, naming the key by its name; nothing is revoked until it is confirmed.
    const asked = await member.post(`/account/keys/${own.id}/revoke`, { csrf });
    expect(asked.statusCode).toBe(200);
    expect(asked.body).toContain('Revoke “member key”?');
    expect(asked.body).toContain('<button type="submit">Yes, revoke “member key”</button>');
    expect((await t.app.inject({ url: '/api/insights', headers: bearer(own.key) })).statusCode).toBe(200);
    const confirmed = await member.submit(`/account/keys/${own.id}/revoke`, { csrf, confirm: 'yes' });
    expect(confirmed.posted.statusCode).toBe(303);
    expect(confirmed.body).toMatch(/Revoked “member key” \(sik_[A-Za-z0-9]+…\): requests with it are refused now\./);
    expect(confirmed.body).not.toContain(`Revoked ${own.id}`);
    expect((await t.app.inject({ url: '/api/insights', headers: bearer(own.key) })).statusCode).toBe(401);
    // The owner may revoke anyone's.
    const ownerCsrf = csrfOf((await owner.get('/account/keys')).body);
    expect((await owner.post(`/account/keys/${ownerKey.id}/revoke`, { csrf: ownerCsrf, confirm: 'yes' })).statusCode).toBe(303);
    expect((await t.app.inject({ url: '/api/insights', headers: bearer(ownerKey.key) })).statusCode).toBe(401);
  });

  it('an owner invites from the People page: the one-time link is mailed to the address, never shown', async () => {
    const page = await owner.get('/account/people');
    const res = await owner.submit('/account/people', { csrf: csrfOf(page.body), email: 'friend@example.com', role: 'member' });
    expect(res.posted.statusCode).toBe(303);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('An invitation was mailed to friend@example.com');
    expect(res.body).not.toContain('/account/invite/');
    expect(await smtp.linkTo('friend@example.com')).toMatch(new RegExp(`^${ORIGIN}/account/invite/[A-Za-z0-9_-]{43}$`));
  });
});

describe('the API and the pages stay apart', () => {
  it('a session cookie does not authenticate /api; a Bearer key does not open /account', async () => {
    const cookie = owner.cookieHeader();
    const api = await t.app.inject({ url: '/api/insights', headers: { cookie } });
    expect(api.statusCode).toBe(401);
    const usage = await t.app.inject({ url: '/api/usage', headers: { cookie, host: HOST } });
    expect(usage.statusCode).toBe(401);
    for (const url of ['/account', '/account/keys', '/account/people']) {
      const res = await t.app.inject({ url, headers: { ...bearer(operatorKey), host: HOST } });
      expect(res.statusCode).toBe(303);
      expect(res.headers.location).toBe('/account/sign-in');
    }
    const write = await t.app.inject({
      method: 'POST',
      url: '/account/keys',
      headers: { ...bearer(operatorKey), host: HOST, origin: ORIGIN, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'name=x&scopes=insights%3Aread',
    });
    expect(write.statusCode).toBe(303);
  });

  it("pages carry the security headers and a CSP that allows only this origin's stylesheet, no script", async () => {
    const res = await owner.get('/account');
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('script-src');
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['cache-control']).toBe('no-store');
  });
});

describe('overview', () => {
  it("shows the plan, today's requests against the quota, the research allowance and a 30-day chart", async () => {
    for (let i = 0; i < 3; i += 1)
      expect((await t.app.inject({ url: '/api/insights', headers: bearer(operatorKey) })).statusCode).toBe(200);
    const res = await owner.get('/account');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<dd>pro</dd>');
    const used = Number(/<dt>Requests<\/dt><dd>(\d+) of 10000/.exec(res.body)?.[1]);
    expect(used).toBeGreaterThanOrEqual(3);
    expect(res.body).toMatch(/<dt>Research runs<\/dt><dd>0 of 100 \(100 left\)/);
    expect(res.body).toMatch(/<svg[^>]+role="img"/);
    expect(res.body.match(/<rect class="bar"/g)).toHaveLength(30);
  });
});

describe('research', () => {
  it("submits an idea through the API's research service (spending the allowance) and lists the account's runs", async () => {
    const page = await member.get('/account/research');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('No runs yet.');
    const csrf = csrfOf(page.body);
    const bad = await member.post('/account/research', { csrf, idea: '!!!', geo: '' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('This idea cannot be researched');
    const badGeo = await member.post('/account/research', { csrf, idea: 'pet insurance for ferrets', geo: 'XX-NOPE' });
    expect(badGeo.statusCode).toBe(400);
    const started = await member.submit('/account/research', { csrf, idea: 'pet insurance for ferrets', geo: 'US' });
    expect(started.posted.statusCode).toBe(303);
    expect(started.statusCode, started.body).toBe(200);
    const runId = /Started run (run_[a-z0-9]+)\./.exec(started.body)?.[1];
    expect(runId).toBeDefined();
    const run = await t.database.db.selectFrom('research_runs').selectAll().where('id', '=', runId!).executeTakeFirstOrThrow();
    expect(run).toMatchObject({ account_id: accountId, idea: 'pet insurance for ferrets', geo: 'US', status: 'queued' });
    // The synthetic provider's run: labelled simulated, its source named; no data yet.
    expect(started.body).toMatch(
      /<th scope="row"><a href="\/account\/research\/run_[a-z0-9]+">pet insurance for ferrets \(simulated\)<\/a><\/th><td>US<\/td><td>synthetic \(simulated\)<\/td><td>queued<\/td><td>0 of 40<\/td><td>—<\/td>/,
    );
    // The same idea again joins the run under way (nothing more spent).
    const again = await member.submit('/account/research', { csrf, idea: 'pet insurance for ferrets', geo: 'US' });
    expect(again.body).toContain(`researching this idea already: run ${runId}`);
    expect((await owner.get('/account')).body).toMatch(/<dt>Research runs<\/dt><dd>1 of 100 \(99 left\)/);
    // Cross-site, it starts nothing.
    expect(
      (await member.post('/account/research', { csrf, idea: 'another idea entirely' }, { origin: 'https://evil.example' })).statusCode,
    ).toBe(403);
  });
});

describe('a run and its report', () => {
  it("shows the 40 steps of an own run, reloading itself while it runs and not after; links its insight; another account's run is 404", async () => {
    const page = await owner.get('/account/research');
    const started = await owner.submit('/account/research', { csrf: csrfOf(page.body), idea: 'standing desks for kids', geo: 'US' });
    const runId = /Started run (run_[a-z0-9]+)\./.exec(started.body)?.[1];
    expect(runId, started.body).toBeDefined();
    // Linked by its idea (as a person reads it), not its id.
    expect(started.body).toContain(`<a href="/account/research/${runId}">standing desks for kids (simulated)</a>`);
    const refresh = '<meta http-equiv="refresh" content="3">';

    const queued = await member.get(`/account/research/${runId}`);
    expect(queued.statusCode, queued.body).toBe(200);
    expect(queued.body).toContain(refresh);
    expect(queued.body).toContain('reloads itself every 3 seconds');
    expect(queued.body.match(/<tr><td>\d+<\/td>/g)).toHaveLength(40);

    await t.database.db
      .insertInto('research_steps')
      .values(
        // Stored by name, as the step runner stores them: normalize_idea and extract_phrases, steps 1 and 2 of 40.
        [1, 2].map((step) => ({
          run_id: runId!,
          step,
          name: STEP_NAMES[step - 1]!,
          status: 'done' as const,
          summary: `did step ${step}\nmore`,
        })),
      )
      .execute();
    await t.database.db.updateTable('research_runs').set({ status: 'running', next_step: 3 }).where('id', '=', runId!).execute();
    const running = await member.get(`/account/research/${runId}`);
    expect(running.body).toContain(refresh);
    expect(running.body).toMatch(
      /<tr><td>2<\/td><td>[^<]+<\/td><td>done<\/td><td>did step 2<\/td><\/tr><tr><td>3<\/td><td>[^<]+<\/td><td>running<\/td><td>—<\/td><\/tr>/,
    );
    expect(running.body).toContain('<dt>Steps done</dt><dd>2 of 40</dd>');

    const insightId = await insertInsight(t.database.db, { score: 0.7, title: 'Standing desks for kids' });
    await t.database.db.updateTable('insights').set({ owner_account_id: accountId }).where('id', '=', insightId).execute();
    await t.database.db
      .updateTable('research_runs')
      .set({ status: 'succeeded', next_step: 41, insight_id: insightId, finished_at: new Date() })
      .where('id', '=', runId!)
      .execute();
    const finished = await member.get(`/account/research/${runId}`);
    expect(finished.statusCode).toBe(200);
    expect(finished.body).not.toContain('http-equiv="refresh"');
    expect(finished.body).toContain('This run succeeded');
    expect(finished.body).toContain(`<a href="/account/insights/${insightId}/report">`);
    // Done: its verdict and score, linked to the insight's page.
    expect((await member.get('/account/research')).body).toContain(
      `<a href="/account/insights/${insightId}"><span class="verdict verdict-promising">promising</span> 70 of 100</a>`,
    );

    // Another account's run, or no run at all: the 404 page.
    const stranger = new PageAgent(t.app);
    const elsewhere = await createApiKey(t.database.db, 'a stranger account', 'pro');
    await stranger.acceptInvitation(
      linkOf(await operatorInvite(elsewhere.accountId, 'stranger@example.com', 'owner')),
      'a stranger of another account',
    );
    expect((await stranger.signIn('stranger@example.com', 'a stranger of another account')).statusCode).toBe(303);
    for (const path of [`/account/research/${runId}`, '/account/research/run_nope', `/account/insights/${insightId}/report`]) {
      const res = await stranger.get(path);
      expect(res.statusCode, path).toBe(404);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.body).not.toContain('standing desks for kids');
      expect(res.body).not.toContain('Standing desks for kids');
    }
    // Signed out: to sign in.
    expect((await new PageAgent(t.app).get(`/account/research/${runId}`)).headers.location).toBe('/account/sign-in');
  });

  it("renders the API's printable report, with the report's own CSP, for an own or public insight; another account's private one is 404", async () => {
    const own = await insertInsight(t.database.db, { score: 0.8, title: 'Own private insight' });
    await t.database.db.updateTable('insights').set({ owner_account_id: accountId }).where('id', '=', own).execute();
    const pub = await insertInsight(t.database.db, { score: 0.6, title: 'A public insight' });
    const theirs = await insertInsight(t.database.db, { score: 0.9, title: 'Someone else private insight' });
    const other = await createApiKey(t.database.db, 'report owner elsewhere', 'pro');
    await t.database.db.updateTable('insights').set({ owner_account_id: other.accountId }).where('id', '=', theirs).execute();

    for (const [id, title] of [
      [own, 'Own private insight'],
      [pub, 'A public insight'],
    ] as const) {
      const res = await member.get(`/account/insights/${id}/report`);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.body).toContain(title);
      const api = await t.app.inject({ url: `/api/insights/${id}/report`, headers: bearer(operatorKey) });
      expect(api.statusCode).toBe(200);
      expect(res.headers['content-security-policy']).toBe(api.headers['content-security-policy']);
      expect(res.headers['content-security-policy']).toMatch(/style-src 'sha256-/);
      expect(res.headers['cache-control']).toBe('no-store');
    }
    const hidden = await member.get(`/account/insights/${theirs}/report`);
    expect(hidden.statusCode).toBe(404);
    expect(hidden.body).not.toContain('Someone else private insight');
    expect((await member.get('/account/insights/ins_nope/report')).statusCode).toBe(404);
    expect((await new PageAgent(t.app).get(`/account/insights/${pub}/report`)).headers.location).toBe('/account/sign-in');
  });
});

describe('webhooks', () => {
  /** A subscription made through the API with this key (the pages read and act on it through the same service). */
  async function subscribe(key: string, body: Record<string, unknown>): Promise<string> {
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/webhooks',
      headers: { ...bearer(key), 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });
    expect(created.statusCode, created.body).toBe(201);
    return created.json().data.id as string;
  }

  it("lists the account's own subscriptions, their criteria and recent deliveries, through the API's service; no other account's", async () => {
    const hooks = await createKeyForAccount(t.database.db, { id: accountId, plan: 'pro' }, 'hooks', null, [
      'insights:read',
      'webhooks:write',
    ]);
    const json = { ...bearer(hooks.key), 'content-type': 'application/json' };
    const id = await subscribe(hooks.key, { url: 'http://127.0.0.1:9/pages-hook', min_score: 0.6, categories: ['finance'] });
    expect((await t.app.inject({ method: 'POST', url: `/api/webhooks/${id}/test`, headers: json })).statusCode).toBe(202);
    await subscribe((await t.webhookKey()).key, { url: 'http://127.0.0.1:9/someone-else' });

    const res = await member.get('/account/webhooks');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('http://127.0.0.1:9/pages-hook');
    expect(res.body).toContain('score ≥ 0.6; categories: finance');
    expect(res.body).toMatch(/<td>ping<\/td><td>—<\/td><td>pending<\/td>/);
    expect(res.body).not.toContain('someone-else');
    expect(res.body).toMatch(/<a href="\/account\/webhooks" aria-current="page">Webhooks<\/a>/);
  });
  it("sends a test and replays a delivery through the API's service; refused cross-site, for another account's ids (404) and past the day's sends (429)", async () => {
    const hooks = await createKeyForAccount(t.database.db, { id: accountId, plan: 'pro' }, 'hooks 2', null, ['webhooks:write']);
    const id = await subscribe(hooks.key, { url: 'http://127.0.0.1:9/pages-test-hook' });
    const deliveriesOf = (subscriptionId: string) =>
      t.database.db.selectFrom('webhook_deliveries').selectAll().where('subscription_id', '=', subscriptionId).execute();
    const other = await t.webhookKey();
    const foreign = await t.app.inject({
      method: 'POST',
      url: '/api/webhooks',
      headers: { ...bearer(other.key), 'content-type': 'application/json' },
      payload: JSON.stringify({ url: 'http://127.0.0.1:9/not-yours' }),
    });
    const foreignId = foreign.json().data.id as string;
    expect((await t.app.inject({ method: 'POST', url: `/api/webhooks/${foreignId}/test`, headers: bearer(other.key) })).statusCode).toBe(
      202,
    );
    const foreignDelivery = (await deliveriesOf(foreignId))[0]!;

    const page = await member.get('/account/webhooks');
    expect(page.body).toContain(`action="/account/webhooks/${id}/test"`);
    const csrf = csrfOf(page.body);
    // A member may test (the API asks webhooks:write, which members' keys may hold).
    const tested = await member.submit(`/account/webhooks/${id}/test`, { csrf });
    expect(tested.posted.statusCode, tested.posted.body).toBe(303);
    expect(tested.statusCode).toBe(200);
    const [ping] = await deliveriesOf(id);
    expect(ping).toMatchObject({ status: 'pending' });
    expect(tested.body).toContain(`Sent a test to subscription ${id} (delivery ${ping!.id}).`);
    expect(tested.body).toContain(`action="/account/webhooks/${id}/deliveries/${ping!.id}/replay"`);

    // Pending: the service does not send it twice; once failed, a replay reopens it.
    const early = await member.submit(`/account/webhooks/${id}/deliveries/${ping!.id}/replay`, { csrf });
    expect(early.body).toContain('is still on its way: it was not sent twice');
    await t.database.db.updateTable('webhook_deliveries').set({ status: 'failed' }).where('id', '=', ping!.id).execute();
    const replayed = await owner.submit(`/account/webhooks/${id}/deliveries/${ping!.id}/replay`, {
      csrf: csrfOf((await owner.get('/account/webhooks')).body),
    });
    expect(replayed.posted.statusCode).toBe(303);
    expect(replayed.body).toContain(`Delivery ${ping!.id} is sent again`);
    expect((await deliveriesOf(id)).find((d) => d.id === ping!.id)).toMatchObject({ status: 'pending', replays: 1 });
    await t.database.db.updateTable('webhook_deliveries').set({ status: 'failed' }).where('id', '=', ping!.id).execute();

    const before = await deliveriesOf(id);
    // Cross-site or without the token: nothing sent.
    expect((await member.post(`/account/webhooks/${id}/test`, { csrf }, { origin: 'https://evil.example' })).statusCode).toBe(403);
    expect((await member.post(`/account/webhooks/${id}/test`, { csrf: 'x' })).statusCode).toBe(403);
    expect(
      (await member.post(`/account/webhooks/${id}/deliveries/${ping!.id}/replay`, { csrf }, { origin: 'https://evil.example' })).statusCode,
    ).toBe(403);
    expect(await deliveriesOf(id)).toEqual(before);
    // Another account's subscription or delivery: 404, nothing sent.
    const foreignBefore = await deliveriesOf(foreignId);
    for (const path of [
      `/account/webhooks/${foreignId}/test`,
      `/account/webhooks/${foreignId}/deliveries/${foreignDelivery.id}/replay`,
      `/account/webhooks/${id}/deliveries/${foreignDelivery.id}/replay`,
      `/account/webhooks/whsub_nope/test`,
    ]) {
      const res = await member.post(path, { csrf });
      expect(res.statusCode, path).toBe(404);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.body).toContain('Your account has no such webhook');
    }
    expect(await deliveriesOf(foreignId)).toEqual(foreignBefore);
    expect(await deliveriesOf(id)).toEqual(before);

    // The day's replays and pings spent: a 429 page that says so, not a 500.
    const day = new Date().toISOString().slice(0, 10);
    await t.database.db
      .insertInto('webhook_sends_daily')
      .values({ account_id: accountId, day, pings: 1_000_000 })
      .onConflict((oc) => oc.columns(['account_id', 'day']).doUpdateSet({ pings: 1_000_000 }))
      .execute();
    try {
      for (const path of [`/account/webhooks/${id}/test`, `/account/webhooks/${id}/deliveries/${ping!.id}/replay`]) {
        const spent = await member.post(path, { csrf });
        expect(spent.statusCode, path).toBe(429);
        expect(Number(spent.headers['retry-after'])).toBeGreaterThan(0);
        expect(spent.body).toContain('replays and pings a day');
      }
      expect(await deliveriesOf(id)).toEqual(before);
    } finally {
      await t.database.db.updateTable('webhook_sends_daily').set({ pings: 0 }).where('account_id', '=', accountId).execute();
    }
    const audits = log.lines.map((l) => JSON.parse(l) as { audit?: Record<string, unknown> }).filter((l) => l.audit);
    expect(audits.some((l) => l.audit!.action === 'webhook test sent' && l.audit!.subscription_id === id)).toBe(true);
    expect(audits.some((l) => l.audit!.action === 'webhook delivery replayed' && l.audit!.delivery_id === ping!.id)).toBe(true);
  });

  it("a subscription the operator disabled is neither tested nor replayed from the tab: 409 naming the operator's reason, nothing sent (issue 48)", async () => {
    const hooks = await createKeyForAccount(t.database.db, { id: accountId, plan: 'pro' }, 'hooks 3', null, ['webhooks:write']);
    const id = await subscribe(hooks.key, { url: 'http://127.0.0.1:9/pages-operator-hook' });
    expect((await t.app.inject({ method: 'POST', url: `/api/webhooks/${id}/test`, headers: bearer(hooks.key) })).statusCode).toBe(202);
    const deliveriesOf = () =>
      t.database.db.selectFrom('webhook_deliveries').select(['id', 'status', 'replays']).where('subscription_id', '=', id).execute();
    const [ping] = await deliveriesOf();
    await t.database.db.updateTable('webhook_deliveries').set({ status: 'failed' }).where('id', '=', ping!.id).execute();
    // What `insights webhooks disable --reason` writes.
    await t.database.db
      .updateTable('webhook_subscriptions')
      .set({ state: 'disabled', disabled_by: 'operator', disabled_reason: 'spam complaints' })
      .where('id', '=', id)
      .execute();
    const before = await deliveriesOf();
    const csrf = csrfOf((await member.get('/account/webhooks')).body);
    for (const path of [`/account/webhooks/${id}/test`, `/account/webhooks/${id}/deliveries/${ping!.id}/replay`]) {
      const res = await member.post(path, { csrf });
      expect(res.statusCode, path).toBe(409);
      expect(res.body).toContain('An operator disabled this subscription (spam complaints)');
      expect(res.body).toContain('To appeal, ask your operator');
    }
    expect(await deliveriesOf()).toEqual(before);
    expect(
      await t.database.db
        .selectFrom('webhook_subscriptions')
        .select(['state', 'disabled_by', 'disabled_reason'])
        .where('id', '=', id)
        .executeTakeFirst(),
    ).toEqual({ state: 'disabled', disabled_by: 'operator', disabled_reason: 'spam complaints' });
  });
});

describe('audit', () => {
  it('every change made from the pages writes an audit line, and no line holds a key, a password or a cookie', async () => {
    const { key, id } = await createKey(owner, 'audited');
    const audits = log.lines.map((l) => JSON.parse(l) as { audit?: { action: string; key_id?: string } }).filter((l) => l.audit);
    expect(audits.some((l) => l.audit!.action === 'key created' && l.audit!.key_id === id)).toBe(true);
    for (const action of ['signed in', 'signed out', 'key revoked', 'password set', 'person invited']) {
      expect(
        audits.some((l) => l.audit!.action === action),
        action,
      ).toBe(true);
    }
    const all = log.lines.join('\n');
    expect(all).not.toContain(key);
    expect(all).not.toContain(OWNER.password);
    expect(all).not.toContain(owner.cookies.get('si_session')!);
  });
});

it('an expired or unknown invitation says so (410)', async () => {
  expect((await new PageAgent(t.app).get(`/account/invite/${'x'.repeat(43)}`)).statusCode).toBe(410);
  const old = await operatorInvite(accountId, 'late@example.com', 'member', new Date(Date.now() - 100 * 3_600_000));
  expect((await new PageAgent(t.app).get(new URL(linkOf(old)).pathname)).statusCode).toBe(410);
});

describe('a suspended account', () => {
  it('may sign in and look, but changes nothing from the pages (403): no key, rotation, invitation, research run, webhook test or replay; revoking a key and signing out still work', async () => {
    const paused = await createApiKey(t.database.db, 'paused account', 'pro');
    const person = { email: 'paused-owner@example.com', password: 'paused account owner pass' };
    const agent = new PageAgent(t.app);
    await agent.acceptInvitation(linkOf(await operatorInvite(paused.accountId, person.email, 'owner')), person.password);
    expect((await agent.signIn(person.email, person.password)).statusCode).toBe(303);
    const existing = await createKey(agent, 'made while active');
    const runsBefore = await t.database.db.selectFrom('research_runs').select('id').where('account_id', '=', paused.accountId).execute();
    const hooks = await createKeyForAccount(t.database.db, { id: paused.accountId, plan: 'pro' }, 'hooks', null, ['webhooks:write']);
    const hookId = (
      await t.app.inject({
        method: 'POST',
        url: '/api/webhooks',
        headers: { ...bearer(hooks.key), 'content-type': 'application/json' },
        payload: JSON.stringify({ url: 'http://127.0.0.1:9/paused-hook' }),
      })
    ).json().data.id as string;
    expect((await t.app.inject({ method: 'POST', url: `/api/webhooks/${hookId}/test`, headers: bearer(hooks.key) })).statusCode).toBe(202);
    const deliveries = () => t.database.db.selectFrom('webhook_deliveries').selectAll().where('subscription_id', '=', hookId).execute();
    const [delivery] = await deliveries();
    await t.database.db.updateTable('webhook_deliveries').set({ status: 'failed' }).where('id', '=', delivery!.id).execute();
    const deliveriesBefore = await deliveries();
    await runCliInProcess(['accounts', 'suspend', paused.accountId], {
      ...t.database.env,
      REDIS_URL: t.redis.url,
      REDIS_PREFIX: t.redis.prefix,
    });
    expect((await t.app.inject({ url: '/api/insights', headers: bearer(existing.key) })).statusCode).toBe(403);

    const overview = await agent.get('/account');
    expect(overview.statusCode).toBe(200);
    expect(overview.body).toContain('<dd>suspended</dd>');
    const csrf = csrfOf((await agent.get('/account/keys')).body);
    const keysBefore = await keyCount();
    const attempts = [
      await agent.post('/account/keys', { csrf, name: 'while suspended', scopes: ['insights:read'], expiry: 'never' }),
      await agent.post(`/account/keys/${existing.id}/rotate`, { csrf }),
      await agent.post('/account/people', { csrf, email: 'recruit@example.com', role: 'member' }),
      await agent.post('/account/research', { csrf, idea: 'bamboo toothbrushes', geo: 'US' }),
      await agent.post(`/account/webhooks/${hookId}/test`, { csrf }),
      await agent.post(`/account/webhooks/${hookId}/deliveries/${delivery!.id}/replay`, { csrf }),
    ];
    for (const res of attempts) {
      expect(res.statusCode).toBe(403);
      expect(res.body).toContain('is suspended: its pages are read-only and nothing was changed');
    }
    expect(await keyCount()).toBe(keysBefore);
    const key = await t.database.db.selectFrom('api_keys').selectAll().where('id', '=', existing.id).executeTakeFirstOrThrow();
    expect(key).toMatchObject({ revoked_at: null, replaced_by: null });
    expect(
      await t.database.db.selectFrom('account_invitations').select('id').where('email', '=', 'recruit@example.com').executeTakeFirst(),
    ).toBeUndefined();
    expect(await t.database.db.selectFrom('research_runs').select('id').where('account_id', '=', paused.accountId).execute()).toEqual(
      runsBefore,
    );
    expect(await deliveries()).toEqual(deliveriesBefore);
    // Revoking only takes access away: an owner can stop a leaked key while the account is suspended.
    const revoked = await agent.post(`/account/keys/${existing.id}/revoke`, { csrf, confirm: 'yes' });
    expect(revoked.statusCode, revoked.body).toBe(303);
    expect(
      (await t.database.db.selectFrom('api_keys').select('revoked_at').where('id', '=', existing.id).executeTakeFirstOrThrow()).revoked_at,
    ).not.toBeNull();
    // Signing out still works.
    expect((await agent.post('/account/sign-out', { csrf })).statusCode).toBe(303);
  });
});

describe('inviting someone who is a person of an account already', () => {
  const invitationRows = async (email: string) =>
    t.database.db
      .selectFrom('account_invitations')
      .select(['id', 'role', 'used_at'])
      .where('email', '=', email)
      .orderBy('created_at')
      .execute();

  it('the People page refuses a member of the account (no reset of their sign-in); a pending address invited again gets a new link, and the older one stops', async () => {
    const csrf = csrfOf((await owner.get('/account/people')).body);
    const before = (await invitationRows(MEMBER.email)).length;
    for (const role of ['member', 'owner']) {
      const res = await owner.post('/account/people', { csrf, email: MEMBER.email, role });
      expect(res.statusCode).toBe(409);
      expect(res.body).toContain('is a member of this account already; nothing was sent');
    }
    expect(await invitationRows(MEMBER.email)).toHaveLength(before);
    expect((await new PageAgent(t.app).signIn(MEMBER.email, MEMBER.password)).statusCode).toBe(303);

    const pending = 'pending-person@example.com';
    expect((await owner.post('/account/people', { csrf, email: pending, role: 'member' })).statusCode).toBe(303);
    const first = await smtp.linkTo(pending);
    expect((await owner.post('/account/people', { csrf, email: pending, role: 'owner' })).statusCode).toBe(303);
    const second = await smtp.linkTo(pending);
    expect((await new PageAgent(t.app).get(new URL(first).pathname)).statusCode).toBe(410);
    expect((await invitationRows(pending)).map((r) => [r.role, r.used_at === null])).toEqual([
      ['member', false],
      ['owner', true],
    ]);
    expect((await new PageAgent(t.app).get(new URL(second).pathname)).body).toContain('as owner');
  });

  it('the operator CLI resets a password only with --reset', async () => {
    await expect(invite(MEMBER.email, 'member')).rejects.toThrow(/add --reset/);
    const out = await runCliInProcess(
      ['accounts', 'invite', '--account', accountId, '--email', MEMBER.email, '--role', 'member', '--reset', '--print-link', '--json'],
      { ...t.database.env, REDIS_URL: t.redis.url, REDIS_PREFIX: t.redis.prefix, PUBLIC_BASE_URL: ORIGIN },
    );
    const link = (JSON.parse(out) as { link: string }).link;
    expect(link).toMatch(/\/account\/invite\/[A-Za-z0-9_-]{43}$/);
    // Not used: the member's password stands.
    expect((await new PageAgent(t.app).signIn(MEMBER.email, MEMBER.password)).statusCode).toBe(303);
  });

  it('a newer link of an address in an account ends the older ones; using it ends the rest', async () => {
    const email = 'two-links@example.com';
    const first = linkOf(await operatorInvite(accountId, email));
    const second = linkOf(await operatorInvite(accountId, email));
    expect((await new PageAgent(t.app).get(new URL(first).pathname)).statusCode).toBe(410);
    expect((await new PageAgent(t.app).acceptInvitation(second, 'the second link password')).statusCode).toBe(303);
    expect((await new PageAgent(t.app).get(new URL(second).pathname)).statusCode).toBe(410);
    expect((await new PageAgent(t.app).signIn(email, 'the second link password')).statusCode).toBe(303);
  });
});

describe("another account's addresses", () => {
  it("an owner's invitation is answered alike whether or not the address is another account's person; only its reader can use the link", async () => {
    const other = await createApiKey(t.database.db, 'prober account', 'free');
    const prober = new PageAgent(t.app);
    await prober.acceptInvitation(linkOf(await operatorInvite(other.accountId, 'prober@example.com', 'owner')), 'prober owner password');
    expect((await prober.signIn('prober@example.com', 'prober owner password')).statusCode).toBe(303);
    const csrf = csrfOf((await prober.get('/account/people')).body);
    const taken = await prober.submit('/account/people', { csrf, email: OWNER.email, role: 'member' });
    const free = await prober.submit('/account/people', { csrf, email: 'nobody-yet@example.com', role: 'member' });
    expect([taken.posted.statusCode, taken.posted.headers.location]).toEqual([free.posted.statusCode, free.posted.headers.location]);
    expect(taken.posted.statusCode).toBe(303);
    const shape = (html: string, email: string) =>
      html
        .slice(0, html.indexOf('<table>'))
        .replaceAll(email, 'ADDRESS')
        .replace(/until [^;.]+UTC/, 'until T');
    expect(shape(taken.body, OWNER.email)).toBe(shape(free.body, 'nobody-yet@example.com'));
    expect(taken.body).not.toContain('/account/invite/');
    // The mail reaches the owner, whose password no invitation changes.
    const link = await smtp.linkTo(OWNER.email);
    const opened = await new PageAgent(t.app).get(new URL(link).pathname);
    expect(opened.statusCode).toBe(200);
    expect(opened.body).not.toContain('name="password"');
    expect((await new PageAgent(t.app).signIn(OWNER.email, OWNER.password)).statusCode).toBe(303);
  });
});

it("the request log never holds an invitation's token: its URL is logged as /account/invite/[token]", async () => {
  const link = linkOf(await operatorInvite(accountId, 'logged-link@example.com'));
  const token = link.split('/').at(-1)!;
  const from = log.lines.length;
  expect((await new PageAgent(t.app).acceptInvitation(link, 'logged link password')).statusCode).toBe(303);
  expect((await new PageAgent(t.app).get(`/account/invite/${token}?again=1`)).statusCode).toBe(410);
  const requests = log.lines
    .slice(from)
    .map((l) => JSON.parse(l) as { msg?: string; url?: string })
    .filter((l) => l.msg === 'request');
  expect(requests.filter((l) => l.url === '/account/invite/[token]')).toHaveLength(2);
  expect(requests.some((l) => l.url === '/account/invite/[token]?again=[redacted]')).toBe(true);
  // Nor spelled otherwise (a second review had "/account/%69nvite/<token>" served and logged in clear).
  for (const spelling of [
    `/account/%69nvite/${token}`,
    `/Account/invite/${token}`,
    `/account/invite//${token}`,
    `/account/./invite/${token}`,
  ])
    await new PageAgent(t.app).get(spelling);
  expect(log.lines.join('\n')).not.toContain(token);
});

it('keeps what a page shows once (a new key) sealed in Redis: only the session that made it can open it', async () => {
  const page = await owner.get('/account/keys');
  const posted = await owner.post('/account/keys', { csrf: csrfOf(page.body), name: 'sealed', scopes: ['insights:read'], expiry: 'never' });
  expect(posted.statusCode).toBe(303);
  const flashes = await t.redis.redis.keys(`{${t.redis.prefix}:pages}:flash:*`);
  expect(flashes.length).toBeGreaterThan(0);
  for (const k of flashes) expect(await t.redis.redis.get(k)).not.toMatch(/sik_/);
  const shown = await owner.get('/account/keys');
  expect(shown.body).toMatch(/sik_/);
});

describe('keys: rotation, reloads and odd forms', () => {
  const keyRow = (id: string) => t.database.db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  it("a rotated key keeps the old key's expiry (the same end date), never none", async () => {
    const page = await owner.get('/account/keys');
    const created = await owner.submit('/account/keys', {
      csrf: csrfOf(page.body),
      name: 'expiring',
      scopes: ['insights:read'],
      expiry: '30d',
    });
    const old = await keyRow(await keyIdOf(keyFrom(created.body)!));
    expect(old.expires_at).not.toBeNull();
    const rotated = await owner.submit(`/account/keys/${old.id}/rotate`, { csrf: csrfOf(created.body) });
    expect(rotated.posted.statusCode).toBe(303);
    const successor = await keyRow(await keyIdOf(keyFrom(rotated.body)!));
    expect(successor.expires_at?.toISOString()).toBe(old.expires_at!.toISOString());
    expect(rotated.body).toContain('The new one expires when the old one would have');
  });

  it('a reload after creating, rotating or inviting repeats nothing and shows the secret no more; a second rotation is refused (409)', async () => {
    const page = await owner.get('/account/keys');
    const csrf = csrfOf(page.body);
    const before = await keyCount();
    const created = await owner.submit('/account/keys', { csrf, name: 'reloaded', scopes: ['insights:read'], expiry: 'never' });
    expect(created.posted.statusCode).toBe(303);
    expect(created.posted.headers.location).toBe('/account/keys');
    expect(created.posted.body).not.toMatch(/sik_/);
    const key = keyFrom(created.body)!;
    expect(key).toBeDefined();
    // The reload is a GET: no key made, the secret not shown again.
    const reload = await owner.get('/account/keys');
    expect(keyFrom(reload.body)).toBeUndefined();
    expect(reload.body).not.toContain(key);
    expect(await keyCount()).toBe(before + 1);

    const id = await keyIdOf(key);
    const first = await owner.submit(`/account/keys/${id}/rotate`, { csrf });
    expect(first.posted.statusCode).toBe(303);
    expect(keyFrom(first.body)).toBeDefined();
    expect(first.body).not.toContain(`/account/keys/${id}/rotate`);
    const second = await owner.post(`/account/keys/${id}/rotate`, { csrf });
    expect(second.statusCode).toBe(409);
    expect(second.body).toContain('was rotated already');
    expect(keyFrom(second.body)).toBeUndefined();
    expect(await keyCount()).toBe(before + 2);
    // Two at once make one successor.
    const { id: racing } = await createKey(owner, 'raced rotation');
    const codes = (await Promise.all([1, 2, 3].map(() => owner.post(`/account/keys/${racing}/rotate`, { csrf })))).map((r) => r.statusCode);
    expect(codes.sort()).toEqual([303, 409, 409]);
    expect(await t.database.db.selectFrom('api_keys').select('id').where('name', '=', 'raced rotation').execute()).toHaveLength(2);

    const invited = await owner.submit('/account/people', {
      csrf: csrfOf((await owner.get('/account/people')).body),
      email: 'reload@example.com',
      role: 'member',
    });
    expect(invited.body).toContain('An invitation was mailed to reload@example.com');
    expect((await owner.get('/account/people')).body).not.toContain('An invitation was mailed');
  });

  it('odd forms and addresses are 400 pages, never 500s', async () => {
    const csrf = csrfOf((await owner.get('/account/keys')).body);
    const before = await keyCount();
    for (const expiry of ['toString', '__proto__', 'constructor', 'valueOf', 'hasOwnProperty']) {
      const res = await owner.post('/account/keys', { csrf, name: `odd ${expiry}`, scopes: ['insights:read'], expiry });
      expect(res.statusCode, expiry).toBe(400);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.body).toContain('Choose when the key expires from the list.');
    }
    expect(await keyCount()).toBe(before);
    const twice = await owner.get('/account/keys?revoked=a&revoked=b');
    expect(twice.statusCode).toBe(400);
    expect(twice.headers['content-type']).toMatch(/^text\/html/);
  });
});

it("an unknown /account address is an HTML 404 page, not the API's JSON", async () => {
  for (const url of ['/account/nope', '/account/keys/extra/deep']) {
    const res = await owner.get(url);
    expect(res.statusCode, url).toBe(404);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toContain('There is no such account page.');
  }
  expect((await owner.get('/account/keys')).statusCode).toBe(200);
});
