// Research on demand, through HTTP only: an account's key submits an idea for
// a market, follows it by polling and by the event stream, receives
// research.completed signed at its receiver, and reads the insight, which no
// other account can see; the allowance, reuse, Idempotency-Key and cancel.
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { Webhook } from 'standardwebhooks';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceProcess } from '../../scripts/lib/service-process.js';
import { loadConfig } from '../../src/config.js';
import type { Pipeline } from '../../src/runtime/workers.js';
import { STREAMS_PER_ACCOUNT } from '../../src/http/routes/api/research-events.js';
import { startTestWorkers } from '../support/services.js';
import { bearer, createTestApp, TEST_RESEARCH, type TestApp, buildTestApp } from '../support/app.js';
import { until } from '../support/pipeline.js';
import { testResources } from '../support/redis.js';

let t: TestApp;
let pipeline: Pipeline;
let base: string;

beforeAll(async () => {
  t = await createTestApp({ cacheTtlSeconds: 60, webhookAllowedCidrs: ['127.0.0.1/32'], research: {} });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  const config = loadConfig({
    REDIS_PREFIX: t.redis.prefix,
    TRENDS_PROVIDER: 'synthetic',
    WEBHOOK_ENCRYPTION_KEY: t.webhookEncryptionKey,
    WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32',
    WEBHOOK_RETRY_SCALE: '0.0002',
  });
  pipeline = await startTestWorkers(testResources(t.database, t.redis), config, pino({ level: 'silent' }));
});
afterAll(async () => {
  await pipeline?.close();
  await t?.close();
});

const api = (key: string, method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown, headers: Record<string, string> = {}) =>
  t.app.inject({
    method,
    url,
    headers: { ...bearer(key), ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });

/** A loopback receiver that keeps what it was sent and whether the signature verified. */
function receiver() {
  const received: Array<{ type: string; data: Record<string, unknown>; verified: boolean }> = [];
  let secret = '';
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      let verified = false;
      try {
        new Webhook(secret).verify(body, req.headers as Record<string, string>);
        verified = true;
      } catch {
        verified = false;
      }
      const parsed = JSON.parse(body) as { type: string; data: Record<string, unknown> };
      received.push({ type: parsed.type, data: parsed.data, verified });
      res.writeHead(200).end();
    });
  });
  return new Promise<{ url: string; received: typeof received; setSecret: (s: string) => void; close: () => void }>((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
        received,
        setSecret: (s) => (secret = s),
        close: () => server.close(),
      }),
    ),
  );
}

/** The run's server-sent events, read over real HTTP until the stream ends. */
async function eventsOf(
  key: string,
  runId: string,
): Promise<Array<{ event: string; data: { status: string; progress: { done: number } } }>> {
  const response = await fetch(`${base}/api/research-runs/${runId}/events`, { headers: bearer(key), signal: AbortSignal.timeout(120_000) });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const text = await response.text();
  return text
    .split('\n\n')
    .filter((block) => block.includes('event: '))
    .map((block) => ({
      event: /event: (\S+)/.exec(block)![1]!,
      data: JSON.parse(/data: (.*)/.exec(block)![1]!) as { status: string; progress: { done: number } },
    }));
}

