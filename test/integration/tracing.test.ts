// Issue 52's traces, end to end: with OTEL_EXPORTER_OTLP_ENDPOINT pointing at a
// loopback OTLP/HTTP receiver (a node http server decoding the exporter's JSON),
// one research run submitted through the API is one trace: the submission span
// recorded in the run's record, its 40 step spans as children, the webhook
// delivery it causes in the same trace (also when the sweeper makes its job again);
// a trends job (shared between runs) is a trace of its own, linked to the request
// that made it, and every run it answers links to it. The run's API record and its
// step jobs' log lines carry the trace id. No attribute anywhere holds a planted
// key, cookie, password, token or webhook secret.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { context, trace } from '@opentelemetry/api';
import { Queue, QueueEvents, Worker, type Job } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepProcessor } from '../../jobs/sweep.job.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { inSpan, startTracing, type Tracing } from '../../src/observability/tracing.js';
import { enqueue, jobIdOf } from '../../src/queue/enqueue.js';
import { deliveryPayload, JOB } from '../../src/queue/job-catalogue.js';
import { QUEUES } from '../../src/queue/queue-names.js';
import { QueuedTrendsGateway } from '../../src/research/queued-gateway.js';
import { traceJobs, type Pipeline } from '../../src/runtime/workers.js';
import type { TrendsResponse } from '../../src/domain/trends/answers.js';
import { bearer, createTestApp, type TestApp } from '../support/app.js';
import { until } from '../support/pipeline.js';
import { testResources } from '../support/redis.js';
import { startTestWorkers } from '../support/services.js';

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
  arrayValue?: { values: OtlpValue[] };
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: OtlpAttribute[];
  links?: Array<{ traceId: string; spanId: string; attributes?: OtlpAttribute[] }>;
  events?: Array<{ name: string; attributes?: OtlpAttribute[] }>;
}
interface Received {
  spans: OtlpSpan[];
  /** Every attribute value the receiver got (spans, links, events, resources), as text. */
  values: string[];
  arrived: http.Server;
}

