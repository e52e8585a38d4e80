// docs/api.md is checked against a started web process: Redocly's recommended
// lint passes on the live /openapi.json; a client generated from it
// (openapi-typescript + openapi-fetch) compiles and runs the page's TypeScript
// examples as written, defaults left out (the webhooks one creates, updates and
// deletes a subscription with no cast); and every curl line of the page, and
// of docs/webhooks.md with a webhooks:write key, answers without an HTTP error.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceProcess } from '../../scripts/lib/service-process.js';
import { createApiKey } from '../../src/api-keys/api-key.repository.js';
import { PROJECT_ROOT } from '../../src/config.js';
import { seedDemo } from '../../src/demo/demo-seed.js';
import type { TestDatabase } from '../support/database.js';
import { until } from '../support/pipeline.js';
import { DEMO_SERIES_DIR } from '../support/shared-data.js';
import { createTestStack, type TestStack } from '../support/stack.js';

const run = promisify(execFile);
const API_DOC = path.join(PROJECT_ROOT, 'docs/api.md');
const WEBHOOKS_DOC = path.join(PROJECT_ROOT, 'docs/webhooks.md');
/** Nothing listens there (no worker runs here): an address the web process is told to allow. */
const RECEIVER_URL = 'http://127.0.0.1:9/hooks';

let database: TestDatabase;
let stack: TestStack;
let web: ServiceProcess;
let base: string;
let key: string;
let hooksKey: string;
let researchKey: string;
let runId: string;
let worker: ServiceProcess;
let insightId: string;
let work: string;

beforeAll(async () => {
  stack = await createTestStack();
  database = stack.database;
  await seedDemo(database.db, DEMO_SERIES_DIR, 6);
  insightId = (await database.db.selectFrom('insights').select('id').executeTakeFirstOrThrow()).id;
  key = (await createApiKey(database.db, 'docs', 'pro')).key;
  hooksKey = (await createApiKey(database.db, 'docs webhooks', 'pro', null, ['insights:read', 'webhooks:write'])).key;
  researchKey = (await createApiKey(database.db, 'docs research', 'pro', null, ['insights:read', 'research:write'])).key;
  const env = {
    ...stack.env,
    TRENDS_PROVIDER: 'synthetic',
    WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32',
    WEBHOOK_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  };
  web = new ServiceProcess('web', { ...env, PORT: '0', OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0' });
  // Research on demand runs on a worker, over generated data (the typed client's example follows a run to its end).
  worker = new ServiceProcess('worker', env);
  base = (await web.ready).url!;
  await worker.ready;
  // A finished run for the event-stream example: its stream ends at once.
  const submitted = await fetch(`${base}/api/research-runs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${researchKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ idea: 'Sourdough starters by mail' }),
  });
  expect(submitted.status).toBe(202);
  runId = ((await submitted.json()) as { data: { id: string } }).data.id;
  await fetch(`${base}/api/research-runs/${runId}`, { method: 'DELETE', headers: { authorization: `Bearer ${researchKey}` } });
  // The comparison example compares two ideas researched for the US: researched here first.
  for (const idea of ['AI meal planner for busy parents', 'Recipe swaps for student flats']) {
    const made = await fetch(`${base}/api/research-runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${researchKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ idea, geo: 'US' }),
    });
    const id = ((await made.json()) as { data: { id: string } }).data.id;
    const status = async () => {
      const res = await fetch(`${base}/api/research-runs/${id}`, { headers: { authorization: `Bearer ${researchKey}` } });
      return ((await res.json()) as { data: { status: string } }).data.status;
    };
    await until(status, (s) => s === 'succeeded', 60_000, `the research of "${idea}"`);
  }
  // Inside the project, so the generated client resolves openapi-fetch and @types/node from its node_modules.
  await mkdir(path.join(PROJECT_ROOT, '.data'), { recursive: true });
  work = await mkdtemp(path.join(PROJECT_ROOT, '.data', 'docs-api-'));
}, 120_000);
afterAll(async () => {
  await worker?.kill('SIGTERM');
  await web?.kill('SIGTERM');
  if (work) await rm(work, { recursive: true, force: true });
  await stack?.close();
});

async function openApiDocument(): Promise<Record<string, unknown>> {
  const res = await fetch(`${base}/openapi.json`);
  const body = await res.text();
  expect(res.status, `${body}\nweb process, last lines:\n${web.tail.slice(-15).join('\n')}`).toBe(200);
  return JSON.parse(body) as Record<string, unknown>;
}

/** The fenced blocks of a language in a Markdown file. */
function blocks(markdown: string, language: string): string[] {
  return [...markdown.matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);
}

