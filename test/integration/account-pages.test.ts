// The account's own pages over HTTP (issue 40): the protections a person relies on,
// each shown to refuse what it must and to let the honest request through (so a
// test that passes is not one that cannot fail): cross-site form posts, a session
// cookie used after sign-out, a session id planted before sign-in, 50 wrong passwords
// in a minute, a member revoking an owner's key, a cookie on /api and a key on
// /account. The invitation is made by `insights accounts invite` itself, in process.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, createKeyForAccount } from '../../src/api-keys/api-key.repository.js';
import { createInvitation } from '../../src/account/invitations.js';
import { hashToken } from '../../src/account/tokens.js';
import { hashApiKey } from '../../src/domain/api-key.js';
import { SIGN_IN_LIMITS } from '../../src/account/sign-in-limiter.js';
import { bearer, createTestApp, type TestApp } from '../support/app.js';
import { csrfOf, HOST, ORIGIN, PageAgent, recordingLogger, runCliInProcess } from '../support/account-pages.js';

let t: TestApp;
let accountId: string;
let operatorKey: string;
const log = recordingLogger();
const OWNER = { email: 'owner@example.com', password: 'correct horse battery staple' };
const MEMBER = { email: 'member@example.com', password: 'another long passphrase' };
let owner: PageAgent;
let member: PageAgent;

