// Exports, through HTTP: a list page as CSV (Accept: text/csv) under the same
// filters, paging, scopes, quota and response cache as JSON, never mixed up
// with it in the cache; an insight's report as Markdown and as a printable
// HTML page, the page opened in headless Chromium (Debian's chromium; .ci/run
// installs it) with the key, as a person's browser would: its sections render,
// its chart has a size, its one stylesheet applies under the route's
// Content-Security-Policy with no violation and no console error, nothing is
// fetched but the page, and it prints to a PDF. The insight reported on was
// researched here, by a real run of 40 steps over generated data, for an idea
// that tries to inject a script, a link and quotes.
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { marked } from 'marked';
import { pino } from 'pino';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/api-keys/api-key.repository.js';
import { loadConfig } from '../../src/config.js';
import { CATEGORY_VALUES } from '../../src/domain/catalog.js';
import { NO_FORECAST, NO_RUN, type InsightReportInput } from '../../src/domain/reports/insight-report.js';
import { renderReportHtml } from '../../src/domain/reports/report-html.js';
import { DIMENSIONS } from '../../src/domain/scoring/dimensions.js';
import { decisionSummary } from '../../src/domain/research/decision-summary.js';
import { verdictOf } from '../../src/domain/research/verdict.js';
import { API_ERROR_HEADERS } from '../../src/http/security-headers.js';
import { REPORT_CSP } from '../../src/http/routes/api/insight-exports.js';
import { INSIGHT_CSV_COLUMNS } from '../../src/views/insight-report.view.js';
import type { Pipeline } from '../../src/runtime/workers.js';
import { startTestWorkers } from '../support/services.js';
import { bearer, createTestApp, type TestApp } from '../support/app.js';
import { insertInsight } from '../support/fixtures.js';
import { until } from '../support/pipeline.js';
import { testResources } from '../support/redis.js';
import { parseCsv } from '../support/csv.js';
import { launchChromium } from '../support/chromium.js';
import { PNG } from 'pngjs';

