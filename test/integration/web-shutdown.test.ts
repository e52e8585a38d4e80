// SIGTERM to the real `web` process: in-flight requests finish, it exits 0;
// a second signal forces exit.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/api-keys/api-key.repository.js';
import { PROJECT_ROOT } from '../../src/config.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { createTestRedis, type TestRedis } from '../support/redis.js';

let database: TestDatabase;
let redis: TestRedis;
beforeAll(async () => {
  database = await createTestDatabase();
  redis = await createTestRedis();
});
afterAll(async () => {
  await redis.destroy();
  await database.destroy();
});

function startWeb(port: number) {
  const child = spawn(process.execPath, [path.join(PROJECT_ROOT, 'dist/src/web.js')], {
    env: { PATH: process.env.PATH ?? '', ...database.env, REDIS_URL: redis.url, REDIS_PREFIX: redis.prefix, PORT: String(port), LOG_LEVEL: 'warn', SHUTDOWN_DRAIN_MS: '1000' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr?.on('data', () => {});
  return child;
}

async function waitUp(base: string) {
  for (let i = 0; i < 100; i += 1) {
    try {
      if ((await fetch(`${base}/healthz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('web did not start');
}

describe('web process shutdown', () => {
  it('drains on SIGTERM: unready, requests already sent are answered, then it exits 0', async () => {
    const port = 30_000 + Math.floor(Math.random() * 20_000);
    const base = `http://127.0.0.1:${port}`;
    const { key } = await createApiKey(database.db, 'shutdown', 'enterprise');
    const web = startWeb(port);
    await waitUp(base);
    const exited = new Promise<number | null>((r) => web.once('exit', (code) => r(code)));
    const call = (url: string, headers: Record<string, string> = {}) =>
      fetch(url, { headers, signal: AbortSignal.timeout(10_000) }).then((r) => r.status, (e: Error) => `error: ${e.name}`);
    const inflight = Array.from({ length: 100 }, () => call(`${base}/api/insights?limit=5`, { authorization: `Bearer ${key}` }));
    await new Promise((r) => setTimeout(r, 5));
    web.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 200));
    expect(await call(`${base}/readyz`)).toBe(503); // draining: the load balancer stops sending traffic
    const statuses = await Promise.all(inflight);
    expect(statuses).toEqual(Array(100).fill(200)); // everything sent before the signal is answered
    expect(await exited).toBe(0);
    expect(await call(`${base}/healthz`)).toMatch(/^error/); // and then it is gone
  }, 30_000);

  it('exits at once on a second signal', async () => {
    const port = 30_000 + Math.floor(Math.random() * 20_000);
    const web = startWeb(port);
    await waitUp(`http://127.0.0.1:${port}`);
    const started = Date.now();
    web.kill('SIGTERM');
    // Two signals sent back to back can merge into one (Linux does not queue a pending
    // standard signal): send the second once the first is being handled, mid-drain.
    await new Promise((r) => setTimeout(r, 300));
    web.kill('SIGTERM');
    const code = await new Promise<number | null>((r) => web.once('exit', (c) => r(c)));
    // The graceful path takes at least SHUTDOWN_DRAIN_MS; only the forced exit says 130.
    expect(code).toBe(130);
    expect(Date.now() - started).toBeLessThan(1_000); // did not wait out the 1 s drain
  }, 30_000);
});