describe('the OpenAPI document', () => {
  it("passes Redocly's recommended lint with no error, names its server, licence and version, and every operation", async () => {
    const document = await openApiDocument();
    expect(document.servers).toEqual([{ url: base, description: 'This deployment' }]);
    expect((document.info as { license?: { name?: string } }).license?.name).toBeTruthy();
    expect((document.info as { version?: string }).version).toMatch(/^\d+\.\d+\.\d+$/);
    const operations = Object.values(
      document.paths as Record<string, Record<string, { operationId?: string; summary?: string; responses: Record<string, unknown> }>>,
    ).flatMap((p) => Object.values(p));
    expect(operations.length).toBeGreaterThanOrEqual(13);
    for (const operation of operations) {
      expect(operation.operationId).toMatch(/^[a-z][A-Za-z]+$/);
      expect(operation.summary).toBeTruthy();
      expect(Object.keys(operation.responses).some((c) => c.startsWith('4'))).toBe(true);
      expect(Object.keys(operation.responses).some((c) => c.startsWith('5'))).toBe(true);
    }
    expect(new Set(operations.map((o) => o.operationId)).size).toBe(operations.length);
    // The page documents every route the document has, with each of its methods.
    const page = await readFile(API_DOC, 'utf8');
    for (const [route, methods] of Object.entries(document.paths as Record<string, object>)) {
      for (const method of Object.keys(methods))
        expect(page, `docs/api.md names ${method.toUpperCase()} ${route}`).toContain(`${method.toUpperCase()} ${route}`);
    }

    const file = path.join(work, 'openapi.json');
    await writeFile(file, JSON.stringify(document));
    const lint = await run(
      process.execPath,
      [path.join(PROJECT_ROOT, 'node_modules/@redocly/cli/bin/cli.js'), 'lint', '--extends=recommended', '--format=json', file],
      {
        cwd: work,
        env: { PATH: process.env.PATH ?? '', REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      },
    ).catch((error: { stdout?: string; stderr?: string }) => ({ stdout: error.stdout ?? '', stderr: error.stderr ?? '' }));
    const report = JSON.parse(lint.stdout) as {
      totals: { errors: number; warnings: number };
      problems: Array<{ ruleId: string; severity: string; message: string }>;
    };
    const errors = report.problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId}: ${p.message}`);
    expect(errors).toEqual([]);
    const warnings = report.problems.filter((p) => p.severity === 'warn').map((p) => `${p.ruleId}: ${p.message}`);
    expect(warnings).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 120_000);

  it("generates a typed client that compiles and runs docs/api.md's example as written, defaults left out", async () => {
    const types = astToString(await openapiTS(JSON.stringify(await openApiDocument())));
    await writeFile(path.join(work, 'insights-api.d.ts'), types);
    const [example, hooksExample, researchExample] = blocks(await readFile(API_DOC, 'utf8'), 'ts');
    expect(example).toContain("client.GET('/api/insights', {})");
    const program = `${example}\nconsole.log(JSON.stringify({ listed: data?.data.length ?? null, error: error ?? null, one: one.data?.id ?? null, usagePlan: usage.data?.data.plan ?? null, days: usage.data?.data.days.length ?? null }));\n`;
    await writeFile(path.join(work, 'client.ts'), program);
    expect(hooksExample).toContain("hooks.POST('/api/webhooks'");
    expect(hooksExample).not.toMatch(/\bas [A-Za-z{]/);
    const hooksProgram = `${hooksExample}\nconsole.log(JSON.stringify({ created: created.response.status, secret: created.data?.data.secret?.slice(0, 6) ?? null, updated: updated.response.status, minScore: updated.data?.data.min_score ?? null, enabled: updated.data?.data.enabled ?? null, removed: removed.response.status, gone: (await hooks.GET('/api/webhooks/{id}', { params: { path: { id } } })).response.status }));\n`;
    await writeFile(path.join(work, 'hooks.ts'), hooksProgram);
    expect(researchExample).toContain("api.POST('/api/research-runs'");
    expect(researchExample).not.toMatch(/\bas [A-Za-z{]/);
    const researchProgram = `${researchExample}\nconsole.log(JSON.stringify({ submitted: submitted.response.status, insight: insight?.data?.id ?? null, geo: insight?.data?.geo ?? null, visibility: insight?.data?.visibility ?? null }));\n`;
    await writeFile(path.join(work, 'research.ts'), researchProgram);
    await writeFile(path.join(work, 'package.json'), JSON.stringify({ type: 'module' }));
    await writeFile(
      path.join(work, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          target: 'es2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          outDir: 'out',
          types: ['node'],
          skipLibCheck: true,
        },
        files: ['client.ts', 'hooks.ts', 'research.ts'],
      }),
    );
    // Type-checks against the generated types: a required parameter the API defaults would fail here.
    const compiled = await run(process.execPath, [path.join(PROJECT_ROOT, 'node_modules/typescript/bin/tsc'), '-p', work], {
      cwd: work,
    }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? 'tsc failed', failed: true }));
    expect('failed' in compiled ? compiled.stdout : '').toBe('');
    const out = await run(process.execPath, [path.join(work, 'out/client.js')], {
      cwd: work,
      env: { PATH: process.env.PATH ?? '', INSIGHTS_URL: base, INSIGHTS_KEY: key },
    });
    const result = JSON.parse(out.stdout.trim().split('\n').at(-1)!);
    expect(result).toEqual({ listed: 6, error: null, one: expect.stringMatching(/^ins_/), usagePlan: 'pro', days: 1 });
    const hooksOut = await run(process.execPath, [path.join(work, 'out/hooks.js')], {
      cwd: work,
      env: { PATH: process.env.PATH ?? '', INSIGHTS_URL: base, INSIGHTS_KEY: hooksKey, RECEIVER_URL },
    });
    expect(JSON.parse(hooksOut.stdout.trim().split('\n').at(-1)!)).toEqual({
      created: 201,
      secret: 'whsec_',
      updated: 200,
      minScore: 0.8,
      enabled: false,
      removed: 204,
      gone: 404,
    });
    const researchOut = await run(process.execPath, [path.join(work, 'out/research.js')], {
      cwd: work,
      env: { PATH: process.env.PATH ?? '', INSIGHTS_URL: base, INSIGHTS_KEY: researchKey, IDEA: 'Typed client test idea about harps' },
    });
    expect(JSON.parse(researchOut.stdout.trim().split('\n').at(-1)!)).toEqual({
      submitted: 202,
      insight: expect.stringMatching(/^ins_/),
      geo: 'US',
      visibility: 'private',
    });
  }, 120_000);
});

describe('the curl examples in docs/api.md', () => {
  it('every one answers without an HTTP error', async () => {
    const lines = blocks(await readFile(API_DOC, 'utf8'), 'sh')
      .flatMap((b) => b.split('\n'))
      .map((l) => l.trim())
      .filter((l) => l.startsWith('curl '));
    expect(lines.length).toBeGreaterThanOrEqual(10);
    for (const line of lines) {
      expect(line, 'examples fail on HTTP errors').toContain(' -fsS ');
      const failure = await run('bash', ['--noprofile', '--norc', '-c', line], {
        cwd: work,
        // A key that reads and researches: the page's research examples run too.
        env: { PATH: process.env.PATH ?? '', INSIGHTS_URL: base, INSIGHTS_KEY: researchKey, INSIGHT_ID: insightId, RUN_ID: runId },
      }).then(
        () => null,
        (error: { code?: number; stderr?: string }) => `exit ${error.code}: ${error.stderr}`,
      );
      expect(failure, `${line}\nweb process, last lines:\n${web.tail.slice(-15).join('\n')}`).toBeNull();
    }
    expect((await readFile(path.join(work, 'chart.svg'), 'utf8')).startsWith('<svg')).toBe(true);
  }, 120_000);

  it('and in docs/webhooks.md, in order, with a webhooks:write key', async () => {
    // The subscription the examples show, test, patch, replay and at last delete.
    const created = await fetch(`${base}/api/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${hooksKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: RECEIVER_URL }),
    });
    expect(created.status).toBe(201);
    const subId = ((await created.json()) as { data: { id: string } }).data.id;
    const ping = await fetch(`${base}/api/webhooks/${subId}/test`, { method: 'POST', headers: { authorization: `Bearer ${hooksKey}` } });
    const deliveryId = ((await ping.json()) as { data: { delivery_id: string } }).data.delivery_id;
    const lines = blocks(await readFile(WEBHOOKS_DOC, 'utf8'), 'sh')
      .flatMap((b) => b.split('\n'))
      .map((l) => l.trim())
      .filter((l) => l.startsWith('curl '));
    expect(lines.length).toBeGreaterThanOrEqual(9);
    for (const line of lines) {
      expect(line, 'examples fail on HTTP errors').toContain(' -fsS ');
      const failure = await run('bash', ['--noprofile', '--norc', '-c', line], {
        cwd: work,
        env: {
          PATH: process.env.PATH ?? '',
          INSIGHTS_URL: base,
          INSIGHTS_KEY: hooksKey,
          SUB_ID: subId,
          DELIVERY_ID: deliveryId,
          RECEIVER_URL,
        },
      }).then(
        () => null,
        (error: { code?: number; stderr?: string }) => `exit ${error.code}: ${error.stderr}`,
      );
      expect(failure, `${line}\nweb process, last lines:\n${web.tail.slice(-15).join('\n')}`).toBeNull();
    }
    const gone = await fetch(`${base}/api/webhooks/${subId}`, { headers: { authorization: `Bearer ${hooksKey}` } });
    expect(gone.status, 'the last example deletes the subscription').toBe(404);
  }, 120_000);
});
