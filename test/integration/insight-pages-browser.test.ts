// The catalogue in the browser (issue 49): the Insights tab lists, filters and pages the catalogue as GET /api/insights
// does (each row with its verdict, score, provider, market, category and a sparkline), an insight's page carries its
// exports, the compare page shows insights side by side and their interest on one scale (with who answered), the
// Research list names each run's idea, provider, status with its reason and verdict (the demo runs too), and webhook
// subscriptions are created, edited and removed on the Webhooks tab. In headless Chromium, signed in as a person
// would be, every page passing axe-core's WCAG 2 A/AA rules under its Content-Security-Policy. Another account
// cannot see the first's private insights, runs or subscriptions through these pages, nor change them.
//
// Screenshots: always taken (into a temporary directory); with UPDATE_SCREENSHOTS=1, into docs/images/ for
// docs/account-pages.md.
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, type CreatedApiKey } from '../../src/api-keys/api-key.repository.js';
import { createInvitation } from '../../src/members/invitations.js';
import { normalizeIdea } from '../../src/domain/research/idea.js';
import { createRun, markRunFailed } from '../../src/research/run.repository.js';
import { replaceTrendPointsOf } from '../../src/insights/trend-point.repository.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { csrfOf, ORIGIN, PageAgent } from '../support/account-pages.js';
import { insertInsight } from '../support/fixtures.js';
import { launchChromium } from '../support/chromium.js';

const PASSWORD = 'a passphrase of some length';
const SHOTS = process.env.UPDATE_SCREENSHOTS === '1' ? path.resolve('docs/images') : undefined;

interface PageElement {
  textContent: string | null;
  tagName: string;
  getAttribute(name: string): string | null;
  querySelector(selector: string): PageElement | null;
}
declare const document: {
  documentElement: PageElement & { scrollWidth: number };
  querySelector(selector: string): PageElement | null;
  querySelectorAll(selector: string): ArrayLike<PageElement> & Iterable<PageElement>;
  addEventListener(type: 'securitypolicyviolation', listener: (e: { violatedDirective: string; blockedURI: string }) => void): void;
};
declare const window: { __violations?: string[]; innerWidth: number };
declare const axe: {
  run(context: unknown, options: unknown): Promise<{ violations: Array<{ id: string; help: string; nodes: Array<{ target: unknown }> }> }>;
};

let t: TestApp;
let base: string;
let browser: Browser | undefined;
let axeSource: string;
let shotDir: string;
let owner: CreatedApiKey;
let rival: CreatedApiKey;
const problems: string[] = [];
const offsite: string[] = [];
const ids: Record<string, string> = {};

/** 30 days of a rising (or falling) line, for the sparklines. */
const days = (from: number, to: number) =>
  Array.from({ length: 30 }, (_, i) => ({
    date: new Date(Date.UTC(2026, 9, 1 + i)).toISOString().slice(0, 10),
    value: Math.round(from + ((to - from) * i) / 29),
    isPartial: false,
  }));