/** A loopback OTLP/HTTP receiver: POST /v1/traces with the exporter's JSON body. */
async function otlpReceiver(): Promise<Received & { url: string }> {
  const received: Received = { spans: [], values: [], arrived: undefined as never };
  const valueText = (v: OtlpValue): string[] =>
    v.arrayValue ? v.arrayValue.values.flatMap(valueText) : [String(v.stringValue ?? v.intValue ?? v.boolValue ?? v.doubleValue ?? '')];
  const keep = (attributes: OtlpAttribute[] | undefined) => {
    for (const a of attributes ?? []) received.values.push(`${a.key}=${valueText(a.value).join(',')}`);
  };
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      expect(req.url).toBe('/v1/traces');
      expect(req.headers['content-type']).toMatch(/json/);
      const parsed = JSON.parse(body) as {
        resourceSpans: Array<{ resource?: { attributes?: OtlpAttribute[] }; scopeSpans: Array<{ spans: OtlpSpan[] }> }>;
      };
      for (const resourceSpans of parsed.resourceSpans) {
        keep(resourceSpans.resource?.attributes);
        for (const scope of resourceSpans.scopeSpans)
          for (const span of scope.spans) {
            received.spans.push(span);
            received.values.push(span.name);
            keep(span.attributes);
            for (const link of span.links ?? []) keep(link.attributes);
            for (const event of span.events ?? []) keep(event.attributes);
          }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  received.arrived = server;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(received, { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
}

/** A loopback webhook receiver answering 200. */
async function hookReceiver(): Promise<{ url: string; types: string[]; close(): void }> {
  const types: string[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      types.push((JSON.parse(body) as { type: string }).type);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, types, close: () => server.close() };
}

const attribute = (span: OtlpSpan, key: string) => {
  const value = span.attributes?.find((a) => a.key === key)?.value;
  return value?.stringValue ?? (value?.intValue === undefined ? undefined : Number(value.intValue));
};

const DELIVER = `${QUEUES.webhooks} ${JOB.webhookDeliver.name}`;

// Planted: nothing of these may reach a span.
const COOKIE = 'session=planted-cookie-7f3a9c';
const QUERY_TOKEN = 'planted-query-token-51be0d';
const PASSWORD = 'planted-password-c0ffee42';

/** The workers' log lines (a traced logger at debug), parsed. */
const logLines: Array<Record<string, unknown>> = [];
const logStream = new Writable({
  write(chunk: Buffer, _encoding, done) {
    for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) logLines.push(JSON.parse(line) as Record<string, unknown>);
    done();
  },
});

let receiver: Awaited<ReturnType<typeof otlpReceiver>>;
let tracing: Tracing;
let t: TestApp;
let pipeline: Pipeline;

beforeAll(async () => {
  receiver = await otlpReceiver();
  const env = {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_SERVICE_NAME: 'insights-test',
    TRENDS_PROVIDER: 'synthetic',
    WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32',
    DATAFORSEO_PASSWORD: PASSWORD,
  };
  tracing = await startTracing(loadConfig(env).tracing);
  expect(tracing.enabled).toBe(true);
  // Tracing starts before the app is built, as in a process: @fastify/otel is registered then.
  t = await createTestApp({ webhookAllowedCidrs: ['127.0.0.1/32'], research: {} });
  const config = loadConfig({ ...env, REDIS_PREFIX: t.redis.prefix, WEBHOOK_ENCRYPTION_KEY: t.webhookEncryptionKey });
  pipeline = await startTestWorkers(testResources(t.database, t.redis), config, createLogger('debug', logStream, { traced: true }));
});
afterAll(async () => {
  await pipeline?.close();
  await t?.close();
  await tracing?.shutdown();
  receiver?.arrived.close();
});

describe('traces of a research run (OTLP/HTTP on loopback)', () => {
  it('one run is one trace: the submission, 40 step spans as its children, its webhook delivery; no secret in any attribute', async () => {
    const { key } = await t.researchKey('free');
    const hook = await hookReceiver();
    try {
      const api = (method: 'GET' | 'POST', url: string, body?: unknown) =>
        t.app.inject({
          method,
          url,
          headers: { ...bearer(key), cookie: COOKIE, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
        });
      const subscribed = await api('POST', '/api/webhooks', { url: hook.url, events: ['research.completed'] });
      expect(subscribed.statusCode, subscribed.body).toBe(201);
      const webhookSecret = subscribed.json().data.secret as string;

      const submitted = await api('POST', '/api/research-runs', { idea: 'Tide tables for kayak anglers', geo: 'US' });
      expect(submitted.statusCode, submitted.body).toBe(202);
      const runId = submitted.json().data.id as string;
      const submittedTraceId = submitted.json().data.trace_id as string;
      // A token in a query string (an API client's mistake, refused as an unknown parameter) is not kept either.
      expect((await api('GET', `/api/research-runs/${runId}?token=${QUERY_TOKEN}`)).statusCode).toBe(400);

      await until(
        async () => hook.types,
        (types) => types.includes('research.completed'),
        120_000,
        'research.completed at the receiver',
      );
      const row = await t.database.db.selectFrom('research_runs').select('trace_id').where('id', '=', runId).executeTakeFirstOrThrow();
      const traceId = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(row.trace_id ?? '');
      expect(traceId, `research_runs.trace_id is a traceparent (${row.trace_id})`).not.toBeNull();
      // The run's API record shows the trace id, from the submission's answer on.
      expect(submittedTraceId).toBe(traceId![1]);
      const report = await api('GET', `/api/research-runs/${runId}`);
      expect(report.statusCode, report.body).toBe(200);
      expect(report.json().data.trace_id).toBe(traceId![1]);
      const listed = await api('GET', '/api/research-runs');
      expect(listed.json().data.find((r: { id: string }) => r.id === runId).trace_id).toBe(traceId![1]);

      // The delivery's span ends after the receiver answered: wait for it, flushing what has ended.
      const inTrace = () => receiver.spans.filter((s) => s.traceId === traceId![1]);
      await until(
        async () => {
          await tracing.flush();
          return inTrace();
        },
        (spans) => spans.some((s) => s.name === DELIVER),
        60_000,
        'the webhook delivery span',
      );
      const spans = inTrace();
      const root = spans.find((s) => s.name === 'research.submit')!;
      expect(root, 'the submission span').toBeDefined();
      expect(root.parentSpanId ?? '').toBe('');
      expect(root.spanId).toBe(traceId![2]);
      expect(attribute(root, 'research.run_id')).toBe(runId);
      expect(attribute(root, 'research.outcome')).toBe('new_run');

      const steps = spans.filter((s) => attribute(s, 'research.step.name') !== undefined);
      expect(steps.every((s) => s.parentSpanId === root.spanId)).toBe(true);
      expect(new Set(steps.map((s) => attribute(s, 'research.step.name'))).size).toBe(40);
      expect(new Set(steps.map((s) => attribute(s, 'research.step.position')))).toEqual(
        new Set(Array.from({ length: 40 }, (_, i) => i + 1)),
      );
      expect(steps.filter((s) => attribute(s, 'research.step.outcome') === 'done').length).toBeGreaterThanOrEqual(40);

      // The delivery it caused: its match job and delivery job in the run's trace, the POST a host-only client span under it.
      const deliver = spans.find((s) => s.name === DELIVER)!;
      const matches = spans.filter((s) => s.name === `${QUEUES.webhooks} ${JOB.webhookMatch.name}`);
      expect(matches.every((m) => m.parentSpanId === steps.find((s) => attribute(s, 'research.step.position') === 40)!.spanId)).toBe(true);
      expect(matches.map((m) => m.spanId)).toContain(deliver.parentSpanId);
      const post = spans.find((s) => s.name === 'POST' && s.parentSpanId === deliver.spanId)!;
      expect(post).toBeDefined();
      expect(attribute(post, 'server.address')).toBe('127.0.0.1');
      expect(attribute(post, 'http.response.status_code')).toBe(200);

      // The run's step jobs' log lines carry its trace, and each the span of its own step.
      const stepLines = logLines.filter((l) => l.msg === 'research step done' && l.runId === runId);
      expect(stepLines.length).toBeGreaterThanOrEqual(40);
      for (const line of stepLines) {
        expect(line.trace_id).toBe(traceId![1]);
        const span = steps.find((s) => s.spanId === line.span_id);
        expect(span, `the span of step ${String(line.step)}'s log line`).toBeDefined();
        expect(attribute(span!, 'research.step.position')).toBe(line.step);
      }

      // What the trace looks like (docs/operations.md "A run's trace" is taken from this).
      const counts = new Map<string, number>();
      for (const s of spans)
        counts.set(
          s.name.replace(/^research\.step .*/, 'research.step <name>'),
          (counts.get(s.name.replace(/^research\.step .*/, 'research.step <name>')) ?? 0) + 1,
        );
      console.info(`trace ${traceId![1]}: ${spans.length} spans`, Object.fromEntries(counts));
      console.info('attribute keys:', [...new Set(spans.flatMap((s) => (s.attributes ?? []).map((a) => a.key)))].sort().join(', '));

      // The API's requests are spans too (@fastify/otel), their path the route's template.
      const requests = receiver.spans.filter((s) => attribute(s, 'http.route') === '/api/research-runs/:id');
      expect(requests.length).toBeGreaterThan(0);
      // The request's span has its template as url.path (its handler's child span, there once the handler runs, has none);
      // no span anywhere has a concrete path or a query string.
      expect(requests.filter((s) => attribute(s, 'url.path') !== undefined).length).toBeGreaterThan(0);
      const paths = receiver.spans.map((s) => attribute(s, 'url.path')).filter((p) => p !== undefined);
      expect(paths.filter((p) => String(p).includes('run_') || String(p).includes('?'))).toEqual([]);

      // A delivery whose job was lost (reopened, its job removed) is made again by the sweeper in the run's
      // trace: its span a child of the submission, its POST under it.
      const delivery = await t.database.db
        .selectFrom('webhook_deliveries as d')
        .innerJoin('outbox_events as e', 'e.id', 'd.event_id')
        .select(['d.id'])
        .where('e.type', '=', 'research.completed')
        .where(({ ref }) => ref('e.payload', '->>').key('run_id'), '=', runId)
        .executeTakeFirstOrThrow();
      await t.database.db
        .updateTable('webhook_deliveries')
        .set({ status: 'pending', finished_at: null, queued_at: new Date(Date.now() - 60_000) })
        .where('id', '=', delivery.id)
        .execute();
      await (await pipeline.queues.webhooks.getJob(jobIdOf(JOB.webhookDeliver, deliveryPayload({ id: delivery.id }))!))?.remove();
      const swept = await sweepProcessor({
        db: t.database.db,
        stepQueue: pipeline.stepQueue,
        webhooks: pipeline.queues.webhooks,
        quietMs: 30_000,
      })();
      expect(swept.revivedDeliveries).toBeGreaterThanOrEqual(1);
      const revived = await until(
        async () => {
          await tracing.flush();
          return inTrace().filter((s) => s.name === DELIVER && s.parentSpanId === root.spanId);
        },
        (found) => found.length > 0,
        60_000,
        'the swept delivery span in the run trace',
      );
      expect(hook.types.filter((type) => type === 'research.completed').length).toBeGreaterThanOrEqual(2);
      await until(
        async () => {
          await tracing.flush();
          return receiver.spans.filter((s) => s.name === 'POST' && s.parentSpanId === revived[0]!.spanId);
        },
        (found) => found.length > 0,
        30_000,
        "the swept delivery's POST",
      );

      // An error recorded on a span (as @fastify/otel records a refusal, its message naming what was asked) keeps
      // its type only: no message, no stack, so an idea's words or an id never reach the backend (review, 2026-11-28).
      const refusedAsk = 'ins_plantedrefusal9d2e';
      await inSpan('refusal.probe', {}, async () => {
        trace.getActiveSpan()!.recordException(new Error(`No insight has the id ${refusedAsk}`));
      });
      await until(
        async () => {
          await tracing.flush();
          return receiver.spans.filter((s) => s.name === 'refusal.probe');
        },
        (found) => found.length > 0,
        30_000,
        'the refusal probe span',
      );
      expect(receiver.spans.find((s) => s.name === 'refusal.probe')!.events?.map((e) => e.name)).toEqual(['exception']);
      const exceptionDetail = receiver.spans
        .flatMap((s) => s.events ?? [])
        .filter((e) => e.name === 'exception')
        .flatMap((e) => (e.attributes ?? []).map((a) => a.key))
        .filter((k) => k !== 'exception.type');
      expect(exceptionDetail).toEqual([]);

      const secrets = {
        refusedAsk,
        apiKey: key,
        webhookSecret,
        cookie: COOKIE,
        queryToken: QUERY_TOKEN,
        password: PASSWORD,
        encryptionKey: t.webhookEncryptionKey,
      };
      // The planted values reached the service (else this check proves nothing): the key and cookie were sent, the secret answered.
      expect(webhookSecret.length).toBeGreaterThan(10);
      for (const [name, secret] of Object.entries(secrets)) {
        const holding = receiver.values.filter((v) => v.includes(secret) || v.includes(secret.slice(-12)));
        expect(holding, `${name} in a span attribute`).toEqual([]);
      }
    } finally {
      hook.close();
    }
  }, 240_000);

  it('a trends job shared between runs is a trace of its own, linked to the request that made it', async () => {
    const queue = new Queue(QUEUES.trends, { connection: t.redis.redis.duplicate(), prefix: t.redis.keys.queuePrefix(QUEUES.trends) });
    try {
      // Made inside a step's request span, as QueuedTrendsGateway makes it: enqueue carries the span in the job.
      let asking = '';
      let jobId = '';
      await inSpan('trends.request', {}, async () => {
        asking = trace.getSpanContext(context.active())!.spanId;
        const job = await enqueue(
          queue,
          JOB.trendsFetch,
          { request: { kind: 'autocomplete', term: 'kayak' }, provider: 'google' },
          new Date(),
        );
        jobId = String(job.id);
      });
      // As the worker sees it (read back from Redis), run through the worker's tracing with a stand-in processor.
      const stored = (await queue.getJob(jobId)) as Job;
      expect(stored.opts.telemetry?.metadata).toMatch(new RegExp(`^00-[0-9a-f]{32}-${asking}-01$`));
      await traceJobs(QUEUES.trends, async () => 'answered')(stored, 'token');
      const request = () => receiver.spans.find((s) => s.spanId === asking);
      const fetched = () => receiver.spans.find((s) => s.name === `${QUEUES.trends} ${JOB.trendsFetch.name}`);
      await until(
        async () => {
          await tracing.flush();
          return [request(), fetched()];
        },
        ([a, b]) => a !== undefined && b !== undefined,
        30_000,
        'the request and trends job spans',
      );
      expect(fetched()!.parentSpanId ?? '').toBe('');
      expect(fetched()!.traceId).not.toBe(request()!.traceId);
      expect(fetched()!.links).toEqual([expect.objectContaining({ traceId: request()!.traceId, spanId: asking })]);
    } finally {
      await queue.close();
    }
  });

  it('every run a shared trends job answers links to its trace: the one that made it and a later one', async () => {
    // A trends queue of its own (no provider behind it): its worker answers through the workers' tracing.
    const prefix = `${t.redis.keys.queuePrefix(QUEUES.trends)}-links`;
    const resources = testResources(t.database, t.redis);
    const connection = () => resources.connectRedis('worker');
    const queue = new Queue(QUEUES.trends, { connection: connection(), prefix });
    const events = new QueueEvents(QUEUES.trends, { connection: connection(), prefix });
    const answer = { kind: 'autocomplete', suggestions: [] } as unknown as TrendsResponse;
    const worker = new Worker(
      QUEUES.trends,
      traceJobs(QUEUES.trends, async () => answer),
      { connection: connection(), prefix },
    );
    try {
      await events.waitUntilReady();
      const gateway = new QueuedTrendsGateway(queue, events, 'google', 60_000);
      const ask = (run: string) =>
        inSpan('research.submit', { root: true, attributes: { 'research.run_id': run } }, () =>
          inSpan('trends.request', {}, async () => {
            expect(await gateway.fetch({ kind: 'autocomplete', term: 'kayak tide tables' })).toEqual(answer);
            return trace.getSpanContext(context.active())!;
          }),
        );
      const first = await ask('run_first');
      const later = await ask('run_later');
      expect(later.traceId).not.toBe(first.traceId);
      const job = () =>
        receiver.spans.find(
          (s) => s.name === `${QUEUES.trends} ${JOB.trendsFetch.name}` && s.links?.some((l) => l.spanId === first.spanId),
        );
      const spanOf = (spanId: string) => receiver.spans.find((s) => s.spanId === spanId);
      await until(
        async () => {
          await tracing.flush();
          return [job(), spanOf(first.spanId), spanOf(later.spanId)];
        },
        (found) => found.every((f) => f !== undefined),
        30_000,
        'the trends job and both requests',
      );
      const fetched = job()!;
      // Its own trace, linked to the request that made it; both requests it answered link to it.
      expect(fetched.parentSpanId ?? '').toBe('');
      for (const asked of [first, later])
        expect(spanOf(asked.spanId)!.links).toEqual([expect.objectContaining({ traceId: fetched.traceId, spanId: fetched.spanId })]);
    } finally {
      await worker.close();
      await events.close();
      await queue.close();
    }
  });
});
