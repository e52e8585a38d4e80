// The account pages in headless Chromium (Debian's chromium; .ci/run installs it), as
// a person uses them: the operator invites them with `insights accounts invite --print-link` (the
// command's own code, in process), they open the link, set a password, sign in, open
// the "API Keys" tab by its name, create a key and read it off the page, call the API
// with it, rotate it, revoke the old one (refused within a second) and sign out (the
// cookie they had is refused after); the Webhooks tab shows a subscription made through the API, the Research tab starts a run, whose page and insight report open from it. Every page passes axe-core's WCAG 2 A/AA rules and
// a few checks of this project's own (one h1, lang, landmarks, the current tab marked),
// loads under its Content-Security-Policy with no violation, and fetches nothing but
// this service.
import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/api-keys/api-key.repository.js';
import { hashApiKey } from '../../src/domain/api-key.js';
import { bearer, createTestApp, type TestApp } from '../support/app.js';
import { runCliInProcess } from '../support/account-pages.js';
import { insertInsight } from '../support/fixtures.js';
import { launchChromium } from '../support/chromium.js';

const EMAIL = 'person@example.com';
const PASSWORD = 'a passphrase of some length';

// What the functions evaluated in Chromium use of the page (the project compiles without the DOM library).
interface PageElement {
  textContent: string | null;
  tagName: string;
  getAttribute(name: string): string | null;
  querySelector(selector: string): PageElement | null;
}
declare const document: {
  documentElement: PageElement;
  querySelector(selector: string): PageElement | null;
  querySelectorAll(selector: string): ArrayLike<PageElement> & Iterable<PageElement>;
  addEventListener(type: 'securitypolicyviolation', listener: (e: { violatedDirective: string; blockedURI: string }) => void): void;
};
declare const window: { __violations?: string[] };
declare const axe: {
  run(context: unknown, options: unknown): Promise<{ violations: Array<{ id: string; help: string; nodes: Array<{ target: unknown }> }> }>;
};

let t: TestApp;
let base: string;
let browser: Browser | undefined;
let axeSource: string;
const problems: string[] = [];
const offsite: string[] = [];