beforeAll(async () => {
  t = await createTestApp({ cacheTtlSeconds: 0, webhookAllowedCidrs: ['127.0.0.1/32'], research: {} });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  axeSource = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  shotDir = SHOTS ?? (await mkdtemp(path.join(tmpdir(), 'insight-pages-')));
  const db = t.database.db;
  owner = await createApiKey(db, 'owner account', 'starter', null, ['insights:read', 'webhooks:write', 'research:write']);
  rival = await createApiKey(db, 'rival account', 'starter', null, ['insights:read', 'webhooks:write']);

  // 22 public insights in one category, scores 0.30 to 0.93; one public travel insight; one private insight of each account.
  for (let i = 0; i < 22; i++) {
    ids[`shop${i}`] = await insertInsight(db, {
      score: 0.3 + i * 0.03,
      category: 'shopping',
      title: `Catalogue idea ${String(i).padStart(2, '0')}`,
      idea: `catalogue idea ${i}`,
      keywords: [`catalogue phrase ${i}`],
    });
  }
  ids.travel = await insertInsight(db, {
    score: 0.72,
    category: 'travel',
    title: 'Budget travel planner',
    idea: 'budget travel planner',
    keywords: ['budget travel planner'],
    dimensionScores: { whitespace: 0.2, demand: 0.9 },
  });
  ids.mine = await insertInsight(db, {
    score: 0.81,
    category: 'finance',
    title: 'Our secret invoicing idea',
    keywords: ['secret invoicing'],
  });
  ids.theirs = await insertInsight(db, {
    score: 0.85,
    category: 'finance',
    title: 'Rival secret ledger idea',
    keywords: ['secret ledger'],
  });
  await db.updateTable('insights').set({ owner_account_id: owner.accountId }).where('id', '=', ids.mine).execute();
  await db.updateTable('insights').set({ owner_account_id: rival.accountId }).where('id', '=', ids.theirs).execute();
  // The two the comparison asks about: researched ideas, as the comparison service finds them (by idea and market).
  for (const [id, idea] of [
    [ids.travel, 'budget travel planner'],
    [ids.shop21, 'catalogue idea 21'],
  ] as const)
    await db
      .updateTable('insights')
      .set({ idea_key: normalizeIdea(idea).key, provider: 'synthetic' })
      .where('id', '=', id!)
      .execute();
  await db.transaction().execute((trx) =>
    replaceTrendPointsOf(
      trx,
      [
        { insightId: ids.travel!, points: days(20, 80) },
        { insightId: ids.shop21!, points: days(70, 30) },
        { insightId: ids.mine!, points: days(40, 60) },
        ...Array.from({ length: 21 }, (_, i) => ({
          insightId: ids[`shop${i}`]!,
          points: days(10 + ((i * 37) % 80), 10 + ((i * 53) % 90)),
        })),
      ],
      new Date(),
    ),
  );

  // Runs: the owner's done run, its failed run (Google unreachable), the rival's run, and a demo run of no account.
  const done = await createRun(db, {
    idea: 'budget travel planner',
    ideaKey: 'k1',
    hints: [],
    provider: 'synthetic',
    source: 'research',
    accountId: owner.accountId,
  });
  await db
    .updateTable('research_runs')
    .set({ status: 'succeeded', next_step: 41, insight_id: ids.travel, finished_at: new Date() })
    .where('id', '=', done.id)
    .execute();
  ids.doneRun = done.id;
  const failed = await createRun(db, {
    idea: 'drone delivery for islands',
    ideaKey: 'k2',
    hints: [],
    provider: 'google',
    source: 'research',
    accountId: owner.accountId,
  });
  await markRunFailed(db, failed.id, 3, 'connect ECONNREFUSED 127.0.0.1:8080 (proxy)');
  ids.failedRun = failed.id;
  ids.rivalRun = (
    await createRun(db, {
      idea: 'rival private venture',
      ideaKey: 'k3',
      hints: [],
      provider: 'synthetic',
      source: 'research',
      accountId: rival.accountId,
    })
  ).id;
  ids.demoRun = (
    await createRun(db, {
      idea: 'Plant care reminder app',
      ideaKey: 'k4',
      hints: [],
      provider: 'synthetic',
      source: 'synthetic',
      startedBy: 'demo',
    })
  ).id;

  browser = await launchChromium();
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function openPage(): Promise<Page> {
  const page = await browser!.newPage();
  await page.setViewport({ width: 1280, height: 900 });
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
  await page.evaluateOnNewDocument(() => {
    const seen: string[] = [];
    window.__violations = seen;
    document.addEventListener('securitypolicyviolation', (e) => seen.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  return page;
}

async function accessibilityProblems(page: Page): Promise<string[]> {
  await page.evaluate(axeSource);
  const result = await page.evaluate(() =>
    axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } }),
  );
  const own = await page.evaluate(() => {
    const found: string[] = [];
    if (document.querySelectorAll('h1').length !== 1) found.push(`${document.querySelectorAll('h1').length} h1 elements`);
    for (const input of document.querySelectorAll('input:not([type="hidden"]), select, textarea')) {
      const id = input.getAttribute('id');
      if (!id || !document.querySelector(`label[for="${id}"]`))
        found.push(`an unlabelled ${input.tagName.toLowerCase()} (${input.getAttribute('name')})`);
    }
    for (const svg of document.querySelectorAll('svg')) if (!svg.querySelector('title')) found.push('an svg without a title');
    if (document.documentElement.scrollWidth > window.innerWidth)
      found.push(`${document.documentElement.scrollWidth} px wide in a ${window.innerWidth} px window`);
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

const rowTitles = (page: Page) => page.$$eval('table.insights tbody th', (cells) => cells.map((c) => c.textContent!.trim()));
const shot = (page: Page, name: string) => page.screenshot({ path: path.join(shotDir, name), fullPage: true });

/** A person of the account, signed in in the browser through an operator's invitation. */
async function signedIn(account: CreatedApiKey, email: string): Promise<Page> {
  const outcome = await createInvitation(
    t.database.db,
    { accountId: account.accountId, accountName: 'an account', email, role: 'owner', invitedBy: null },
    base,
    { printTo: 'operator' },
  );
  if (outcome.kind !== 'printed') throw new Error(`no invitation: ${outcome.kind}`);
  const page = await openPage();
  await page.goto(outcome.link, { waitUntil: 'load' });
  await page.type('#password', PASSWORD);
  await page.type('#confirm', PASSWORD);
  await submit(page, 'button[type="submit"]');
  await page.type('#email', email);
  await page.type('#password', PASSWORD);
  expect(await submit(page, 'main button[type="submit"]')).toBe(200);
  return page;
}

describe('the catalogue in the browser', () => {
  it('the Insights tab lists, filters and pages the catalogue; an insight page; two insights side by side', async () => {
    const page = await signedIn(owner, 'founder@example.com');
    const audit: Record<string, string[]> = {};

    expect(await submit(page, '::-p-aria([name="Insights"][role="link"])')).toBe(200);
    expect(page.url()).toBe(`${base}/account/insights`);
    audit.list = await accessibilityProblems(page);
    // The first page: 20 of the 24 the account may see (22 + travel + its own private one), best first.
    const first = await rowTitles(page);
    expect(first).toHaveLength(20);
    expect(first.join('\n')).not.toContain('Rival secret');
    await shot(page, 'insights-page.png');

    // The next page: the other 4, none of the first's.
    expect(await submit(page, 'a[rel="next"]')).toBe(200);
    const second = await rowTitles(page);
    expect(second).toHaveLength(4);
    expect(second.filter((title) => first.includes(title))).toEqual([]);
    expect(await page.$('a[rel="next"]')).toBeNull();
    expect([...first, ...second].sort()).toContain('Our secret invoicing idea private');

    // Filters: a category; then a search the rival's private insight would match; then a minimum score.
    await page.goto(`${base}/account/insights`, { waitUntil: 'load' });
    await page.select('#f-category', 'travel');
    expect(await submit(page, '::-p-aria([name="Show"][role="button"])')).toBe(200);
    expect(new URL(page.url()).searchParams.get('category')).toBe('travel');
    expect(await rowTitles(page)).toEqual(['Budget travel planner (simulated)']);
    const row = await page.$eval(`table.insights tr:has(a[href="/account/insights/${ids.travel}"])`, (tr) =>
      tr.textContent!.replace(/\s+/g, ' '),
    );
    expect(row).toContain('Budget travel planner');
    expect(row).toMatch(/promising/);
    expect(row).toContain('72 of 100 (confidence 50)');
    expect(row).toContain('synthetic (simulated)');
    // The phrase researched, beside the title (founder review, issue 47: no page said which phrase the numbers describe).
    expect(await page.$$eval('table.insights thead th', (cells) => cells.map((c) => c.textContent))).toContain('Search phrase');
    expect(row).toContain('budget travel planner');
    expect(row).toContain('Travel');
    expect(await page.$eval(`table.insights tr:has(a[href="/account/insights/${ids.travel}"]) svg title`, (s) => s.textContent)).toContain(
      'interest 20 on 2026-10-01, 80 on 2026-10-30',
    );
    await page.select('#f-category', '');
    await page.type('#f-q', 'secret');
    expect(await submit(page, '::-p-aria([name="Show"][role="button"])')).toBe(200);
    expect(await rowTitles(page)).toEqual(['Our secret invoicing idea private']);
    await page.$eval('#f-q', (input) => ((input as unknown as { value: string }).value = ''));
    await page.select('#f-min', '0.8');
    await page.select('#f-sort', 'oldest');
    expect(await submit(page, '::-p-aria([name="Show"][role="button"])')).toBe(200);
    const scores = await page.$$eval('table.insights tbody td.num', (cells) => cells.map((c) => Number(/^(\d+)/.exec(c.textContent!)![1])));
    expect(scores.length).toBeGreaterThan(0);
    expect(scores.every((s) => s >= 80)).toBe(true);
    // A filter the API refuses is refused here too, as a page error (400), never a 500.
    expect((await page.goto(`${base}/account/insights?category=fintech`, { waitUntil: 'load' }))?.status()).toBe(400);
    expect(await page.$eval('main [role="alert"]', (p) => p.textContent)).toContain('fintech');
    expect((await page.goto(`${base}/account/insights?cursor=not-ours`, { waitUntil: 'load' }))?.status()).toBe(400);

    // An insight's page: verdict first, then its exports.
    await page.goto(`${base}/account/insights?category=travel`, { waitUntil: 'load' });
    expect(await submit(page, `table.insights a[href="/account/insights/${ids.travel}"]`)).toBe(200);
    expect(await page.$eval('h1', (h) => h.textContent)).toBe('Budget travel planner (simulated)');
    expect(await page.$eval('#verdict-heading', (h) => h.textContent)).toBe('Verdict: promising');
    expect(await page.$eval('dl.facts', (d) => d.textContent)).toContain('Search phrasebudget travel planner');
    expect(await page.$eval('.verdict-box', (p) => p.textContent)).toMatch(/Why: many people search for it \(demand 0\.9/);
    // The report's chart, inline in the account's layout (no style attribute for the pages' policy to block).
    expect(await page.$eval('figure.chart figcaption', (f) => f.textContent)).toBe(
      'Simulated interest (0–100), 30 days from 2026-10-01 to 2026-10-30.',
    );
    audit.insight = await accessibilityProblems(page);
    await shot(page, 'insight-page.png');
    const exports = await page.$$eval('.exports a', (links) => links.map((a) => a.getAttribute('href')));
    expect(exports).toEqual([
      `/account/insights/${ids.travel}/report`,
      `/account/insights/${ids.travel}/report.md`,
      `/account/insights/${ids.travel}/insight.csv`,
      '/account/insights',
    ]);
    const cookie = (await page.cookies()).find((c) => c.name === 'si_session')!;
    const asBrowser = { headers: { cookie: `si_session=${cookie.value}` } };
    const md = await fetch(`${base}/account/insights/${ids.travel}/report.md`, asBrowser);
    expect(md.headers.get('content-type')).toMatch(/^text\/markdown/);
    expect(await md.text()).toContain('Budget travel planner');
    const csv = await fetch(`${base}/account/insights/${ids.travel}/insight.csv`, asBrowser);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    const csvLines = (await csv.text()).split('\r\n');
    expect(csvLines[1]).toContain(ids.travel);
    const csvHeader = csvLines[0]!.split(',');
    expect(csvLines[1]!.split(',')[csvHeader.indexOf('search_phrase')]).toBe('budget travel planner');
    expect(await submit(page, '.exports a[href$="/report"]')).toBe(200);
    expect(await page.$eval('h1', (h) => h.textContent)).toContain('Budget travel planner');
    await page.goBack({ waitUntil: 'load' });

    // Two insights side by side: ticked on the list, compared on one page.
    // (Ticks do not survive another page, as the pages have no script: both are ticked on one list.)
    await page.goto(`${base}/account/insights?min_score=0.7&sort=overall`, { waitUntil: 'load' });
    await page.click(`#cmp-${ids.travel}`);
    await page.click(`#cmp-${ids.shop21}`);
    expect(await submit(page, '::-p-aria([name="Compare side by side"][role="button"])')).toBe(200);
    expect(page.url()).toMatch(/\/account\/compare\?id=ins_.*&id=ins_/);
    const columns = await page.$$eval('table.compare thead th', (cells) => cells.map((c) => c.textContent!.trim()));
    expect(columns.slice(1).sort()).toEqual(['Budget travel planner (simulated)', 'Catalogue idea 21 (simulated)']);
    const whitespace = await page.$$eval('table.compare tbody tr', (rows) =>
      rows.filter((r) => r.querySelector('th')!.textContent === 'Whitespace').map((r) => r.textContent),
    );
    expect(whitespace).toHaveLength(1);
    expect(whitespace[0]).toMatch(/20/);
    audit.compare = await accessibilityProblems(page);
    // Their interest on one scale, as POST /api/comparisons answers it, with the provider that answered.
    expect(await submit(page, '::-p-aria([name="Compare their interest on one scale"][role="button"])')).toBe(200);
    expect(await page.$eval('#shared-heading', (h) => h.textContent)).toBe('Interest on one scale');
    expect(await page.$eval('section[aria-labelledby="shared-heading"] p', (p) => p.textContent)).toContain('synthetic');
    expect(await page.$$eval('.compare-chart polyline', (lines) => lines.length)).toBe(2);
    audit.compared = await accessibilityProblems(page);
    await shot(page, 'compare-page.png');
    // One insight is not a comparison, nor is an insight the account may not see.
    expect((await page.goto(`${base}/account/compare?id=${ids.travel}`, { waitUntil: 'load' }))?.status()).toBe(400);
    expect((await page.goto(`${base}/account/compare?id=${ids.travel}&id=${ids.theirs}`, { waitUntil: 'load' }))?.status()).toBe(404);

    // The Research list: idea linked by title, provider, status with its reason, verdict and score; the demo runs.
    expect(await submit(page, '::-p-aria([name="Research"][role="link"])')).toBe(200);
    const runs = await page.$$eval('main table tbody tr', (rows) => rows.map((r) => r.textContent!.replace(/\s+/g, ' ')));
    const doneRow = runs.find((r) => r.includes('budget travel planner'))!;
    expect(doneRow).toMatch(/done/);
    expect(doneRow).toMatch(/promising 72 of 100/);
    const failedRow = runs.find((r) => r.includes('drone delivery for islands'))!;
    expect(failedRow).toContain('step 3 (');
    expect(failedRow).toContain('Google Trends could not be reached');
    expect(failedRow).not.toContain('ECONNREFUSED');
    expect(runs.join('\n')).not.toContain('rival private venture');
    expect(await page.$eval('#demo-heading', (h) => h.textContent)).toBe("The quick start's demo runs");
    expect(await page.$eval(`a[href="/account/research/${ids.demoRun}"]`, (a) => a.textContent)).toContain('Plant care reminder app');
    expect(await page.$(`main a[href="/account/research/${ids.doneRun}"]`)).not.toBeNull();
    expect(await page.$eval(`main a[href="/account/research/${ids.doneRun}"]`, (a) => a.textContent)).toBe(
      'budget travel planner (simulated)',
    );
    audit.research = await accessibilityProblems(page);
    await shot(page, 'research-page.png');
    expect(await submit(page, `main a[href="/account/research/${ids.demoRun}"]`)).toBe(200);

    expect(audit).toEqual({ list: [], insight: [], compare: [], compared: [], research: [] });
    // The refusals asked for above (400, 404) are the only resources the browser reports as failed.
    expect(problems.filter((p) => !/status of 40[04] /.test(p))).toEqual([]);
    expect(offsite).toEqual([]);
    await page.close();
  }, 180_000);

  it('webhook subscriptions are created, edited and removed on the Webhooks tab; the operator’s switch holds', async () => {
    const page = await signedIn(owner, 'hooks@example.com');
    expect(await submit(page, '::-p-aria([name="Webhooks"][role="link"])')).toBe(200);
    const audit: Record<string, string[]> = { empty: await accessibilityProblems(page) };

    // Create.
    await page.type('#new-url', 'http://127.0.0.1:9/from-the-page');
    await page.type('#new-min', '0.6');
    await page.select('#new-categories', 'travel', 'shopping');
    await page.click('#new-events-insight\\.created');
    await page.type('#new-keywords', 'travel, Budget');
    expect(await submit(page, '::-p-aria([name="Subscribe"][role="button"])')).toBe(200);
    expect(await page.$eval('main [role="status"]', (p) => p.textContent)).toMatch(
      /^Subscribed http:\/\/127\.0\.0\.1:9\/from-the-page \(sub_/,
    );
    const secret = await page.$eval('#new-secret', (input) => (input as unknown as { value: string }).value);
    expect(secret.length).toBeGreaterThan(20);
    audit.created = await accessibilityProblems(page);
    let stored = await t.database.db
      .selectFrom('webhook_subscriptions')
      .selectAll()
      .where('account_id', '=', owner.accountId)
      .executeTakeFirstOrThrow();
    expect(stored).toMatchObject({
      url: 'http://127.0.0.1:9/from-the-page',
      min_score: 0.6,
      categories: ['shopping', 'travel'].sort(),
      keywords: ['travel', 'budget'],
      event_types: ['insight.created'],
    });
    await page.reload({ waitUntil: 'load' });
    expect(await page.content()).not.toContain(secret);

    // Edit: another score, no categories, disabled.
    await page.click(`section[aria-labelledby="h-${stored.id}"] details summary`);
    await page.$eval(`#e-${stored.id}-min`, (input) => ((input as unknown as { value: string }).value = ''));
    await page.type(`#e-${stored.id}-min`, '0.75');
    await page.select(`#e-${stored.id}-categories`);
    await page.click(`#e-${stored.id}-enabled`);
    await shot(page, 'webhooks-page.png');
    expect(await submit(page, `::-p-aria([name="Save the subscription to ${stored.url}"][role="button"])`)).toBe(200);
    expect(await page.$eval('main [role="status"]', (p) => p.textContent)).toBe(`Saved the subscription to ${stored.url} (disabled).`);
    stored = await t.database.db.selectFrom('webhook_subscriptions').selectAll().where('id', '=', stored.id).executeTakeFirstOrThrow();
    expect(stored).toMatchObject({ min_score: 0.75, categories: [], state: 'disabled', disabled_by: 'account' });

    // A refusal of the service is a page error, nothing changed.
    await page.click(`section[aria-labelledby="h-${stored.id}"] details summary`);
    await page.$eval(`#e-${stored.id}-min`, (input) => ((input as unknown as { value: string }).value = '7'));
    expect(await submit(page, `::-p-aria([name="Save the subscription to ${stored.url}"][role="button"])`)).toBe(400);
    expect(await page.$eval('main [role="alert"]', (p) => p.textContent)).toContain('The minimum score must be a number from 0 to 1');
    audit.refused = await accessibilityProblems(page);

    // Remove, behind its own disclosure.
    await page.goto(`${base}/account/webhooks`, { waitUntil: 'load' });
    await page.click(`section[aria-labelledby="h-${stored.id}"] details:nth-of-type(2) summary`);
    expect(await submit(page, `::-p-aria([name="Remove the subscription to ${stored.url}"][role="button"])`)).toBe(200);
    expect(await page.$eval('main [role="status"]', (p) => p.textContent)).toContain(
      'Removed the subscription to http://127.0.0.1:9/from-the-page',
    );
    expect(
      await t.database.db.selectFrom('webhook_subscriptions').select('id').where('id', '=', stored.id).executeTakeFirst(),
    ).toBeUndefined();

    // The operator's switch: a subscription an operator disabled shows no edit or remove, and a forged edit is refused (409).
    await page.type('#new-url', 'http://127.0.0.1:9/switched-off');
    expect(await submit(page, '::-p-aria([name="Subscribe"][role="button"])')).toBe(200);
    const switched = await t.database.db
      .selectFrom('webhook_subscriptions')
      .select('id')
      .where('url', '=', 'http://127.0.0.1:9/switched-off')
      .executeTakeFirstOrThrow();
    await t.database.db
      .updateTable('webhook_subscriptions')
      .set({ state: 'disabled', disabled_by: 'operator', disabled_reason: 'abuse report' })
      .where('id', '=', switched.id)
      .execute();
    await page.reload({ waitUntil: 'load' });
    expect(await page.$(`form[action="/account/webhooks/${switched.id}/edit"]`)).toBeNull();
    expect(await page.$(`form[action="/account/webhooks/${switched.id}/remove"]`)).toBeNull();
    expect(await page.$eval(`section[aria-labelledby="h-${switched.id}"]`, (s) => s.textContent)).toContain(
      'An operator disabled this subscription',
    );
    audit.switched = await accessibilityProblems(page);
    const cookie = (await page.cookies()).find((c) => c.name === 'si_session')!;
    const csrf = csrfOf(await page.content());
    const forged = await fetch(`${base}/account/webhooks/${switched.id}/edit`, {
      method: 'POST',
      headers: { cookie: `si_session=${cookie.value}`, origin: base, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf, enabled: 'yes' }).toString(),
      redirect: 'manual',
    });
    expect(forged.status).toBe(409);
    expect(await forged.text()).toContain('only an operator can enable it again');
    const removed = await fetch(`${base}/account/webhooks/${switched.id}/remove`, {
      method: 'POST',
      headers: { cookie: `si_session=${cookie.value}`, origin: base, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf }).toString(),
      redirect: 'manual',
    });
    expect(removed.status).toBe(409);
    expect(
      await t.database.db.selectFrom('webhook_subscriptions').select('state').where('id', '=', switched.id).executeTakeFirstOrThrow(),
    ).toEqual({ state: 'disabled' });
    // Without the session's form token: refused, as every form of the pages.
    const tokenless = await fetch(`${base}/account/webhooks`, {
      method: 'POST',
      headers: { cookie: `si_session=${cookie.value}`, origin: base, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ url: 'http://127.0.0.1:9/no-token' }).toString(),
      redirect: 'manual',
    });
    expect(tokenless.status).toBe(403);

    expect(audit).toEqual({ empty: [], created: [], refused: [], switched: [] });
    // The refusals asked for above (400, 404) are the only resources the browser reports as failed.
    expect(problems.filter((p) => !/status of 40[04] /.test(p))).toEqual([]);
    expect(offsite).toEqual([]);
    await page.close();
  }, 180_000);

  it("another account sees none of the first's private insights, runs or subscriptions through these pages, nor changes them", async () => {
    const hook = await t.database.db
      .selectFrom('webhook_subscriptions')
      .select(['id', 'url'])
      .where('account_id', '=', owner.accountId)
      .executeTakeFirstOrThrow();
    const outcome = await createInvitation(
      t.database.db,
      { accountId: rival.accountId, accountName: 'rival', email: 'rival@example.com', role: 'owner', invitedBy: null },
      ORIGIN,
      { printTo: 'operator' },
    );
    if (outcome.kind !== 'printed') throw new Error(outcome.kind);
    const agent = new PageAgent(t.app);
    await agent.acceptInvitation(outcome.link, PASSWORD);
    expect((await agent.signIn('rival@example.com', PASSWORD)).statusCode).toBe(303);

    const list = await agent.get('/account/insights?q=secret');
    expect(list.statusCode).toBe(200);
    expect(list.body).toContain('Rival secret ledger idea');
    expect(list.body).not.toContain('Our secret invoicing idea private');
    for (const url of [
      `/account/insights/${ids.mine}`,
      `/account/insights/${ids.mine}/report`,
      `/account/insights/${ids.mine}/report.md`,
      `/account/insights/${ids.mine}/insight.csv`,
      `/account/research/${ids.failedRun}`,
    ]) {
      const res = await agent.get(url);
      expect(res.statusCode, url).toBe(404);
      expect(res.body, url).not.toContain('secret invoicing');
      expect(res.body, url).not.toContain('drone delivery');
    }
    expect((await agent.get(`/account/compare?id=${ids.mine}&id=${ids.travel}`)).statusCode).toBe(404);
    const research = await agent.get('/account/research');
    expect(research.body).toContain('rival private venture');
    expect(research.body).not.toContain('drone delivery for islands');
    const hooks = await agent.get('/account/webhooks');
    expect(hooks.body).not.toContain(hook.url);
    const csrf = csrfOf(hooks.body);
    for (const action of ['edit', 'remove', 'test'])
      expect(
        (await agent.post(`/account/webhooks/${hook.id}/${action}`, { csrf, url: 'http://127.0.0.1:9/taken' })).statusCode,
        action,
      ).toBe(404);
    expect(
      await t.database.db.selectFrom('webhook_subscriptions').select('url').where('id', '=', hook.id).executeTakeFirstOrThrow(),
    ).toEqual({
      url: hook.url,
    });
  }, 60_000);
});