describe('research on demand', () => {
  it('submits, follows by polling and by events, is told by webhook, and keeps the insight private', async () => {
    const a = await t.researchKey('free');
    const b = await t.researchKey('free');
    const hook = await receiver();
    try {
      const subscribed = await api(a.key, 'POST', '/api/webhooks', { url: hook.url, events: ['research.completed', 'research.failed'] });
      expect(subscribed.statusCode, subscribed.body).toBe(201);
      hook.setSecret(subscribed.json().data.secret);

      const submitted = await api(a.key, 'POST', '/api/research-runs', { idea: 'Tide tables for kayak anglers', geo: 'US' });
      expect(submitted.statusCode, submitted.body).toBe(202);
      const run = submitted.json().data;
      expect(submitted.headers.location).toBe(`/api/research-runs/${run.id}`);
      expect(run).toMatchObject({ geo: 'US', visibility: 'private', progress: { total: 40 } });
      expect(['queued', 'running', 'waiting', 'succeeded']).toContain(run.status);
      const queue = submitted.json().queue;
      expect(queue.basis).toMatch(/synthetic/);
      expect(Date.parse(queue.estimated_finish_at)).toBeGreaterThanOrEqual(Date.parse(queue.estimated_start_at));

      // Another account: no such run, not in its list.
      expect((await api(b.key, 'GET', `/api/research-runs/${run.id}`)).statusCode).toBe(404);
      expect((await api(b.key, 'GET', `/api/research-runs/${run.id}/events`)).statusCode).toBe(404);
      expect((await api(b.key, 'DELETE', `/api/research-runs/${run.id}`)).statusCode).toBe(404);
      expect((await api(b.key, 'GET', '/api/research-runs')).json().data).toEqual([]);

      const events = await eventsOf(a.key, run.id);
      expect(events.at(-1)!.event, JSON.stringify(events.at(-1))).toBe('completed');
      expect(events.filter((e) => e.event === 'progress').length).toBeGreaterThan(0);
      const done = events.map((e) => e.data.progress.done);
      expect(done).toEqual([...done].sort((x, y) => x - y));
      expect(done.at(-1)).toBe(40);

      const polled = await until(
        async () =>
          (await api(a.key, 'GET', `/api/research-runs/${run.id}`)).json().data as {
            status: string;
            progress: unknown;
            insight_id: string;
          },
        (r) => r.status === 'succeeded',
        60_000,
        'the run to succeed',
      );
      expect(polled.progress).toEqual({ done: 40, total: 40, current: null });
      const insightId = polled.insight_id as string;

      const mine = await api(a.key, 'GET', `/api/insights/${insightId}`);
      expect(mine.statusCode).toBe(200);
      expect(mine.json()).toMatchObject({ geo: 'US', visibility: 'private' });
      expect((await api(b.key, 'GET', `/api/insights/${insightId}`)).statusCode).toBe(404);
      expect((await api(b.key, 'GET', `/api/insights/${insightId}/trend-data`)).statusCode).toBe(404);
      expect((await api(b.key, 'GET', `/api/insights/${insightId}/research`)).statusCode).toBe(404);
      const listedForB = (await api(b.key, 'GET', '/api/insights?limit=100&geo=US')).json().data as Array<{ id: string }>;
      expect(listedForB.map((i) => i.id)).not.toContain(insightId);
      const listedForA = (await api(a.key, 'GET', '/api/insights?limit=100&geo=US')).json().data as Array<{ id: string }>;
      expect(listedForA.map((i) => i.id)).toContain(insightId);

      const told = await until(
        async () => hook.received.filter((r) => r.type === 'research.completed'),
        (r) => r.length > 0,
        60_000,
        'research.completed at the receiver',
      );
      expect(told[0]!.verified).toBe(true);
      expect(told[0]!.data).toMatchObject({ run_id: run.id, status: 'succeeded', geo: 'US' });
      expect((told[0]!.data.insight as { id: string }).id).toBe(insightId);

      // The same idea for the same market: that insight, no run, nothing spent; unless refresh.
      const again = await api(a.key, 'POST', '/api/research-runs', { idea: 'tide tables  for Kayak anglers', geo: 'us' });
      expect(again.statusCode, again.body).toBe(200);
      expect(again.json()).toMatchObject({ reused: true, data: { id: insightId } });
      const usage = (await api(a.key, 'GET', '/api/usage')).json().data;
      expect(usage.research).toMatchObject({ limit: 3, used: 1, remaining: 2 });
      // B asking the same idea is not answered with A's private insight.
      const theirs = await api(b.key, 'POST', '/api/research-runs', { idea: 'Tide tables for kayak anglers', geo: 'US' });
      expect(theirs.statusCode, theirs.body).toBe(202);
      await api(b.key, 'DELETE', `/api/research-runs/${theirs.json().data.id}`);
    } finally {
      hook.close();
    }
  }, 180_000);

  it('spends the allowance exactly under 20 concurrent submissions over two web processes, then answers 429 with Retry-After', async () => {
    // Two web processes of their own (as the Procfile runs them) over this file's database and Redis.
    const env = {
      ...t.database.env,
      REDIS_URL: t.redis.url,
      REDIS_PREFIX: t.redis.prefix,
      TRENDS_PROVIDER: 'synthetic',
      PORT: '0',
      OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
      WEBHOOK_ENCRYPTION_KEY: t.webhookEncryptionKey,
    };
    // The embedded Postgres (npm test without DATABASE_URL) has one session: processes of their own
    // would mix their statements on it. There, the second web process is a second app in this one.
    const separate = process.env.DATABASE_URL !== undefined;
    const webs = separate ? [new ServiceProcess('web', env), new ServiceProcess('web', env)] : [];
    const second = separate ? undefined : await createTestApp({ research: {} });
    const secondApp = second
      ? await buildTestApp(
          {
            database: t.database,
            redis: t.redis,
            client: second.redis.redis,
            env: { TRENDS_PROVIDER: 'synthetic' },
            overrides: { researchSettings: { ...TEST_RESEARCH, provider: 'synthetic' } },
          },
          { overloadMaxEventLoopDelayMs: 0 },
        )
      : undefined;
    if (secondApp) await secondApp.listen({ host: '127.0.0.1', port: 0 });
    try {
      const urls = separate
        ? await Promise.all(webs.map(async (w) => (await w.ready).url!))
        : [base, `http://127.0.0.1:${(secondApp!.server.address() as AddressInfo).port}`];
      const a = await t.researchKey('free');
      const answers = await Promise.all(
        Array.from({ length: 20 }, async (_, i) => {
          const res = await fetch(`${urls[i % 2]}/api/research-runs`, {
            method: 'POST',
            headers: { ...bearer(a.key), 'content-type': 'application/json' },
            body: JSON.stringify({ idea: `Concurrent idea number ${i} about otters`, visibility: 'private' }),
          });
          return { status: res.status, headers: res.headers, body: (await res.json()) as { type?: string } };
        }),
      );
      const statuses = answers.map((r) => r.status);
      expect(
        statuses.filter((s) => s !== 202 && s !== 429),
        JSON.stringify(answers.filter((r) => r.status !== 202 && r.status !== 429).map((r) => r.body)) +
          webs
            .flatMap((w) => w.tail.filter((l) => /"level":(40|50)/.test(l)))
            .join('\n')
            .slice(0, 3000),
      ).toEqual([]);
      expect(statuses.filter((s) => s === 202)).toHaveLength(3);
      expect(statuses.filter((s) => s === 429)).toHaveLength(17);
      const refused = answers.find((r) => r.status === 429)!;
      expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(refused.body.type).toBe('/problems/research-allowance-exceeded');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(86_400);
      const runs = await t.database.db.selectFrom('research_runs').select('id').where('account_id', '=', a.accountId).execute();
      expect(runs).toHaveLength(3);
      for (const { id } of runs) await api(a.key, 'DELETE', `/api/research-runs/${id}`);
    } finally {
      await Promise.all(webs.map((w) => w.kill('SIGTERM')));
      await secondApp?.close();
      await second?.close();
    }
  }, 90_000);

  it('makes one run of a retried submission (Idempotency-Key), and refuses the key for another body', async () => {
    const a = await t.researchKey('starter');
    const send = (idea: string) =>
      api(a.key, 'POST', '/api/research-runs', { idea, refresh: true }, { 'idempotency-key': 'retry-me-7f3a' });
    const answers = await Promise.all([send('Seaweed snacks for cats'), send('Seaweed snacks for cats'), send('Seaweed snacks for cats')]);
    expect(answers.map((r) => r.statusCode)).toEqual([202, 202, 202]);
    expect(new Set(answers.map((r) => r.json().data.id)).size).toBe(1);
    expect(answers.filter((r) => r.headers['idempotent-replayed'] === 'true')).toHaveLength(2);
    const other = await send('Seaweed snacks for dogs');
    expect(other.statusCode).toBe(409);
    expect(other.json().type).toBe('/problems/idempotency-key-reused');
    expect((await api(a.key, 'GET', '/api/usage')).json().data.research.used).toBe(1);
    await api(a.key, 'DELETE', `/api/research-runs/${answers[0]!.json().data.id}`);
  });

  it('cancels a queued run for good: no step runs, its run of the allowance comes back, and a finished run is not cancelled', async () => {
    const a = await t.researchKey('free');
    // The research queue paused: the run is queued, no worker has it.
    await pipeline.queues.research.pause();
    let id: string;
    try {
      const submitted = await api(a.key, 'POST', '/api/research-runs', { idea: 'Heated insoles for ice fishing' });
      expect(submitted.statusCode, submitted.body).toBe(202);
      id = submitted.json().data.id as string;
      // Waiting its turn (a first step waits at its run's fair turn: BullMQ's 'prioritized').
      expect(await (await pipeline.queues.research.getJob(`${id}-step-1`))?.getState()).toBe('prioritized');
      expect((await api(a.key, 'GET', '/api/usage')).json().data.research.used).toBe(1);
      const cancelled = await api(a.key, 'DELETE', `/api/research-runs/${id}`);
      expect(cancelled.statusCode, cancelled.body).toBe(200);
      expect(cancelled.json().data).toMatchObject({ status: 'cancelled', progress: { done: 0, current: null } });
      expect(cancelled.json().data.cancelled_at).not.toBeNull();
      // Cancelled before its first step: the allowance's run is given back.
      expect((await api(a.key, 'GET', '/api/usage')).json().data.research.used).toBe(0);
    } finally {
      await pipeline.queues.research.resume();
    }
    // Its first step's job runs now, finds the run cancelled, and does nothing (its job then goes, as a done step's does).
    await until(
      async () => {
        const job = await pipeline.queues.research.getJob(`${id}-step-1`);
        return job === undefined ? 'gone' : await job.getState();
      },
      (state) => state === 'gone' || state === 'completed',
      30_000,
      "the cancelled run's first step job to finish",
    );
    expect(await t.database.db.selectFrom('research_steps').select('step').where('run_id', '=', id).execute()).toEqual([]);
    expect((await api(a.key, 'DELETE', `/api/research-runs/${id}`)).json().type).toBe('/problems/run-not-cancellable');
    const listed = (await api(a.key, 'GET', '/api/research-runs?state=cancelled')).json().data as Array<{ id: string }>;
    expect(listed.map((r) => r.id)).toEqual([id]);
    expect((await api(a.key, 'GET', '/api/research-runs?state=done')).statusCode).toBe(400);
  });

  it('compares researched ideas on one scale, charging the allowance once, and says which idea is not researched yet', async () => {
    const a = await t.researchKey('starter');
    const ideas = ['Mushroom jerky for hikers', 'Solar kettles for campers'];
    for (const idea of ideas) {
      const submitted = await api(a.key, 'POST', '/api/research-runs', { idea });
      expect(submitted.statusCode, submitted.body).toBe(202);
      await until(
        async () => (await api(a.key, 'GET', `/api/research-runs/${submitted.json().data.id}`)).json().data.status as string,
        (status) => status === 'succeeded',
        60_000,
        `the run of "${idea}"`,
      );
    }
    const usedBefore = (await api(a.key, 'GET', '/api/usage')).json().data.research.used as number;
    const compared = await api(a.key, 'POST', '/api/comparisons', { ideas });
    expect(compared.statusCode, compared.body).toBe(200);
    const data = compared.json().data;
    expect(data.status).toBe('done');
    expect(data.ideas.map((i: { idea: string }) => i.idea)).toEqual(ideas);
    expect(data.series.length).toBeGreaterThan(40);
    for (const point of data.series) expect(point.values).toHaveLength(2);
    // One scale: the highest point of any of them is 100.
    expect(Math.max(...data.series.flatMap((p: { values: number[] }) => p.values))).toBe(100);
    for (const idea of data.ideas) expect(Object.keys(idea.dimension_scores)).toHaveLength(8);
    expect((await api(a.key, 'GET', '/api/usage')).json().data.research.used).toBe(usedBefore + 1);
    // Asked again (a client polling): the same answer, not charged again.
    expect((await api(a.key, 'POST', '/api/comparisons', { ideas })).statusCode).toBe(200);
    expect((await api(a.key, 'GET', '/api/usage')).json().data.research.used).toBe(usedBefore + 1);

    const missing = await api(a.key, 'POST', '/api/comparisons', { ideas: [ideas[0], 'Never researched moon cheese'] });
    expect(missing.statusCode).toBe(409);
    expect(missing.json()).toMatchObject({ type: '/problems/not-researched' });
    expect(missing.json().detail).toMatch(/moon cheese/);
    expect((await api(a.key, 'POST', '/api/comparisons', { ideas: [ideas[0]] })).statusCode).toBe(400);
    // Another account cannot compare on this account's private insights.
    const b = await t.researchKey('starter');
    expect((await api(b.key, 'POST', '/api/comparisons', { ideas })).statusCode).toBe(409);
  }, 120_000);

  it(`holds at most ${STREAMS_PER_ACCOUNT} event streams of an account open on a web process, with the security headers`, async () => {
    const a = await t.researchKey('pro');
    await pipeline.queues.research.pause();
    const aborts: AbortController[] = [];
    try {
      const submitted = await api(a.key, 'POST', '/api/research-runs', { idea: 'Stream cap test about kites' });
      const id = submitted.json().data.id as string;
      const open = async () => {
        const controller = new AbortController();
        aborts.push(controller);
        return fetch(`${base}/api/research-runs/${id}/events`, { headers: bearer(a.key), signal: controller.signal });
      };
      // Seven followers of one account at once (an assistant following several ideas, a page watching): all
      // followed (the outside review of 2026-11-28 met the old bound of 5 here).
      const seven = await Promise.all(Array.from({ length: 7 }, open));
      expect(seven.map((r) => r.status)).toEqual(Array.from({ length: 7 }, () => 200));
      expect(seven[0]!.headers.get('x-content-type-options')).toBe('nosniff');
      const rest = await Promise.all(Array.from({ length: STREAMS_PER_ACCOUNT - 7 }, open));
      expect(rest.every((r) => r.status === 200)).toBe(true);
      const past = await open();
      expect(past.status).toBe(429);
      expect(((await past.json()) as { type: string }).type).toBe('/problems/too-many-event-streams');
      // One closed: another may open (the server sees the close and lets its slot go).
      aborts[0]!.abort();
      const again = await until(
        async () => {
          const res = await open();
          if (res.status !== 200) await res.text();
          return res.status;
        },
        (status) => status === 200,
        10_000,
        'a slot freed by the closed stream',
      );
      expect(again).toBe(200);
      await api(a.key, 'DELETE', `/api/research-runs/${id}`);
    } finally {
      for (const controller of aborts) controller.abort();
      await pipeline.queues.research.resume();
    }
  });

  it('holds under what an outside review tried (each of these got through before)', async () => {
    // 20 identical submissions at once: one run, one of the allowance (7 runs were made).
    const a = await t.researchKey('pro');
    await pipeline.queues.research.pause();
    try {
      const same = await Promise.all(
        Array.from({ length: 20 }, () =>
          api(a.key, 'POST', '/api/research-runs', { idea: 'Concurrent twin idea about herons', geo: 'DE' }),
        ),
      );
      expect(same.map((r) => r.statusCode)).toEqual(Array.from({ length: 20 }, () => 202));
      expect(new Set(same.map((r) => r.json().data.id)).size).toBe(1);
      expect((await api(a.key, 'GET', '/api/usage')).json().data.research.used).toBe(1);
      const id = same[0]!.json().data.id as string;
      // Read (and, before, cached), cancelled, read again: cancelled at once (it stayed "queued" for the cache's minute).
      expect((await api(a.key, 'GET', `/api/research-runs/${id}`)).json().data.status).toBe('queued');
      await api(a.key, 'DELETE', `/api/research-runs/${id}`);
      expect((await api(a.key, 'GET', `/api/research-runs/${id}`)).json().data.status).toBe('cancelled');
      // The same body with its fields in another order is the same request for its Idempotency-Key.
      const first = await api(
        a.key,
        'POST',
        '/api/research-runs',
        { idea: 'Ordered fields idea about owls', geo: 'FR' },
        { 'idempotency-key': 'order-1' },
      );
      const reordered = await t.app.inject({
        method: 'POST',
        url: '/api/research-runs',
        headers: { ...bearer(a.key), 'content-type': 'application/json', 'idempotency-key': 'order-1' },
        payload: '{"geo":"FR","idea":"Ordered fields idea about owls"}',
      });
      expect(reordered.statusCode, reordered.body).toBe(202);
      expect(reordered.json().data.id).toBe(first.json().data.id);
      await api(a.key, 'DELETE', `/api/research-runs/${first.json().data.id}`);
    } finally {
      await pipeline.queues.research.resume();
    }

    // What cannot be researched is a 400, not a charged run that fails at step 4; nor a market or language that does not exist.
    for (const body of [
      { idea: 'the and of' },
      { idea: 'x' },
      { idea: 'Pickles', geo: 'ZZ' },
      { idea: 'Pickles', geo: 'EU' },
      { idea: 'Pickles', language: 'xx' },
    ]) {
      const refused = await api(a.key, 'POST', '/api/research-runs', body);
      expect(refused.statusCode, JSON.stringify(body)).toBe(400);
    }
    // Fields of the wrong type are refused, not converted; a body that is not JSON is a 415.
    for (const body of [{ idea: 'Pickles', refresh: 'true' }, { idea: 12345 }, { idea: 'Pickles', refresh: 1 }]) {
      expect((await api(a.key, 'POST', '/api/research-runs', body)).statusCode, JSON.stringify(body)).toBe(400);
    }
    const plain = await t.app.inject({
      method: 'POST',
      url: '/api/research-runs',
      headers: { ...bearer(a.key), 'content-type': 'text/plain' },
      payload: 'Pickles',
    });
    expect(plain.statusCode).toBe(415);
    // A cursor of an impossible date.
    const impossible = Buffer.from(JSON.stringify(['2026-02-30T00:00:00.000Z', 'run_0123456789abcdefghjk'])).toString('base64url');
    expect((await api(a.key, 'GET', `/api/research-runs?cursor=${impossible}`)).statusCode).toBe(400);

    // Streams: a HEAD is answered at once (it hung, holding a slot); clients gone within a millisecond free their slots (they leaked).
    const b = await t.researchKey('pro');
    await pipeline.queues.research.pause();
    try {
      const run = (await api(b.key, 'POST', '/api/research-runs', { idea: 'Stream leak test about terns' })).json().data.id as string;
      const head = await fetch(`${base}/api/research-runs/${run}/events`, {
        method: 'HEAD',
        headers: bearer(b.key),
        signal: AbortSignal.timeout(5_000),
      });
      expect(head.status).toBeGreaterThanOrEqual(400);
      const { port } = new URL(base);
      for (let i = 0; i < 10; i += 1) {
        const socket = net.connect(Number(port), '127.0.0.1', () => {
          socket.write(`GET /api/research-runs/${run}/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${b.key}\r\n\r\n`);
          setTimeout(() => socket.destroy(), 1);
        });
        socket.on('error', () => {});
      }
      const opened: AbortController[] = [];
      try {
        const statuses = await until(
          async () => {
            for (const c of opened.splice(0)) c.abort();
            const answers = await Promise.all(
              Array.from({ length: 5 }, async () => {
                const controller = new AbortController();
                opened.push(controller);
                const res = await fetch(`${base}/api/research-runs/${run}/events`, { headers: bearer(b.key), signal: controller.signal });
                if (res.status !== 200) await res.text();
                return res.status;
              }),
            );
            return answers;
          },
          (answers) => answers.every((status) => status === 200),
          10_000,
          "five streams once the gone clients' slots are free",
        );
        expect(statuses).toEqual([200, 200, 200, 200, 200]);
      } finally {
        for (const c of opened) c.abort();
      }
      await api(b.key, 'DELETE', `/api/research-runs/${run}`);
    } finally {
      await pipeline.queues.research.resume();
    }
  }, 60_000);

  it('binds a key that joined a run under way to it (a retry after the run ended made and charged another), and pages runs of one millisecond', async () => {
    const a = await t.researchKey('pro');
    await pipeline.queues.research.pause();
    let first: string;
    try {
      first = (
        await api(a.key, 'POST', '/api/research-runs', { idea: 'Bamboo toothbrush subscription', geo: 'GB' }, { 'idempotency-key': 'k1' })
      ).json().data.id;
      const joined = await api(
        a.key,
        'POST',
        '/api/research-runs',
        { idea: 'Bamboo toothbrush subscription', geo: 'GB' },
        { 'idempotency-key': 'k2' },
      );
      expect(joined.json().data.id).toBe(first);
      expect(joined.headers['idempotent-replayed']).toBeUndefined();
      await api(a.key, 'DELETE', `/api/research-runs/${first}`);
    } finally {
      await pipeline.queues.research.resume();
    }
    // The run has ended: the retry of k2 answers with it, and spends nothing.
    const used = (await api(a.key, 'GET', '/api/usage')).json().data.research.used as number;
    const retried = await api(
      a.key,
      'POST',
      '/api/research-runs',
      { idea: 'Bamboo toothbrush subscription', geo: 'GB' },
      { 'idempotency-key': 'k2' },
    );
    expect(retried.json().data.id).toBe(first);
    expect(retried.headers['idempotent-replayed']).toBe('true');
    expect((await api(a.key, 'GET', '/api/usage')).json().data.research.used).toBe(used);

    // Runs made in one millisecond: every one is on some page.
    const b = await t.researchKey('pro');
    const now = new Date();
    const ids = Array.from({ length: 6 }, (_, i) => `run_${'0123456789abcdefghj'}${'kmnpqr'[i]}`);
    await t.database.db
      .insertInto('research_runs')
      .values(
        ids.map((id, i) => ({
          id,
          idea: `Same millisecond idea ${i}`,
          idea_key: `same millisecond idea ${i}`,
          keyword_hints: JSON.stringify([]),
          provider: 'synthetic',
          source: 'synthetic' as const,
          started_by: 'api',
          status: 'cancelled' as const,
          account_id: b.accountId,
          geo: '',
          // Microseconds apart, all in one millisecond.
          created_at: sql<Date>`${now.toISOString()}::timestamptz + make_interval(secs => ${i} / 1000000.0)`,
        })),
      )
      .execute();
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = (await api(b.key, 'GET', `/api/research-runs?limit=1${cursor ? `&cursor=${cursor}` : ''}`)).json() as {
        data: Array<{ id: string }>;
        next_cursor: string | null;
      };
      seen.push(...page.data.map((r) => r.id));
      cursor = page.next_cursor;
    } while (cursor && seen.length < 20);
    expect(seen.sort()).toEqual([...ids].sort());
  });

  it('charges a new comparison once even when 20 copies come at once past a spent allowance (15 of 20 got through)', async () => {
    const c = await t.researchKey('free');
    const ideas = ['Tandem kayaks for couples', 'Folding canoes for vans', 'Paddle boards for dogs'];
    for (const idea of ideas) {
      const made = await api(c.key, 'POST', '/api/research-runs', { idea });
      expect(made.statusCode, made.body).toBe(202);
      await until(
        async () => (await api(c.key, 'GET', `/api/research-runs/${made.json().data.id}`)).json().data.status as string,
        (status) => status === 'succeeded',
        60_000,
        `the run of "${idea}"`,
      );
    }
    expect((await api(c.key, 'GET', '/api/usage')).json().data.research.remaining).toBe(0);
    const copies = await Promise.all(
      Array.from({ length: 20 }, () => api(c.key, 'POST', '/api/comparisons', { ideas: ideas.slice(0, 2) })),
    );
    expect(copies.map((r) => r.statusCode)).toEqual(Array.from({ length: 20 }, () => 429));
    expect((await api(c.key, 'GET', '/api/usage')).json().data.research.used).toBe(3);
  }, 120_000);

  it('refuses what cannot be researched with a 400 that says why, and a key without research:write with a 403', async () => {
    const a = await t.researchKey('free');
    const badMarket = await api(a.key, 'POST', '/api/research-runs', { idea: 'Pickles', geo: 'USA' });
    expect(badMarket.statusCode).toBe(400);
    expect(badMarket.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect((await api(a.key, 'POST', '/api/research-runs', { idea: '   ' })).statusCode).toBe(400);
    expect((await api(a.key, 'POST', '/api/research-runs', { idea: 'Pickles', extra: 1 })).statusCode).toBe(400);
    const reader = await t.key('pro');
    const refused = await api(reader, 'POST', '/api/research-runs', { idea: 'Pickles' });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().detail).toMatch(/research:write/);
  });
});
