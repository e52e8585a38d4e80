// Security headers on every answer, and the two pages people open in a browser
// (the docs and the queue dashboard) still working under their Content Security
// Policy: checked in headless Chromium (Debian's chromium; .ci/run installs it),
// which also shows that another site can no longer frame them. Before, there
// were no security headers at all: the dashboard, with its obliterate, empty
// and clean buttons and a remembered Basic login, could be framed by any site.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Queue } from 'bullmq';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../support/app.js';
import { QUEUES } from '../../src/queue/queue-names.js';
import { createRedis, type Redis } from '../../src/redis/connection.js';
import type { TestDatabase } from '../support/database.js';
import type { TestRedis } from '../support/redis.js';
import { CHROMIUM, CHROMIUM_FLAGS } from '../support/chromium.js';
import { createTestStack, type TestStack } from '../support/stack.js';

const TOKEN = 'security-headers-admin-token-0123456789';

let database: TestDatabase;
let redis: TestRedis;
let stack: TestStack;
let connection: Redis;
let queues: Queue[];
let app: FastifyInstance;
let base: string;

beforeAll(async () => {
  stack = await createTestStack();
  ({ database, redis } = stack);
  connection = createRedis(redis.url, 'worker');
  queues = Object.values(QUEUES).map((name) => new Queue(name, { connection, prefix: redis.keys.queuePrefix(name) }));
  // Something for the dashboard to show.
  await queues[0]!.add('shown-in-the-dashboard', { n: 1 });
  // The dashboard shows the services' own queues: these, by name and prefix.
  app = await buildTestApp({ database, redis }, { adminToken: TOKEN, overloadMaxEventLoopDelayMs: 0 });
  await app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await app?.close();
  for (const queue of queues ?? []) await queue.close();
  connection?.disconnect();
  await stack?.close();
});

const basic = { authorization: `Basic ${Buffer.from(`ops:${TOKEN}`).toString('base64')}` };

const csp = (header: unknown) =>
  new Map(
    String(header)
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0])
      .map(([name, ...values]) => [name!, values]),
  );

describe('security headers', () => {
  it.each([
    ['an API answer', '/api/insights', {}],
    ['the OpenAPI document', '/openapi.json', {}],
    ['health', '/healthz', {}],
    ['a 404', '/nowhere', {}],
    ['a 405', '/openapi.json', { method: 'DELETE' }],
    ['a webhook write', '/api/webhooks', { method: 'POST' }],
    ['a webhook update', '/api/webhooks/sub_x', { method: 'PATCH' }],
    ['the metrics', '/metrics', basic],
  ] as const)('%s: nosniff, no framing, a policy that loads and runs nothing', async (_, url, extra) => {
    const { method, ...headers } = { method: 'GET', ...extra } as { method: string } & Record<string, string>;
    const res = await app.inject({ url, method: method as 'GET', headers });
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-frame-options']).toBe('DENY');
    const policy = csp(res.headers['content-security-policy']);
    expect(policy.get('default-src')).toEqual(["'none'"]);
    expect(policy.get('frame-ancestors')).toEqual(["'none'"]);
    expect(res.headers['referrer-policy']).toBe('no-referrer');
  });

  it.each([
    ['the docs page', '/docs', {}],
    ['a docs asset', '/docs/static/swagger-ui-bundle.js', {}],
    ['the queue dashboard', '/admin/queues', basic],
    ['the dashboard refusing a visitor', '/admin/queues', {}],
    ["the dashboard's API", '/admin/queues/api/queues', basic],
  ] as const)('%s: its own scripts and styles only, and never in a frame', async (_, url, headers) => {
    const res = await app.inject({ url, headers });
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-frame-options']).toBe('DENY');
    const policy = csp(res.headers['content-security-policy']);
    expect(policy.get('frame-ancestors')).toEqual(["'none'"]);
    expect(policy.get('script-src')).toEqual(["'self'"]);
    expect(policy.get('object-src')).toEqual(["'none'"]);
  });
});

/** Runs headless Chromium on a URL: the DOM after its scripts ran, and what its console said. */
function chromium(url: string): Promise<{ dom: string; log: string }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'si-csp-'));
  const args = [
    '--headless',
    ...CHROMIUM_FLAGS,
    '--enable-logging=stderr',
    '--v=0',
    `--user-data-dir=${path.join(dir, 'profile')}`,
    // Lets the pages' scripts run (and fetch what they fetch) before the DOM is taken.
    '--virtual-time-budget=20000',
    '--dump-dom',
    url,
  ];
  return new Promise((resolve, reject) => {
    execFile(CHROMIUM!, args, { timeout: 90_000, maxBuffer: 32 * 1024 * 1024 }, (error, stdout, stderr) => {
      rmSync(dir, { recursive: true, force: true });
      if (error && !stdout) return reject(new Error(`chromium failed: ${error.message}\n${stderr}`));
      resolve({ dom: stdout, log: stderr });
    });
  });
}

/** What the console said about the Content Security Policy. */
const violations = (log: string) => log.split('\n').filter((line) => /Content Security Policy|Refused to/i.test(line));

describe.skipIf(!CHROMIUM && process.env.CI !== 'true')('the pages under their policies, in headless Chromium', () => {
  it('the docs page renders the API, with no policy violation', async () => {
    expect(CHROMIUM, 'chromium is not installed (apt-get install chromium)').toBeDefined();
    const { dom, log } = await chromium(`${base}/docs/`);
    expect(violations(log), log).toEqual([]);
    expect(dom).toContain('Startup Insights API');
    expect(dom).toMatch(/opblock-tag/); // the operations, grouped by tag
    expect(dom).toContain('listInsights');
  }, 120_000);

  it('the queue dashboard renders its queues, with no policy violation', async () => {
    const { dom, log } = await chromium(`${base.replace('http://', `http://ops:${TOKEN}@`)}/admin/queues/`);
    expect(violations(log), log).toEqual([]);
    expect(dom).toContain(QUEUES.research);
    expect(dom).not.toMatch(/>\s*Loading\s*</);
  }, 120_000);

  it.each(['/admin/queues/', '/docs/'])(
    'another site cannot frame %s',
    async (page) => {
      // An origin of its own (another host name and port): a page that frames ours.
      const framer = http.createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        // Without credentials (a browser refuses them in a frame's URL); the dashboard's policy is the same with or without a login.
        res.end(`<!doctype html><title>framer</title><iframe src="${base}${page}"></iframe>`);
      });
      await new Promise<void>((resolve) => framer.listen(0, '127.0.0.1', resolve));
      try {
        const { log } = await chromium(`http://localhost:${(framer.address() as AddressInfo).port}/`);
        expect(log, log).toMatch(
          /Framing '[^']*' violates the following Content Security Policy directive: "frame-ancestors 'none'"\. The request has been blocked/,
        );
      } finally {
        framer.closeAllConnections();
        await new Promise((r) => framer.close(r));
      }
    },
    120_000,
  );
});