const keyCount = async () =>
  Number(
    (
      await t.database.db
        .selectFrom('api_keys')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );
const keyFrom = (html: string) => /id="new-key"[^>]*value="(sik_[A-Za-z0-9]+)"/.exec(html)?.[1];
const keyIdOf = async (key: string) =>
  (await t.database.db.selectFrom('api_keys').select('id').where('key_hash', '=', hashApiKey(key)).executeTakeFirstOrThrow()).id;

async function invite(email: string, role: 'owner' | 'member'): Promise<string> {
  const out = await runCliInProcess(['accounts', 'invite', '--account', accountId, '--email', email, '--role', role, '--json'], {
    ...t.database.env,
    REDIS_URL: t.redis.url,
    REDIS_PREFIX: t.redis.prefix,
    PUBLIC_BASE_URL: ORIGIN,
  });
  return (JSON.parse(out) as { link: string }).link;
}

async function createKey(agent: PageAgent, name: string): Promise<{ key: string; id: string }> {
  const page = await agent.get('/account/keys');
  const res = await agent.post('/account/keys', { csrf: csrfOf(page.body), name, scopes: ['insights:read'], expiry: 'never' });
  expect(res.statusCode, res.body).toBe(200);
  const key = keyFrom(res.body)!;
  return { key, id: await keyIdOf(key) };
}

beforeAll(async () => {
  t = await createTestApp({
    cacheTtlSeconds: 0,
    logger: log.logger,
    trustProxy: ['127.0.0.1/32'],
    webhookAllowedCidrs: ['127.0.0.1/32'],
    research: {},
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
afterAll(() => t?.close());

describe('invitations', () => {
  it('the CLI prints a one-time link at PUBLIC_BASE_URL; the token is stored only as a hash and works once', async () => {
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
      await t.database.db
        .selectFrom('account_members')
        .select('password_hash')
        .where('email', '=', 'once@example.com')
        .executeTakeFirstOrThrow()
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
    expect((await owner.post('/account/keys', form, { origin: undefined, 'sec-fetch-site': 'same-origin' })).statusCode).toBe(200);
    expect((await owner.post('/account/keys', form)).statusCode).toBe(200);
    expect(await keyCount()).toBe(before + 2);
    // A control character in a form is the client's fault: a 400 page, nothing created.
    const control = await owner.post('/account/keys', { ...form, name: 'bell\u0007' });
    expect(control.statusCode).toBe(400);
    expect(control.headers['content-type']).toMatch(/^text\/html/);
    expect(await keyCount()).toBe(before + 2);
  });
});

describe('sign-in attempts', () => {
  it(`50 wrong passwords in a minute: refused from the ${SIGN_IN_LIMITS.failuresPerEmail + 1}th, whatever the client, and the right password refused during the lockout`, async () => {
    const email = 'locked@example.com';
    const password = 'the right password, at last';
    await new PageAgent(t.app).acceptInvitation(await invite(email, 'member'), password);
    const answers: number[] = [];
    let lastRetryAfter: string | undefined;
    for (let i = 0; i < 50; i += 1) {
      // A client of its own each time: the address is what is limited, not only the client.
      const agent = new PageAgent(t.app, { remoteAddress: `198.51.100.${i + 1}` });
      const res = await agent.signIn(email, `wrong guess ${i}`);
      answers.push(res.statusCode);
      if (res.statusCode === 429) lastRetryAfter = res.headers['retry-after'] as string;
    }
    expect(answers.slice(0, SIGN_IN_LIMITS.failuresPerEmail)).toEqual(Array(SIGN_IN_LIMITS.failuresPerEmail).fill(401));
    expect(answers.slice(SIGN_IN_LIMITS.failuresPerEmail)).toEqual(Array(50 - SIGN_IN_LIMITS.failuresPerEmail).fill(429));
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
    expect((await member.post(`/account/keys/${own.id}/revoke`, { csrf })).statusCode).toBe(303);
    expect((await t.app.inject({ url: '/api/insights', headers: bearer(own.key) })).statusCode).toBe(401);
    // The owner may revoke anyone's.
    const ownerCsrf = csrfOf((await owner.get('/account/keys')).body);
    expect((await owner.post(`/account/keys/${ownerKey.id}/revoke`, { csrf: ownerCsrf })).statusCode).toBe(303);
    expect((await t.app.inject({ url: '/api/insights', headers: bearer(ownerKey.key) })).statusCode).toBe(401);
  });

  it('an owner invites from the People page: a one-time link', async () => {
    const page = await owner.get('/account/people');
    const res = await owner.post('/account/people', { csrf: csrfOf(page.body), email: 'friend@example.com', role: 'member' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toMatch(new RegExp(`value="${ORIGIN}/account/invite/[A-Za-z0-9_-]{43}"`));
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
    const started = await member.post('/account/research', { csrf, idea: 'pet insurance for ferrets', geo: 'US' });
    expect(started.statusCode, started.body).toBe(200);
    const runId = /Started run (run_[a-z0-9]+)\./.exec(started.body)?.[1];
    expect(runId).toBeDefined();
    const run = await t.database.db.selectFrom('research_runs').selectAll().where('id', '=', runId!).executeTakeFirstOrThrow();
    expect(run).toMatchObject({ account_id: accountId, idea: 'pet insurance for ferrets', geo: 'US', status: 'queued' });
    expect(started.body).toMatch(/<td>pet insurance for ferrets<\/td><td>US<\/td><td>queued<\/td><td>0 of 40<\/td>/);
    // The same idea again joins the run under way (nothing more spent).
    const again = await member.post('/account/research', { csrf, idea: 'pet insurance for ferrets', geo: 'US' });
    expect(again.body).toContain(`researching this idea already: run ${runId}`);
    expect((await owner.get('/account')).body).toMatch(/<dt>Research runs<\/dt><dd>1 of 100 \(99 left\)/);
    // Cross-site, it starts nothing.
    expect(
      (await member.post('/account/research', { csrf, idea: 'another idea entirely' }, { origin: 'https://evil.example' })).statusCode,
    ).toBe(403);
  });
});

describe('webhooks', () => {
  it("lists the account's own subscriptions, their criteria and recent deliveries, through the API's service; no other account's", async () => {
    const hooks = await createKeyForAccount(t.database.db, { id: accountId, plan: 'pro' }, 'hooks', null, [
      'insights:read',
      'webhooks:write',
    ]);
    const json = { ...bearer(hooks.key), 'content-type': 'application/json' };
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/webhooks',
      headers: json,
      payload: JSON.stringify({ url: 'http://127.0.0.1:9/pages-hook', min_score: 0.6, categories: ['finance'] }),
    });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().data.id as string;
    expect((await t.app.inject({ method: 'POST', url: `/api/webhooks/${id}/test`, headers: json })).statusCode).toBe(202);
    const other = await t.webhookKey();
    const foreign = await t.app.inject({
      method: 'POST',
      url: '/api/webhooks',
      headers: { ...bearer(other.key), 'content-type': 'application/json' },
      payload: JSON.stringify({ url: 'http://127.0.0.1:9/someone-else' }),
    });
    expect(foreign.statusCode, foreign.body).toBe(201);

    const res = await member.get('/account/webhooks');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('http://127.0.0.1:9/pages-hook');
    expect(res.body).toContain('score ≥ 0.6; categories: finance');
    expect(res.body).toMatch(/<td>ping<\/td><td>pending<\/td>/);
    expect(res.body).not.toContain('someone-else');
    expect(res.body).toMatch(/<a href="\/account\/webhooks" aria-current="page">Webhooks<\/a>/);
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

it('an expired or unknown invitation says so (410), and invitations over another account are refused', async () => {
  const other = await createApiKey(t.database.db, 'other account', 'free');
  await expect(createInvitation(t.database.db, { accountId: other.accountId, email: OWNER.email, role: 'owner' }, ORIGIN)).rejects.toThrow(
    /another account/,
  );
  expect((await new PageAgent(t.app).get(`/account/invite/${'x'.repeat(43)}`)).statusCode).toBe(410);
  const old = await createInvitation(
    t.database.db,
    { accountId, email: 'late@example.com', role: 'member' },
    ORIGIN,
    new Date(Date.now() - 100 * 3_600_000),
  );
  expect((await new PageAgent(t.app).get(new URL(old.link).pathname)).statusCode).toBe(410);
});