// What the functions evaluated in Chromium use of the page (the project compiles without the DOM library).
interface PageElement {
  id: string;
  open?: boolean;
  className: string;
  textContent: string | null;
  innerText: string;
  children: ArrayLike<PageElement>;
  getAttribute(name: string): string | null;
  getBoundingClientRect(): { width: number; height: number; top: number; bottom: number };
  closest(selector: string): PageElement | null;
}
declare const document: {
  body: PageElement;
  documentElement: { scrollWidth: number; scrollHeight: number };
  querySelector(selector: string): PageElement | null;
  querySelectorAll(selector: string): ArrayLike<PageElement> & Iterable<PageElement>;
  getElementById(id: string): PageElement | null;
  addEventListener(type: 'securitypolicyviolation', listener: (e: { violatedDirective: string; blockedURI: string }) => void): void;
};
declare const window: { __violations?: string[] };
declare const location: { hash: string };
declare function getComputedStyle(element: PageElement): { borderCollapse: string; maxWidth: string; breakBefore: string };
/** Text that reads as a JSON Pointer into an insight: the report shows words instead, and links to the place. */
const POINTER_TEXT =
  /(^|[\s(,])\/(dimensions|overall_score|confidence|trend_class\w*|outlook|primary_choice|search_volume|data_as_of|provider|provenance|summary|title|idea)(\/|\b)/;
/** The window a founder reads the report in: the verdict must be in it without scrolling, the page no wider. */
const WINDOW = { width: 1280, height: 720 };
/** Where the report's screenshots go: docs/images/ when asked for (UPDATE_SCREENSHOTS=1), else a temporary folder. */
const SCREENSHOTS = process.env.UPDATE_SCREENSHOTS === '1' ? path.resolve('docs/images') : null;
const HOSTILE_IDEA = `Meal kits <script>alert("pwned")</script> & 'vegan' "boxes" [click](https://evil.example) for parents`;

let t: TestApp;
let pipeline: Pipeline;
let base: string;
let key: string;
/** The account that researched the insight below (privately): only its keys read it. */
let owner: { key: string; accountId: string };
let researched: string;
/** A plain idea researched the same way: the report the screenshots in docs/ show. */
let plain: string;
let demo: string;
let browser: Browser | undefined;

beforeAll(async () => {
  t = await createTestApp({ research: {} });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  pipeline = await startTestWorkers(
    testResources(t.database, t.redis),
    loadConfig({ REDIS_PREFIX: t.redis.prefix, TRENDS_PROVIDER: 'synthetic', WEBHOOK_ENCRYPTION_KEY: t.webhookEncryptionKey }),
    pino({ level: 'silent' }),
  );
  key = await t.key('enterprise');
  const category = CATEGORY_VALUES[0]!;
  // Cells a spreadsheet would read as formulas, and cells RFC 4180 must quote.
  const hostile = [
    { title: '=HYPERLINK("http://evil.example","click")', idea: 'comma, "quoted" and\nnewline' },
    { title: '+1 555 0100', idea: '-2+3' },
    { title: '@SUM(A1:A9)', idea: '\tcmd' },
    { title: '\rreturn', idea: 'plain' },
  ];
  for (let i = 0; i < 11; i += 1) {
    await insertInsight(t.database.db, {
      score: Math.round((0.95 - i * 0.05) * 100) / 100,
      category,
      createdAt: new Date(Date.UTC(2026, 0, 1 + i)),
      ...(hostile[i] ?? {}),
      ...(i === 5 ? { dimensionScores: { pain: null, intent: null } } : {}),
    });
  }
  demo = await insertInsight(t.database.db, { score: 0.01, category, title: 'A demo insight' });

  const created = await t.researchKey('enterprise');
  owner = { key: created.key, accountId: created.accountId };
  const research = async (idea: string) => {
    const submitted = await t.app.inject({
      method: 'POST',
      url: '/api/research-runs',
      headers: { ...bearer(owner.key), 'content-type': 'application/json' },
      payload: JSON.stringify({ idea, geo: 'US' }),
    });
    expect(submitted.statusCode, submitted.body).toBe(202);
    const runId = submitted.json().data.id as string;
    const run = await until<{ status: string; error: string | null; insight_id: string | null }>(
      async () => (await t.app.inject({ method: 'GET', url: `/api/research-runs/${runId}`, headers: bearer(owner.key) })).json().data,
      (r) => ['succeeded', 'failed', 'cancelled'].includes(r.status),
      90_000,
      `the research run of "${idea}"`,
    );
    expect(run.status, String(run.error)).toBe('succeeded');
    return run.insight_id!;
  };
  [researched, plain] = await Promise.all([research(HOSTILE_IDEA), research('Meal kits for busy parents')]);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await pipeline?.close();
  await t?.close();
});

const get = (url: string, headers: Record<string, string> = {}, as = key) =>
  t.app.inject({ method: 'GET', url, headers: { ...bearer(as), ...headers } });
const csv = (url: string, headers: Record<string, string> = {}, as = key) => get(url, { accept: 'text/csv', ...headers }, as);
const nextOf = (link: unknown) => (typeof link === 'string' ? /^<([^>]+)>; rel="next"$/.exec(link)?.[1] : undefined);

describe('GET /api/insights as CSV', () => {
  it("answers text/csv: a header and one record per insight of the page, in the JSON page's order and with its figures", async () => {
    const json = await get('/api/insights?limit=8&sort=newest');
    const res = await csv('/api/insights?limit=8&sort=newest');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers.vary).toBe('Accept');
    expect(json.headers.vary).toBe('Accept');
    const [header, ...records] = parseCsv(res.body);
    expect(header).toEqual([...INSIGHT_CSV_COLUMNS]);
    expect(header).toEqual(
      expect.arrayContaining(['id', 'title', 'idea', 'overall_score', 'confidence', 'dimensions_scored', ...DIMENSIONS, 'trend_class']),
    );
    const items = json.json().data as Array<{
      id: string;
      overall_score: number;
      dimension_scores: Record<string, number | null>;
      created_at: string;
    }>;
    expect(records.map((r) => r[0])).toEqual(items.map((i) => i.id));
    const column = (name: string) => header!.indexOf(name);
    for (const [n, item] of items.entries()) {
      const record = records[n]!;
      expect(Number(record[column('overall_score')])).toBe(item.overall_score);
      expect(record[column('created_at')]).toBe(item.created_at);
      for (const d of DIMENSIONS) expect(record[column(d)]).toBe(item.dimension_scores[d] === null ? '' : String(item.dimension_scores[d]));
      expect(Number(record[column('dimensions_scored')])).toBe(Object.values(item.dimension_scores).filter((s) => s !== null).length);
    }
    expect(records.map((r) => r[column('dimensions_scored')])).toContain('6');
  });

  it('quotes as RFC 4180 says and prefixes a quote to a cell a spreadsheet would run as a formula', async () => {
    const res = await csv('/api/insights?limit=100&sort=oldest');
    expect(res.body.endsWith('\r\n')).toBe(true);
    expect(res.body).toContain(`"'=HYPERLINK(""http://evil.example"",""click"")","comma, ""quoted"" and\nnewline"`);
    const [header, ...records] = parseCsv(res.body);
    const cells = (col: string) => records.map((r) => r[header!.indexOf(col)]);
    expect(cells('title')).toEqual(
      expect.arrayContaining(['\'=HYPERLINK("http://evil.example","click")', "'+1 555 0100", "'@SUM(A1:A9)", "'\rreturn"]),
    );
    expect(cells('idea')).toEqual(expect.arrayContaining(['comma, "quoted" and\nnewline', "'-2+3", "'\tcmd"]));
    // Nothing else starts like a formula; numbers are written as numbers.
    for (const record of records) for (const cell of record) expect(cell).not.toMatch(/^[=+\-@\t\r]/);
    expect(cells('overall_score').every((s) => /^(0|1|0\.\d+)$/.test(s!))).toBe(true);
  });

  it('pages with a Link header: following rel="next" visits every insight once, as next_cursor does, filters kept', async () => {
    for (const query of ['limit=4', 'limit=3&sort=newest&min_score=0.2']) {
      const jsonIds: string[] = [];
      let cursor: string | null = null;
      do {
        const page: { data: Array<{ id: string }>; next_cursor: string | null } = (
          await get(`/api/insights?${query}${cursor ? `&cursor=${cursor}` : ''}`)
        ).json();
        jsonIds.push(...page.data.map((d: { id: string }) => d.id));
        cursor = page.next_cursor;
      } while (cursor);

      const csvIds: string[] = [];
      let url: string | undefined = `/api/insights?${query}`;
      let pages = 0;
      while (url) {
        const res = await csv(url);
        expect(res.statusCode).toBe(200);
        csvIds.push(
          ...parseCsv(res.body)
            .slice(1)
            .map((r) => r[0]!),
        );
        url = nextOf(res.headers.link);
        if (url) expect(url).toContain(query.split('&').at(-1));
        pages += 1;
      }
      expect(pages).toBeGreaterThan(2);
      expect(csvIds).toEqual(jsonIds);
      expect(new Set(csvIds).size).toBe(csvIds.length);
    }
  });

  it('is cached apart from JSON: neither is ever served for the other, each with its own ETag and Link', async () => {
    const url = '/api/insights?limit=2&sort=momentum';
    const json1 = await get(url);
    const csv1 = await csv(url);
    const csv2 = await csv(url);
    const json2 = await get(url);
    expect([json1.headers['x-cache'], csv1.headers['x-cache'], csv2.headers['x-cache'], json2.headers['x-cache']]).toEqual([
      'miss',
      'miss',
      'hit',
      'hit',
    ]);
    expect(json2.headers['content-type']).toMatch(/^application\/json/);
    expect(json2.json().data).toHaveLength(2);
    expect(csv2.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv2.body).toBe(csv1.body);
    expect(csv2.headers.link).toBe(csv1.headers.link);
    expect(json2.headers.link).toBe(json1.headers.link);
    expect(nextOf(csv2.headers.link)).toMatch(/cursor=/);
    expect(csv1.headers.etag).not.toBe(json1.headers.etag);
    // A JSON ETag does not validate the CSV (nor the other way round); each validates itself.
    expect((await csv(url, { 'if-none-match': String(json1.headers.etag) })).statusCode).toBe(200);
    expect((await get(url, { 'if-none-match': String(csv1.headers.etag) })).statusCode).toBe(200);
    const notModified = await csv(url, { 'if-none-match': String(csv1.headers.etag) });
    expect(notModified.statusCode).toBe(304);
    expect(notModified.headers.vary).toBe('Accept');
  });

  it.each([
    ['*/*', 'application/json'],
    ['text/*', 'text/csv'],
    ['application/json;q=0.5, text/csv', 'text/csv'],
    ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'application/json'],
  ])('Accept %j gets %s', async (accept, type) => {
    expect((await get('/api/insights?limit=1', { accept })).headers['content-type']).toMatch(new RegExp(`^${type}`));
  });

  it('refuses an Accept it cannot answer with a 406 problem naming what it offers', async () => {
    for (const accept of ['application/xml', 'text/csv;q=0, application/json;q=0', 'image/*']) {
      const res = await get('/api/insights', { accept });
      expect(res.statusCode, accept).toBe(406);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.headers.vary).toBe('Accept');
      const body = res.json();
      expect(body).toMatchObject({ type: '/problems/not-acceptable', status: 406 });
      expect(body.invalid_params).toEqual([{ name: 'Accept', reason: expect.any(String), allowed: ['application/json', 'text/csv'] }]);
      expect(body.detail).toContain('application/json or text/csv');
    }
  });

  it('needs the scope JSON needs, and counts against the same daily quota, cache hits included', async () => {
    const writer = (await createApiKey(t.database.db, 'webhooks only', 'enterprise', null, ['webhooks:write'])).key;
    for (const accept of ['text/csv', 'application/json']) {
      const refused = await get('/api/insights', { accept }, writer);
      expect(refused.statusCode).toBe(403);
      expect(refused.json().type).toBe('/problems/missing-scope');
    }
    const free = (await createApiKey(t.database.db, 'free csv', 'free')).key;
    const left = (res: { headers: Record<string, unknown> }) => Number(/r=(\d+)/.exec(String(res.headers.ratelimit))?.[1]);
    expect(left(await get('/api/insights?limit=1', {}, free))).toBe(99);
    expect(left(await csv('/api/insights?limit=1', {}, free))).toBe(98);
    const hit = await csv('/api/insights?limit=1', {}, free);
    expect(hit.headers['x-cache']).toBe('hit');
    expect(left(hit)).toBe(97);
    expect(left(await get('/api/insights', { accept: 'application/xml' }, free))).toBe(96); // a 406 is counted, as a 400 is
    for (let i = 96; i > 0; i -= 1) expect((await csv('/api/insights?limit=1', {}, free)).statusCode).toBe(200);
    const spent = await csv('/api/insights?limit=1', {}, free);
    expect(spent.statusCode).toBe(429);
    expect(spent.json().type).toBe('/problems/quota-exceeded');
    expect((await get('/api/insights?limit=1', {}, free)).statusCode).toBe(429);
  });
});

