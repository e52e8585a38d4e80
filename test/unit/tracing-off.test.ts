// Tracing off costs nothing: without OTEL_EXPORTER_OTLP_ENDPOINT no exporter is
// made and no SDK registered, spans are not made, and a job carries no trace; and
// no module of the product loads anything of OpenTelemetry but its API (the
// no-op façade) until tracing starts.
// With it set, the same code makes one exporter to <endpoint>/v1/traces (so the
// first check can fail).
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import ts from 'typescript';
import { trace } from '@opentelemetry/api';
import { Type } from '@sinclair/typebox';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { currentTraceparent, inSpan, startTracing, tracingEnabled } from '../../src/observability/tracing.js';
import { jobRequest } from '../../src/queue/enqueue.js';
import type { JobDeclaration } from '../../src/queue/job-catalogue.js';

const made = vi.hoisted(() => [] as Array<{ url?: string }>);
vi.mock('@opentelemetry/exporter-trace-otlp-http', async (original) => {
  const real = await original<typeof import('@opentelemetry/exporter-trace-otlp-http')>();
  return {
    OTLPTraceExporter: class extends real.OTLPTraceExporter {
      constructor(options: { url?: string }) {
        super(options);
        made.push(options);
      }
    },
  };
});

const job = { queue: 'research', name: 'probe', payload: Type.Object({}), options: {} } as unknown as JobDeclaration;

afterEach(() => {
  made.length = 0;
});

/** Every import of `file` that loads a module when the file is loaded (not `import type`, not `import()`). */
function loadedAtImport(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const loaded: string[] = [];
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) && !ts.isExportDeclaration(statement)) continue;
    if (!statement.moduleSpecifier || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    const typeOnly = ts.isImportDeclaration(statement) ? statement.importClause?.isTypeOnly === true : statement.isTypeOnly;
    if (!typeOnly) loaded.push(statement.moduleSpecifier.text);
  }
  return loaded;
}

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => path.join(dir, f));

describe('tracing off', () => {
  it('loads nothing of OpenTelemetry but its API when the product loads: the SDK, exporter and @fastify/otel only when tracing starts', () => {
    const tracingModules = /^(@opentelemetry\/|@fastify\/otel$)/;
    const found = [...sourceFiles('src'), ...sourceFiles('jobs')].flatMap((file) =>
      loadedAtImport(file)
        .filter((specifier) => tracingModules.test(specifier))
        .map((specifier) => `${file}: ${specifier}`),
    );
    // The check finds what it looks for (tracing.ts loads the API at import).
    expect(found).toContain(`${path.join('src', 'observability', 'tracing.ts')}: @opentelemetry/api`);
    expect(found.filter((f) => !f.endsWith(': @opentelemetry/api'))).toEqual([]);
  });

  it('makes no exporter, registers no SDK, makes no span and puts no trace on a job', async () => {
    const tracing = await startTracing(loadConfig({}).tracing);
    expect(tracing.enabled).toBe(false);
    expect(made).toEqual([]);
    expect(tracingEnabled()).toBe(false);
    // The global provider is still the API's no-op one.
    expect(trace.getTracer('x').startSpan('y').isRecording()).toBe(false);
    await inSpan('research.step', {}, async (span) => {
      expect(span).toBeUndefined();
      expect(currentTraceparent()).toBeUndefined();
      expect(jobRequest(job, {}, []).opts.telemetry).toBeUndefined();
    });
  });

  it('with OTEL_EXPORTER_OTLP_ENDPOINT set, makes one exporter to its /v1/traces and carries the span into a job', async () => {
    // A loopback receiver that takes what it is sent (the span, at shutdown).
    const receiver = http.createServer((req, res) => req.resume().on('end', () => res.writeHead(200).end('{}')));
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    const tracing = await startTracing(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: `${endpoint}/` }).tracing);
    try {
      expect(tracing.enabled).toBe(true);
      expect(made.map((o) => o.url)).toEqual([`${endpoint}/v1/traces`]);
      await inSpan('research.step', {}, async (span) => {
        expect(span!.isRecording()).toBe(true);
        expect(jobRequest(job, {}, []).opts.telemetry?.metadata).toBe(currentTraceparent());
        expect(currentTraceparent()).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
      });
    } finally {
      await tracing.shutdown();
      receiver.close();
    }
    expect(tracingEnabled()).toBe(false);
  });
});
