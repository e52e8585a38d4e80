// SIGTERM to the real `web` process: in-flight requests finish, it exits 0;
// a second signal forces exit. Every wait is on an event (the ready line, a
// request written, readiness turning 503, the exit), never on a clock.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/api-keys/api-key.repository.js';
import { ServiceProcess } from '../../scripts/lib/service-process.js';
import type { TestDatabase } from '../support/database.js';
import { until } from '../support/pipeline.js';
import { createTestStack, type TestStack } from '../support/stack.js';

let database: TestDatabase;
let stack: TestStack;
beforeAll(async () => {
  stack = await createTestStack();
  database = stack.database;
});
afterAll(() => stack?.close());

function startWeb(drainMs: number) {
  return new ServiceProcess('web', {
    ...stack.env,
    PORT: '0',
    SHUTDOWN_DRAIN_MS: String(drainMs),
    // What is tested is the drain, not load shedding: a busy CI machine must not turn these into 503s.
    OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
  });
}

/** A GET whose promise `sent` resolves once the request is written to an open connection. */
function get(url: string, headers: Record<string, string> = {}): { sent: Promise<void>; status: Promise<number | string> } {
  let markSent!: () => void;
  const sent = new Promise<void>((r) => (markSent = r));
  const status = new Promise<number | string>((resolve) => {
    const req = http.get(url, { headers, agent: false, timeout: 60_000 }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode ?? 0));
    });
    req.once('finish', markSent);
    req.once('timeout', () => req.destroy(new Error('timeout')));
    req.once('error', (e) => {
      markSent();
      resolve(`error: ${e.message}`);
    });
  });
  return { sent, status };
}

describe('web process shutdown', () => {
  it('drains on SIGTERM: unready, requests already sent are answered, then it exits 0', async () => {
    const { key } = await createApiKey(database.db, 'shutdown', 'enterprise');
    // A drain long enough for a loaded machine to take up every connection already made.
    const web = startWeb(3_000);
    const { url } = await web.ready;
    const inflight = Array.from({ length: 100 }, () => get(`${url}/api/insights?limit=5`, { authorization: `Bearer ${key}` }));
    await Promise.all(inflight.map((r) => r.sent));
    web.child.kill('SIGTERM');
    // Draining: the load balancer sees unready and stops sending traffic.
    await until(
      () => get(`${url}/readyz`).status,
      (s) => s === 503,
      60_000,
      '/readyz to answer 503 while draining',
    );
    expect(await Promise.all(inflight.map((r) => r.status))).toEqual(Array(100).fill(200)); // everything sent before the signal is answered
    expect((await web.exited).code).toBe(0);
    expect(await get(`${url}/healthz`).status).toMatch(/^error/); // and then it is gone
  }, 120_000);

  it('exits at once on a second signal', async () => {
    // The graceful path would take the whole 60 s drain; only the forced exit is quick and says 130.
    const web = startWeb(60_000);
    await web.ready;
    const handling = web.waitForLine('shutting down gracefully');
    const started = Date.now();
    web.child.kill('SIGTERM');
    // Two signals sent back to back can merge into one (Linux does not queue a pending
    // standard signal): send the second once the first is being handled, mid-drain.
    await handling;
    web.child.kill('SIGTERM');
    expect((await web.exited).code).toBe(130);
    expect(Date.now() - started).toBeLessThan(30_000); // did not wait out the 60 s drain
  }, 120_000);
});