describe('GET /api/insights/{id}/report', () => {
  it('as Markdown: the sections and the 40 steps, and an idea that adds no link and no HTML', async () => {
    const res = await get(`/api/insights/${researched}/report`, { accept: 'text/markdown' }, owner.key);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('text/markdown; charset=utf-8');
    expect(res.headers.vary).toBe('Accept');
    const markdown = res.body;
    for (const heading of [
      'Signals, risks and what to validate first',
      'Search interest',
      'The 8 dimensions',
      'Evidence, dimension by dimension',
      'Forecast',
      'Research trace',
    ]) {
      expect(markdown).toMatch(new RegExp(`^## ${heading}$`, 'm'));
    }
    const html = marked.parse(markdown, { async: false, gfm: true });
    expect(html).not.toMatch(/<(script|img|iframe)\b/i);
    expect(html).toContain('&lt;script&gt;alert(&quot;pwned&quot;)&lt;/script&gt;');
    expect(html).toContain('[click](https://evil.example)');
    // No raw HTML anchors (issue 47): citations are words.
    expect(markdown).not.toMatch(/<a id=/);
    const ids = new Set([...html.matchAll(/ id="([^"]+)"/g)].map((m) => m[1]));
    for (const [, href] of html.matchAll(/<a href="([^"]*)"/g)) {
      expect(href).toMatch(/^#ev\//);
      expect(ids.has(href!.slice(1)), href).toBe(true);
    }
    // The trace: 40 rows, each a step done.
    const steps = [...markdown.matchAll(/^\| (\d+) \| ([a-z0-9_]+) \| (\w+) \|/gm)];
    expect(steps.map((m) => Number(m[1]))).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(new Set(steps.map((m) => m[3]))).toEqual(new Set(['done']));
    expect(markdown).not.toContain(NO_RUN);
  });

  it('serves the verdict it leads with on each list entry and on the insight alike', async () => {
    const list = (await get('/api/insights?limit=20&sort=newest')).json().data as Array<{ id: string; verdict: { label: string } }>;
    expect(list.length).toBeGreaterThan(5);
    const labels = new Set<string>();
    for (const entry of list) {
      const detail = (await get(`/api/insights/${entry.id}`)).json();
      expect(entry.verdict, entry.id).toEqual(detail.verdict);
      expect(detail.verdict).toEqual(verdictOf(detail));
      labels.add(entry.verdict.label);
    }
    // The fixtures score from 0.95 down: more than one label is said.
    expect(labels.size).toBeGreaterThan(1);
  });

  it('of an insight no run researched: says so, in Markdown and in HTML', async () => {
    const md = await get(`/api/insights/${demo}/report`, { accept: 'text/markdown' });
    expect(md.statusCode).toBe(200);
    expect(md.body).toContain('No research run is behind this insight');
    expect(md.body).toContain('No forecast yet');
    const html = await get(`/api/insights/${demo}/report`);
    expect(html.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(html.body).toContain(NO_RUN);
    expect(html.body).toContain(NO_FORECAST);
  });

  it('as HTML: every text escaped, no script, nothing to load, its own policy', async () => {
    const res = await fetch(`${base}/api/insights/${researched}/report`, { headers: bearer(owner.key) });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toBe(REPORT_CSP);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    const html = await res.text();
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain('Meal kits &lt;script&gt;alert(&quot;pwned&quot;)&lt;/script&gt; &amp; &#39;vegan&#39; &quot;boxes&quot;');
    expect(html).not.toMatch(/ (src|style)=/);
    expect([...html.matchAll(/ href="([^"]*)"/g)].every((m) => m[1]!.startsWith('#'))).toBe(true);
  });

  it('reads as GET /api/insights/{id} does: a key, its scope, its account; 406 for what it does not answer', async () => {
    const url = `/api/insights/${researched}/report`;
    expect((await t.app.inject({ method: 'GET', url })).statusCode).toBe(401);
    const writer = (await createApiKey(t.database.db, 'report webhooks only', 'enterprise', null, ['webhooks:write'])).key;
    expect((await get(url, {}, writer)).statusCode).toBe(403);
    // Researched privately: another account's key gets the 404 the insight itself answers.
    expect((await get(`/api/insights/${researched}`)).statusCode).toBe(404);
    expect((await get(url)).statusCode).toBe(404);
    expect((await get(`/api/insights/ins_0123456789abcdefghjk/report`, {}, owner.key)).statusCode).toBe(404);
    const json = await get(url, { accept: 'application/json' }, owner.key);
    expect(json.statusCode).toBe(406);
    expect(json.json().invalid_params[0].allowed).toEqual(['text/html', 'text/markdown']);
    const free = (await createApiKey(t.database.db, 'free report', 'free')).key;
    const res = await get(`/api/insights/${demo}/report`, {}, free);
    expect(res.statusCode).toBe(200);
    expect(res.headers.ratelimit).toMatch(/r=99/);
  });

  it('is described in /openapi.json, with the list in both its media types and the 406s', async () => {
    const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const list = document.paths['/api/insights'].get.responses;
    expect(Object.keys(list['200'].content)).toEqual(['application/json', 'text/csv']);
    expect(list['200'].headers).toMatchObject({ Link: expect.any(Object), Vary: expect.any(Object), ETag: expect.any(Object) });
    expect(Object.keys(list['406'].content)).toEqual(['application/problem+json']);
    const report = document.paths['/api/insights/{id}/report'].get;
    expect(report.operationId).toBe('getInsightReport');
    expect(Object.keys(report.responses['200'].content)).toEqual(['text/html', 'text/markdown']);
    expect(Object.keys(report.responses['406'].content)).toEqual(['application/problem+json']);
  });
});

/** What Chromium said while a page loaded: console errors and warnings, uncaught errors, policy violations. */
async function openInChromium(
  page: Page,
  url: string,
  serve?: { body: string; csp: string },
): Promise<{ problems: string[]; requests: string[]; violations: string[] }> {
  const problems: string[] = [];
  const requests: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warn') problems.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${String(e)}`));
  page.on('requestfailed', (r) => problems.push(`requestfailed: ${r.url()} ${r.failure()?.errorText ?? ''}`));
  // Every request goes through here: the page may fetch nothing beyond itself, and nothing leaves loopback.
  await page.setRequestInterception(true);
  page.on('request', (request) => {
    requests.push(request.url());
    if (serve && request.url() === url) {
      void request.respond({
        status: 200,
        contentType: 'text/html; charset=utf-8',
        headers: { 'content-security-policy': serve.csp },
        body: serve.body,
      });
    } else if (request.url().startsWith(`${base}/`)) {
      void request.continue();
    } else {
      void request.abort('blockedbyclient');
    }
  });
  // Instrumentation of the test, not the page: the browser's own report of each policy violation.
  await page.evaluateOnNewDocument(() => {
    const seen: string[] = [];
    window.__violations = seen;
    document.addEventListener('securitypolicyviolation', (e) => seen.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  const response = await page.goto(url, { waitUntil: 'load', timeout: 30_000 });
  expect(response?.status()).toBe(200);
  const violations = await page.evaluate(() => window.__violations ?? ['the violation listener did not run']);
  return { problems, requests, violations };
}

/**
 * What a founder sees in a 1,280 × 720 window: the verdict whole without scrolling, no horizontal
 * scroll, no text that is a JSON Pointer, and no paragraph or list item said twice.
 */
async function expectReadable(page: Page): Promise<{ verdict: string }> {
  const seen = await page.evaluate(() => {
    const verdict = document.getElementById('verdict');
    const box = verdict?.getBoundingClientRect();
    const texts = [...document.querySelectorAll('main p, main li')].map((e) => (e.textContent ?? '').trim()).filter(Boolean);
    return {
      verdict: verdict ? verdict.innerText : null,
      verdictClass: verdict?.className ?? null,
      top: box?.top ?? null,
      bottom: box?.bottom ?? null,
      scrollWidth: document.documentElement.scrollWidth,
      body: document.body.textContent ?? '',
      texts,
    };
  });
  expect(seen.verdict, 'the page has a verdict').not.toBeNull();
  expect(seen.verdict).toMatch(
    /^(Promising|Mixed|Weak|Unproven) overall \d\.\d\d, confidence \d\.\d\d\s+Strongest reason: .+\. Biggest risk: .+/,
  );
  expect(seen.verdictClass).toMatch(/^(promising|mixed|weak|unproven)$/);
  expect(seen.top).toBeGreaterThanOrEqual(0);
  expect(seen.bottom).toBeLessThanOrEqual(WINDOW.height);
  expect(seen.scrollWidth).toBeLessThanOrEqual(WINDOW.width);
  const pointerLines = seen.body.split('\n').filter((line) => POINTER_TEXT.test(line));
  expect(pointerLines).toEqual([]);
  const twice = seen.texts.filter((text, i) => seen.texts.indexOf(text) !== i);
  expect(twice).toEqual([]);
  return { verdict: seen.verdict! };
}

describe('the HTML report in headless Chromium', () => {
  beforeAll(async () => {
    browser = await launchChromium();
  }, 60_000);

  it('renders its sections and its chart under its policy with no error or violation, and prints to a PDF', async () => {
    const page = await browser!.newPage();
    await page.setViewport(WINDOW);
    await page.setExtraHTTPHeaders({ ...bearer(owner.key), accept: 'text/html' });
    const url = `${base}/api/insights/${researched}/report`;
    const { problems, requests, violations } = await openInChromium(page, url);
    expect(problems).toEqual([]);
    expect(violations).toEqual([]);
    expect(requests).toEqual([url]);

    const dom = await page.evaluate(() => {
      const box = (selector: string) => {
        const r = document.querySelector(selector)?.getBoundingClientRect();
        return r ? { width: r.width, height: r.height } : null;
      };
      return {
        sections: [...document.querySelectorAll('section')].map((s) => s.id),
        h1: document.querySelector('h1')?.textContent,
        scripts: document.querySelectorAll('script').length,
        svg: box('#chart svg'),
        paths: document.querySelectorAll('#chart svg path').length,
        dimensions: document.querySelectorAll('#dimensions tbody tr').length,
        evidenceTables: document.querySelectorAll('#evidence table').length,
        folded: [...document.querySelectorAll('#evidence details')].map((d) => d.open),
        steps: [...document.querySelectorAll('#research-trace tbody tr')].map((tr) => tr.children[2]?.textContent),
        // The stylesheet applied: only then are the tables collapsed and the body a column.
        collapse: getComputedStyle(document.querySelector('table')!).borderCollapse,
        maxWidth: getComputedStyle(document.body).maxWidth,
        brokenLinks: [...document.querySelectorAll('a[href^="#"]')].filter(
          (a) => !document.getElementById(a.getAttribute('href')!.slice(1)),
        ).length,
      };
    });
    // The decision summary, the outlook and the phrase choice: what research concluded and stored beside the insight.
    expect(dom.sections).toEqual([
      'verdict',
      'decision',
      'chart',
      'dimensions',
      'evidence',
      'forecast',
      'outlook',
      'primary-choice',
      'research-trace',
    ]);
    expect(dom.folded.length).toBeGreaterThanOrEqual(8);
    expect(dom.folded.every((open) => open === false)).toBe(true);
    await expectReadable(page);
    expect(dom.h1).toContain('<script>alert("pwned")</script>');
    expect(dom.scripts).toBe(0);
    expect(dom.svg!.width).toBeGreaterThan(300);
    expect(dom.svg!.height).toBeGreaterThan(100);
    expect(dom.paths).toBeGreaterThan(0);
    expect(dom.dimensions).toBe(8);
    expect(dom.evidenceTables).toBeGreaterThanOrEqual(8);
    expect(dom.steps).toHaveLength(40);
    expect(new Set(dom.steps)).toEqual(new Set(['done']));
    expect(dom.collapse).toBe('collapse');
    expect(dom.maxWidth).toBe('980px');
    expect(dom.brokenLinks).toBe(0);

    // As printed: the print stylesheet applies, the chart keeps its size, and the PDF has pages.
    await page.emulateMediaType('print');
    const printed = await page.evaluate(() => ({
      maxWidth: getComputedStyle(document.body).maxWidth,
      traceBreak: getComputedStyle(document.getElementById('research-trace')!).breakBefore,
      svgWidth: document.querySelector('#chart svg')!.getBoundingClientRect().width,
    }));
    expect(printed).toMatchObject({ maxWidth: 'none', traceBreak: 'page' });
    expect(printed.svgWidth).toBeGreaterThan(300);
    const dir = await mkdtemp(path.join(os.tmpdir(), 'si-report-'));
    try {
      const file = path.join(dir, 'report.pdf');
      // The page's own @page rule says A4 portrait: the PDF takes its size from it, not from an option.
      await page.pdf({ path: file, preferCSSPageSize: true, printBackground: true, timeout: 60_000 });
      expect((await stat(file)).size).toBeGreaterThan(10_000);
      const pdf = await readFile(file, 'latin1');
      expect(pdf.startsWith('%PDF-')).toBe(true);
      expect(pdf.match(/\/Type\s*\/Page\b/g)?.length ?? 0).toBeGreaterThanOrEqual(2);
      // A4 is 210 × 297 mm: 595 × 842 points, portrait (no wider than tall).
      const boxes = [...pdf.matchAll(/\/MediaBox\s*\[\s*([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*\]/g)].map((m) => [
        Number(m[3]) - Number(m[1]),
        Number(m[4]) - Number(m[2]),
      ]);
      expect(boxes.length).toBeGreaterThan(0);
      for (const [width, height] of boxes) {
        expect(Math.abs(width! - 595.3)).toBeLessThan(2);
        expect(Math.abs(height! - 841.9)).toBeLessThan(2);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    await page.close();
  }, 120_000);

  it("renders a decision's citations as links to the evidence they name, with the outlook and the phrase choice", async () => {
    const insight = (await get(`/api/insights/${researched}`, {}, owner.key)).json();
    // What research stored for this insight (outlook.ts, phrase-choice.ts), before the insight's JSON carries it; made up where it did not.
    const stored = await t.database.db
      .selectFrom('insights')
      .select(['outlook', 'primary_choice'])
      .where('id', '=', researched)
      .executeTakeFirstOrThrow();
    const outlook = (stored.outlook as { horizons?: unknown[] } | null)?.horizons?.length
      ? stored.outlook
      : { withheld: false, model: 'damped', horizons: [{ months: 3, value: 41.2, lower_80: 35, upper_80: 47 }] };
    const primaryChoice = (stored.primary_choice as { candidates?: unknown[] } | null)?.candidates?.length
      ? stored.primary_choice
      : { primary: 'meal kits', reason: 'named the product', candidates: [{ phrase: 'meal kits', coverage: 0.8, mean: 41, score: 1.2 }] };
    // The decision the insight makes of itself (decision-summary.ts), and one sentence per kind of place a pointer may name.
    // A group shows three sentences at most: two of the insight's own and one made up, first.
    const full = decisionSummary({ ...insight, outlook });
    const own = {
      signals: full.signals.slice(0, 2),
      risks: full.risks.slice(0, 2),
      validate_first: full.validate_first.slice(0, 2),
      why_now: full.why_now.slice(0, 2),
    };
    const input: InsightReportInput = {
      insight: {
        ...insight,
        partial: true,
        outlook,
        primary_choice: primaryChoice,
        decision: {
          signals: [
            { text: 'Searched <a lot>', evidence: [`/dimensions/demand/evidence/${Object.keys(insight.dimensions.demand.evidence)[0]}`] },
            ...own.signals,
          ],
          risks: [{ text: 'Crowded', evidence: ['/dimensions/whitespace/explanation', '/not/here'] }, ...own.risks],
          validate_first: [{ text: 'Ask ten parents', evidence: ['/primary_choice/candidates/0'] }, ...own.validate_first],
          why_now: [{ text: 'Rising', evidence: ['/trend_class', '/outlook/horizons/0'] }, ...own.why_now],
        },
      },
      series: (await get(`/api/insights/${researched}/trend-data`, {}, owner.key)).json().data,
      forecast: null,
      run: null,
      generatedAt: new Date().toISOString(),
    };
    const ownCitations = [own.signals, own.risks, own.validate_first, own.why_now].flat().flatMap((sentence) => sentence.evidence);
    const page = await browser!.newPage();
    const url = `${base}/report-with-every-field`;
    const { problems, violations } = await openInChromium(page, url, { body: renderReportHtml(input), csp: REPORT_CSP });
    expect(problems).toEqual([]);
    expect(violations).toEqual([]);
    const dom = await page.evaluate(() => ({
      sections: [...document.querySelectorAll('section')].map((s) => s.id),
      // A citation reads as words; the pointer is its title and, as an anchor, its target.
      citations: [...document.querySelectorAll('#decision a.cite')].map((a) => {
        const target = document.getElementById(a.getAttribute('href')!.slice(1));
        return {
          text: a.getAttribute('title'),
          words: a.textContent,
          exists: target !== null,
          target: target?.closest('section')?.id ?? null,
        };
      }),
      unlinked: [...document.querySelectorAll('#decision span.cite')].map((s) => s.getAttribute('title')),
      notices: [...document.querySelectorAll('.notice')].map((n) => n.textContent),
    }));
    expect(dom.sections).toEqual([
      'verdict',
      'decision',
      'chart',
      'dimensions',
      'evidence',
      'forecast',
      'outlook',
      'primary-choice',
      'research-trace',
    ]);
    // Every link lands on an element; each pointer of the insight's own sentences is one of them.
    expect(dom.citations.filter((c) => !c.exists)).toEqual([]);
    const linked = new Set(dom.citations.map((c) => c.text));
    for (const pointer of ownCitations) expect(linked.has(pointer), pointer).toBe(true);
    const made = (text: string) => dom.citations.find((c) => c.text === text)?.target;
    expect(made(`/dimensions/demand/evidence/${Object.keys(insight.dimensions.demand.evidence)[0]}`)).toBe('evidence');
    expect(made('/dimensions/whitespace/explanation')).toBe('evidence');
    expect(made('/primary_choice/candidates/0')).toBe('primary-choice');
    expect(made('/outlook/horizons/0')).toBe('outlook');
    expect(dom.citations.some((c) => c.text === '/trend_class')).toBe(true);
    expect(dom.unlinked).toEqual(['/not/here: not shown in this report']);
    expect(dom.citations.find((c) => c.text === '/dimensions/whitespace/explanation')?.words).toBe('whitespace explanation');
    expect(dom.citations.filter((c) => POINTER_TEXT.test(c.words ?? ''))).toEqual([]);
    // What it rests on first (a simulated insight says so), then that it is partial.
    expect(dom.notices).toEqual([expect.stringMatching(/^Simulated: /), expect.stringMatching(/^Partial\./)]);
    // Clicking a citation goes to its evidence.
    await page.click('#decision a.cite[href^="#ev/dimensions/demand/evidence/"]');
    expect(await page.evaluate(() => decodeURIComponent(location.hash))).toMatch(/^#ev\/dimensions\/demand\/evidence\//);
    // Folded evidence unfolds when a link lands in it (the browser does it: the page has no script).
    expect(await page.evaluate(() => document.getElementById('ev/dimensions/demand')!.open)).toBe(true);
    await page.close();
  }, 120_000);

  it("shows a plain idea's verdict first, in one window, and is screenshotted for docs/research.md", async () => {
    const page = await browser!.newPage();
    await page.setViewport(WINDOW);
    await page.setExtraHTTPHeaders({ ...bearer(owner.key), accept: 'text/html' });
    const url = `${base}/api/insights/${plain}/report`;
    const { problems, violations } = await openInChromium(page, url);
    expect(problems).toEqual([]);
    expect(violations).toEqual([]);
    const { verdict } = await expectReadable(page);
    // The verdict the page shows is the one the API serves.
    const served = (await get(`/api/insights/${plain}`, {}, owner.key)).json();
    expect(verdict.toLowerCase()).toContain(served.verdict.label);
    expect(verdict).toContain(served.verdict.reason.charAt(0).toUpperCase() + served.verdict.reason.slice(1));
    expect(verdict).toContain(served.verdict.risk);

    const dir = SCREENSHOTS ?? (await mkdtemp(path.join(os.tmpdir(), 'si-report-shots-')));
    try {
      const fold = path.join(dir, 'report-verdict.png');
      await page.screenshot({ path: fold, type: 'png' });
      const full = path.join(dir, 'report-full.png');
      await page.screenshot({ path: full, type: 'png', fullPage: true });
      const top = PNG.sync.read(await readFile(fold));
      expect([top.width, top.height]).toEqual([WINDOW.width, WINDOW.height]);
      const whole = PNG.sync.read(await readFile(full));
      // The whole page is the window's width (nothing to scroll sideways) and longer than one window.
      expect(whole.width).toBe(WINDOW.width);
      expect(whole.height).toBeGreaterThan(WINDOW.height);
    } finally {
      if (!SCREENSHOTS) await rm(dir, { recursive: true, force: true });
    }
    await page.close();
  }, 120_000);

  it("catches a violation when there is one: the same page under the API's own policy has its stylesheet refused", async () => {
    const page = await browser!.newPage();
    const url = `${base}/report-under-the-api-policy`;
    const html = (await get(`/api/insights/${demo}/report`)).body;
    const { problems, violations } = await openInChromium(page, url, { body: html, csp: API_ERROR_HEADERS['content-security-policy']! });
    expect(violations.join('\n')).toMatch(/style-src/);
    expect(problems.join('\n')).toMatch(/Content Security Policy/);
    expect(await page.evaluate(() => getComputedStyle(document.querySelector('table')!).borderCollapse)).toBe('separate');
    await page.close();
  }, 120_000);
});