beforeAll(async () => {
  t = await createTestApp({ cacheTtlSeconds: 0, webhookAllowedCidrs: ['127.0.0.1/32'], research: {} });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  axeSource = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function openPage(): Promise<Page> {
  const page = await browser!.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warn') problems.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${String(e)}`));
  await page.setRequestInterception(true);
  page.on('request', (request) => {
    if (request.url().startsWith(`${base}/`)) void request.continue();
    else {
      offsite.push(request.url());
      void request.abort('blockedbyclient');
    }
  });
  // Instrumentation of the test, not the page: the browser's own report of each policy violation.
  await page.evaluateOnNewDocument(() => {
    const seen: string[] = [];
    window.__violations = seen;
    document.addEventListener('securitypolicyviolation', (e) => seen.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  return page;
}

/** axe-core's WCAG 2 A and AA rules, and this project's own checks, on the page as shown; and its policy violations. */
async function accessibilityProblems(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol: the pages' policy allows no script, and the test's own is not the page's.
  await page.evaluate(axeSource);
  const result = await page.evaluate(() =>
    axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } }),
  );
  const own = await page.evaluate(() => {
    const found: string[] = [];
    if (!document.documentElement.getAttribute('lang')) found.push('no lang on <html>');
    if (document.querySelectorAll('h1').length !== 1) found.push(`${document.querySelectorAll('h1').length} h1 elements`);
    if (document.querySelectorAll('main').length !== 1) found.push('no single <main> landmark');
    for (const input of document.querySelectorAll('input:not([type="hidden"]), select, textarea')) {
      const id = input.getAttribute('id');
      if (!id || !document.querySelector(`label[for="${id}"]`))
        found.push(`an unlabelled ${input.tagName.toLowerCase()} (${input.getAttribute('name')})`);
    }
    for (const button of document.querySelectorAll('button')) {
      if (!(button.getAttribute('aria-label') ?? button.textContent ?? '').trim()) found.push('a button without a name');
    }
    for (const svg of document.querySelectorAll('svg')) if (!svg.querySelector('title')) found.push('an svg without a title');
    const nav = document.querySelector('nav');
    if (nav && nav.querySelector('[aria-current="page"]') === null) found.push('a nav without its current tab');
    return found;
  });
  const violations = await page.evaluate(() => window.__violations ?? ['the violation listener did not run']);
  return [
    ...result.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')})`),
    ...own,
    ...violations.map((v) => `CSP violation: ${v}`),
  ];
}

async function submit(page: Page, selector: string): Promise<number | undefined> {
  const [response] = await Promise.all([page.waitForNavigation({ waitUntil: 'load', timeout: 30_000 }), page.click(selector)]);
  return response?.status();
}

const callApi = (key: string) => fetch(`${base}/api/insights?limit=1`, { headers: bearer(key) }).then((r) => r.status);

describe('the account pages in headless Chromium', () => {
  it('invite → set a password → sign in → "API Keys" → create, use, rotate, revoke → sign out', async () => {
    const account = await createApiKey(t.database.db, 'browser account', 'starter', null, ['insights:read', 'webhooks:write']);
    const out = await runCliInProcess(
      ['accounts', 'invite', '--account', account.accountId, '--email', EMAIL, '--role', 'owner', '--print-link'],
      {
        ...t.database.env,
        REDIS_URL: t.redis.url,
        REDIS_PREFIX: t.redis.prefix,
        PUBLIC_BASE_URL: base,
      },
    );
    const link = /(http:\/\/\S+\/account\/invite\/\S+)/.exec(out)![1]!;
    const page = await openPage();
    const audit: Record<string, string[]> = {};

    // The invitation: set a password.
    expect((await page.goto(link, { waitUntil: 'load' }))?.status()).toBe(200);
    audit.invite = await accessibilityProblems(page);
    await page.type('#password', PASSWORD);
    await page.type('#confirm', PASSWORD);
    expect(await submit(page, 'button[type="submit"]')).toBe(200);
    expect(page.url()).toBe(`${base}/account/sign-in?password_set`);

    // Sign in.
    audit['sign-in'] = await accessibilityProblems(page);
    await page.type('#email', EMAIL);
    await page.type('#password', PASSWORD);
    expect(await submit(page, 'main button[type="submit"]')).toBe(200);
    expect(page.url()).toBe(`${base}/account`);
    audit.overview = await accessibilityProblems(page);
    expect(await page.$eval('h1', (h) => h.textContent)).toBe('Overview');

    // The tab the spec names, found by its accessible name.
    expect(await submit(page, '::-p-aria([name="API Keys"][role="link"])')).toBe(200);
    expect(page.url()).toBe(`${base}/account/keys`);
    expect(await page.$eval('nav [aria-current="page"]', (a) => a.textContent)).toBe('API Keys');
    audit.keys = await accessibilityProblems(page);

    // Create a key: shown once, in a field to copy from.
    await page.type('#key-name', 'from the browser');
    await page.click('#scope-research-write');
    await page.select('#key-expiry', '30d');
    expect(await submit(page, '::-p-aria([name="Create key"][role="button"])')).toBe(200);
    audit.created = await accessibilityProblems(page);
    const key = await page.$eval('#new-key', (input) => (input as unknown as { value: string }).value);
    expect(key).toMatch(/^sik_[A-Za-z0-9]{36}$/);
    expect(await callApi(key)).toBe(200);
    const keyId = await t.database.db
      .selectFrom('api_keys')
      .select(['id', 'scopes', 'expires_at'])
      .where('key_hash', '=', hashApiKey(key))
      .executeTakeFirstOrThrow();
    expect(keyId.scopes).toEqual(['insights:read', 'research:write']);
    expect(keyId.expires_at!.getTime()).toBeGreaterThan(Date.now() + 29 * 86_400_000);
    // Reloading shows the list, never the key again.
    await page.reload({ waitUntil: 'load' });
    expect(await page.content()).not.toContain(key);

    // Rotate: a new key; the old one keeps working through the overlap.
    expect(await submit(page, `form[action="/account/keys/${keyId.id}/rotate"] button`)).toBe(200);
    const rotated = await page.$eval('#new-key', (input) => (input as unknown as { value: string }).value);
    expect(rotated).not.toBe(key);
    expect(await callApi(rotated)).toBe(200);
    expect(await callApi(key)).toBe(200);

    // Revoke the old one: refused within a second.
    // The first click asks, naming the key; the second revokes it.
    expect(await submit(page, `form[action="/account/keys/${keyId.id}/revoke"] button`)).toBe(200);
    expect(await page.$eval('main h2', (h) => h.textContent)).toMatch(/^Revoke “.+”\?$/);
    expect(await callApi(key)).toBe(200);
    expect(await submit(page, `form[action="/account/keys/${keyId.id}/revoke"] button`)).toBe(200);
    const revokedAt = Date.now();
    let status = await callApi(key);
    while (status !== 401 && Date.now() - revokedAt < 1_000) status = await callApi(key);
    expect(status).toBe(401);
    expect(Date.now() - revokedAt).toBeLessThan(1_000);
    expect(await callApi(rotated)).toBe(200);
    expect(await page.$eval('main [role="status"]', (p) => p.textContent)).toMatch(/^Revoked “.+” \(sik_[A-Za-z0-9]+…\)/);

    // A subscription made through the API, shown on the Webhooks tab with its delivery.
    const hook = await t.app.inject({
      method: 'POST',
      url: '/api/webhooks',
      headers: { ...bearer(account.key), 'content-type': 'application/json' },
      payload: JSON.stringify({ url: 'http://127.0.0.1:9/browser-hook', min_score: 0.5 }),
    });
    expect(hook.statusCode, hook.body).toBe(201);
    expect(await submit(page, '::-p-aria([name="Webhooks"][role="link"])')).toBe(200);
    expect(await page.$eval('main h2', (h) => h.textContent)).toBe('http://127.0.0.1:9/browser-hook');
    audit.webhooks = await accessibilityProblems(page);

    // Research an idea from the Research tab.
    expect(await submit(page, '::-p-aria([name="Research"][role="link"])')).toBe(200);
    await page.type('#idea', 'subscription boxes for houseplants');
    expect(await submit(page, '::-p-aria([name="Start research"][role="button"])')).toBe(200);
    expect(await page.$eval('main [role="status"]', (p) => p.textContent)).toMatch(/^Started run run_/);
    audit.research = await accessibilityProblems(page);

    // The run's page (finished here, so it does not reload itself under axe) and its insight's report.
    const runId = (await page.$eval('main [role="status"]', (p) => p.textContent))!.match(/run_[a-z0-9]+/)![0];
    const insightId = await insertInsight(t.database.db, { score: 0.7, title: 'Subscription boxes for houseplants' });
    await t.database.db.updateTable('insights').set({ owner_account_id: account.accountId }).where('id', '=', insightId).execute();
    await t.database.db
      .updateTable('research_runs')
      .set({ status: 'succeeded', next_step: 41, insight_id: insightId, finished_at: new Date() })
      .where('id', '=', runId)
      .execute();
    expect(await submit(page, `main a[href="/account/research/${runId}"]`)).toBe(200);
    expect(await page.$$eval('main tbody tr', (rows) => rows.length)).toBe(40);
    audit.run = await accessibilityProblems(page);
    expect(await submit(page, `main dd a[href="/account/insights/${insightId}/report"]`)).toBe(200);
    expect(await page.$eval('h1', (h) => h.textContent)).toBe('Subscription boxes for houseplants');
    // The report is the API's own document (GET /api/insights/{id}/report): it passes the same checks as the pages.
    audit.report = await accessibilityProblems(page);
    await page.goBack({ waitUntil: 'load' });

    expect(await submit(page, '::-p-aria([name="People"][role="link"])')).toBe(200);
    audit.people = await accessibilityProblems(page);

    // Sign out; the cookie the browser had is refused from then on.
    const cookie = (await page.cookies()).find((c) => c.name === 'si_session')!;
    expect(cookie.httpOnly).toBe(true);
    expect(cookie.sameSite).toBe('Strict');
    expect(await submit(page, '::-p-aria([name="Sign out"][role="button"])')).toBe(200);
    expect(page.url()).toBe(`${base}/account/sign-in?signed_out`);
    const stolen = await fetch(`${base}/account/keys`, { headers: { cookie: `si_session=${cookie.value}` }, redirect: 'manual' });
    expect(stolen.status).toBe(303);
    expect(stolen.headers.get('location')).toBe('/account/sign-in');
    expect((await page.goto(`${base}/account/keys`, { waitUntil: 'load' }))?.url()).toBe(`${base}/account/sign-in`);

    expect(audit).toEqual({
      invite: [],
      'sign-in': [],
      overview: [],
      keys: [],
      created: [],
      webhooks: [],
      research: [],
      run: [],
      report: [],
      people: [],
    });
    expect(problems).toEqual([]);
    expect(offsite).toEqual([]);
    await page.close();
  }, 120_000);
});
