// The OpenAPI document tells the truth: every operation is called, with good
// requests and bad ones, through Stoplight Prism as a validating proxy in
// front of a started web process (and a worker, so research runs finish).
// Prism checks each answer against the document (status, media type, body,
// headers) and says what broke it in `sl-violations`; no answer may break it,
// and none may be a 5xx.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/lib/free-port.js';
import { ServiceProcess } from '../../scripts/lib/service-process.js';
import { createApiKey } from '../../src/api-keys/api-key.repository.js';
import { PROJECT_ROOT } from '../../src/config.js';
import { seedDemo } from '../../src/demo/demo-seed.js';
import type { TestDatabase } from '../support/database.js';
import { until } from '../support/pipeline.js';
import { DEMO_SERIES_DIR } from '../support/shared-data.js';
import { createTestStack, type TestStack } from '../support/stack.js';

let database: TestDatabase;
let stack: TestStack;
let web: ServiceProcess;
let worker: ServiceProcess;
let prism: ChildProcess | undefined;
let proxy: string;
let base: string;
let work: string;
const prismOutput: string[] = [];

beforeAll(async () => {
  stack = await createTestStack();
  database = stack.database;
  await seedDemo(database.db, DEMO_SERIES_DIR, 6);
  const env = {
    ...stack.env,
    TRENDS_PROVIDER: 'synthetic',
    WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32',
    WEBHOOK_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  };
  web = new ServiceProcess('web', { ...env, PORT: '0', OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0' });
  worker = new ServiceProcess('worker', env);
  base = (await web.ready).url!;
  await worker.ready;
  await mkdir(path.join(PROJECT_ROOT, '.data'), { recursive: true });
  work = await mkdtemp(path.join(PROJECT_ROOT, '.data', 'contract-'));
  const document = await (await fetch(`${base}/openapi.json`)).text();
  await writeFile(path.join(work, 'openapi.json'), document);
  const port = await freePort();
  prism = spawn(
    process.execPath,
    [
      path.join(PROJECT_ROOT, 'node_modules/@stoplight/prism-cli/dist/index.js'),
      'proxy',
      'openapi.json',
      base,
      '--port',
      String(port),
      '--host',
      '127.0.0.1',
      '--errors=false',
    ],
    { cwd: work, stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test' } },
  );
  const listening = new Promise<void>((resolve, reject) => {
    const seen = (chunk: Buffer) => {
      prismOutput.push(chunk.toString());
      if (/listening on/i.test(chunk.toString())) resolve();
    };
    prism!.stdout!.on('data', seen);
    prism!.stderr!.on('data', seen);
    prism!.once('exit', (code) => reject(new Error(`prism exited with ${code}: ${prismOutput.join('').slice(-2000)}`)));
  });
  await listening;
  proxy = `http://127.0.0.1:${port}`;
}, 120_000);
afterAll(async () => {
  prism?.kill('SIGTERM');
  await worker?.kill('SIGTERM');
  await web?.kill('SIGTERM');
  if (work) await rm(work, { recursive: true, force: true });
  await stack?.close();
});

interface Answer {
  method: string;
  url: string;
  status: number;
  body: string;
  /** Prism's findings about the answer (what it found about the request is left out: some requests are bad on purpose). */
  responseViolations: string[];
  /** What it found about the request: none for a request the API takes. */
  requestViolations: string[];
}

const answers: Answer[] = [];

async function call(key: string, method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(`${proxy}${url}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  const violations = JSON.parse(res.headers.get('sl-violations') ?? '[]') as Array<{
    location?: string[];
    code?: string;
    message?: string;
  }>;
  const answer: Answer = {
    method,
    url,
    status: res.status,
    body: text,
    responseViolations: violations
      .filter((v) => v.location?.[0] === 'response')
      .map((v) => `${(v.location ?? []).join('.')}: ${v.code ?? ''} ${v.message ?? ''}`),
    requestViolations: violations
      .filter((v) => v.location?.[0] === 'request')
      .map((v) => `${(v.location ?? []).join('.')}: ${v.code ?? ''} ${v.message ?? ''}`),
  };
  answers.push(answer);
  return answer;
}

describe('the OpenAPI document, through Prism as a validating proxy', () => {
  it('is kept by every answer of every operation, good requests and bad, and none is a 5xx', async () => {
    const reader = (await createApiKey(database.db, 'contract reader', 'pro')).key;
    const all = (await createApiKey(database.db, 'contract all', 'enterprise', null, ['insights:read', 'webhooks:write', 'research:write']))
      .key;
    const free = (await createApiKey(database.db, 'contract free', 'free', null, ['insights:read', 'research:write'])).key;

    // Insights: lists with every filter and sort, pages, bad parameters.
    const list = JSON.parse((await call(reader, 'GET', '/api/insights?limit=3')).body) as {
      data: Array<{ id: string }>;
      next_cursor: string;
    };
    const id = list.data[0]!.id;
    for (const query of [
      '',
      '?limit=100',
      '?sort=newest',
      '?sort=oldest',
      '?sort=momentum',
      '?sort=demand&min_score=0.1',
      '?category=food-drink,ai-ml',
      '?trend_class=seasonal,stable',
      '?source=recorded-series',
      '?q=coffee',
      '?geo=US',
      '?geo=',
      `?cursor=${list.next_cursor}`,
      '?limit=0',
      '?limit=1.5',
      '?limit=1e1',
      '?limit=abc',
      '?sort=best',
      '?min_score=2',
      '?category=nope',
      '?cursor=garbage',
      '?q=',
      '?geo=usa',
      '?unknown=1',
    ])
      await call(reader, 'GET', `/api/insights${query}`);
    for (const suffix of [
      '',
      '/trend-data',
      '/trend-data?window=90d',
      '/trend-data?window=12m',
      '/trend-data?window=2y',
      '/forecast',
      '/research',
      '/chart.svg',
      '/chart.svg?window=90d',
      '/chart.svg?window=1d',
    ]) {
      await call(reader, 'GET', `/api/insights/${id}${suffix}`);
      await call(reader, 'GET', `/api/insights/ins_0123456789abcdefghjk${suffix.split('?')[0]}`);
      await call(reader, 'GET', `/api/insights/not-an-id${suffix.split('?')[0]}`);
    }
    for (const route of [
      '/api/methodology',
      '/api/categories',
      '/api/sources',
      '/api/usage',
      '/api/usage?days=7',
      '/api/usage?days=91',
      '/api/categories?x=1',
    ])
      await call(reader, 'GET', route);
    // Each insight of the page, every view of it (answers differ by insight: forecasts withheld or not, series lengths).
    for (const each of list.data)
      for (const suffix of ['', '/trend-data?window=30d', '/trend-data?window=5y', '/forecast', '/research', '/chart.svg?window=12m'])
        await call(reader, 'GET', `/api/insights/${each.id}${suffix}`);
    // Without a key, with a bad one, with one lacking the scope.
    await call('', 'GET', '/api/insights');
    await call('sik_notakey', 'GET', '/api/insights');
    await call(reader, 'POST', '/api/research-runs', { idea: 'Scope refused' });
    await call(reader, 'GET', '/api/webhooks');

    // Research on demand: submit, reuse, list, read, events, cancel, refusals.
    const submitted = await call(
      all,
      'POST',
      '/api/research-runs',
      { idea: 'Contract test idea about violins', geo: 'US' },
      { 'idempotency-key': 'contract-1' },
    );
    expect(submitted.status, submitted.body).toBe(202);
    const runId = (JSON.parse(submitted.body) as { data: { id: string } }).data.id;
    await call(
      all,
      'POST',
      '/api/research-runs',
      { idea: 'Contract test idea about violins', geo: 'US' },
      { 'idempotency-key': 'contract-1' },
    );
    await call(all, 'POST', '/api/research-runs', { idea: 'Another body' }, { 'idempotency-key': 'contract-1' });
    await until(
      async () => JSON.parse((await call(all, 'GET', `/api/research-runs/${runId}`)).body) as { data: { status: string } },
      (r) => r.data.status === 'succeeded',
      90_000,
      'the contract run to succeed',
    );
    await call(all, 'GET', `/api/research-runs/${runId}/events`);
    // Comparisons: a second idea researched for the market, then side by side; and refusals.
    const cellos = await call(all, 'POST', '/api/research-runs', { idea: 'Rental cellos for adult beginners', geo: 'US' });
    const cellosId = (JSON.parse(cellos.body) as { data: { id: string } }).data.id;
    await until(
      async () => JSON.parse((await call(all, 'GET', `/api/research-runs/${cellosId}`)).body) as { data: { status: string } },
      (r) => r.data.status === 'succeeded',
      90_000,
      'the second contract run to succeed',
    );
    const compared = await call(all, 'POST', '/api/comparisons', {
      ideas: ['Contract test idea about violins', 'Rental cellos for adult beginners'],
      geo: 'US',
    });
    expect(compared.status, compared.body).toBe(200);
    await call(all, 'POST', '/api/comparisons', { ideas: ['Contract test idea about violins', 'Never researched'], geo: 'US' });
    await call(all, 'POST', '/api/comparisons', { ideas: ['Only one'] });
    await call(all, 'POST', '/api/comparisons', { ideas: ['a', 'b'], geo: 'USA' });
    await call(reader, 'POST', '/api/comparisons', { ideas: ['a', 'b'] });
    await call(all, 'POST', '/api/research-runs', { idea: 'contract test idea about violins', geo: 'US' });
    const second = await call(all, 'POST', '/api/research-runs', {
      idea: 'Contract test idea to cancel',
      visibility: 'public',
      language: 'de',
    });
    const secondId = (JSON.parse(second.body) as { data: { id: string } }).data.id;
    await call(all, 'DELETE', `/api/research-runs/${secondId}`);
    await call(all, 'DELETE', `/api/research-runs/${secondId}`);
    for (const query of ['', '?limit=1', '?state=succeeded,cancelled', '?state=nope', '?cursor=bad', '?limit=1.5'])
      await call(all, 'GET', `/api/research-runs${query}`);
    for (const bad of [{}, { idea: '' }, { idea: 'x', geo: 'USA' }, { idea: 'x', visibility: 'secret' }, { idea: 'x', extra: true }])
      await call(all, 'POST', '/api/research-runs', bad);
    await call(all, 'GET', '/api/research-runs/run_0123456789abcdefghjk');
    await call(all, 'GET', '/api/research-runs/run_0123456789abcdefghjk/events');
    await call(all, 'DELETE', '/api/research-runs/not-a-run');
    for (let i = 0; i < 4; i += 1) await call(free, 'POST', '/api/research-runs', { idea: `Free contract idea ${i} about lutes` });

    // Not JSON at all: straight to the web process (Prism, given a body it cannot parse, answers nothing).
    const notJson = await fetch(`${base}/api/research-runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${all}`, 'content-type': 'application/json' },
      body: '{not json',
    });
    expect(notJson.status).toBe(400);
    expect(notJson.headers.get('content-type')).toMatch(/^application\/problem\+json/);

    // Webhooks: the whole life of a subscription, and refusals.
    const created = await call(
      all,
      'POST',
      '/api/webhooks',
      { url: 'http://127.0.0.1:9/hooks', keywords: ['violins'], events: ['insight.created', 'research.completed'] },
      { 'idempotency-key': 'contract-hook' },
    );
    expect(created.status, created.body).toBe(201);
    const subId = (JSON.parse(created.body) as { data: { id: string } }).data.id;
    await call(
      all,
      'POST',
      '/api/webhooks',
      { url: 'http://127.0.0.1:9/hooks', keywords: ['violins'], events: ['insight.created', 'research.completed'] },
      { 'idempotency-key': 'contract-hook' },
    );
    const shown = await fetch(`${proxy}/api/webhooks/${subId}`, { headers: { authorization: `Bearer ${all}` } });
    await shown.text();
    const etag = shown.headers.get('etag') ?? '"none"';
    await call(all, 'GET', '/api/webhooks');
    await call(all, 'GET', `/api/webhooks/${subId}`);
    await call(all, 'PATCH', `/api/webhooks/${subId}`, { min_score: 0.5 }, { 'if-match': etag });
    await call(all, 'PATCH', `/api/webhooks/${subId}`, { min_score: 0.6 }, { 'if-match': '"stale"' });
    await call(all, 'PATCH', `/api/webhooks/${subId}`, { min_score: 7 });
    expect((await call(all, 'POST', `/api/webhooks/${subId}/test`)).requestViolations).toEqual([]);
    await call(all, 'POST', `/api/webhooks/${subId}/test`, {});
    const deliveries = JSON.parse((await call(all, 'GET', `/api/webhooks/${subId}/deliveries?limit=5`)).body) as {
      data: Array<{ id: string }>;
    };
    for (const query of ['?limit=1.5', '?limit=1e1', '?cursor=bad', '?foo=1'])
      await call(all, 'GET', `/api/webhooks/${subId}/deliveries${query}`);
    expect(deliveries.data.length).toBeGreaterThan(0);
    // Bodiless, as the API takes them: the document must not call for a body.
    expect((await call(all, 'POST', `/api/webhooks/${subId}/deliveries/${deliveries.data[0]!.id}/replay`)).requestViolations).toEqual([]);
    await call(all, 'POST', `/api/webhooks/${subId}/deliveries/dlv_0123456789abcdefghjk/replay`);
    await call(all, 'POST', `/api/webhooks/${subId}/replay`, { since: new Date(Date.now() - 3_600_000).toISOString() });
    await call(all, 'POST', `/api/webhooks/${subId}/replay`, { since: 'yesterday' });
    expect((await call(all, 'POST', `/api/webhooks/${subId}/rotate`)).requestViolations).toEqual([]);
    await call(all, 'POST', '/api/webhooks', { url: 'ftp://nowhere' });
    await call(all, 'POST', '/api/webhooks', { url: 'http://127.0.0.1:9/x', min_score: 'high' });
    await call(all, 'GET', '/api/webhooks?foo=1');
    await call(all, 'GET', '/api/webhooks/sub_0123456789abcdefghjk');
    await call(all, 'DELETE', `/api/webhooks/${subId}`);
    await call(all, 'DELETE', `/api/webhooks/${subId}`);

    // Over the quota: a Free key's 101st request, and /api/usage still answering.
    const spent = (await createApiKey(database.db, 'contract spent', 'free')).key;
    for (let i = 0; i < 101; i += 1) await call(spent, 'GET', '/api/categories');
    await call(spent, 'GET', '/api/usage');

    const operations = new Set(
      answers.map(
        (a) =>
          `${a.method} ${a.url
            .split('?')[0]!
            .replace(/\/(ins|run|sub|dlv)_[0-9a-z]{20}/g, '/{id}')
            .replace(/\/not-an?-\w+/g, '/{id}')}`,
      ),
    );
    const broken = answers
      .filter((a) => a.responseViolations.length > 0)
      .map((a) => `${a.method} ${a.url} → ${a.status}: ${a.responseViolations.join('; ')}`);
    const serverErrors = answers.filter((a) => a.status >= 500).map((a) => `${a.method} ${a.url} → ${a.status} ${a.body.slice(0, 200)}`);
    console.log(
      `${answers.length} answers through Prism over ${operations.size} method-and-path shapes; ${broken.length} broke the document, ${serverErrors.length} were 5xx`,
    );
    expect(broken).toEqual([]);
    expect(serverErrors).toEqual([]);
    expect(answers.length).toBeGreaterThan(200);
  }, 240_000);
});
