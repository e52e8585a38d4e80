// OpenTelemetry traces (issue 52; docs/operations.md, "Traces"). On only when
// OTEL_EXPORTER_OTLP_ENDPOINT is set: then startTracing loads the SDK, registers
// it globally and exports spans over OTLP/HTTP (JSON). Off, no SDK module is
// even loaded and every helper here is one test of a module flag: a research
// step, an enqueue or a log line pays nothing for tracing it does not do.
//
// Context crosses processes as a W3C traceparent string, in two places: the
// run's record (research_runs.trace_id, the parent of every step's span) and a
// job's BullMQ telemetry slot (opts.telemetry.metadata, which BullMQ keeps with
// the job and ignores when its own telemetry is not configured).
import {
  context,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type SpanContext,
} from '@opentelemetry/api';
import type { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace';
import type { ClientRequest } from 'node:http';
import type { TracingConfig } from '../config.js';
import { logTraceFrom, type LogTraceFields } from '../logger.js';
import { carryTraceFrom } from '../queue/enqueue.js';

export const TRACER_NAME = 'startup-insights';

/** What a process holds of its tracing: whether it is on, and how to flush and stop it. */
export interface Tracing {
  readonly enabled: boolean;
  /** Sends the spans ended so far (a test's end; a CLI before it exits). */
  flush(): Promise<void>;
  /** Flushes and stops the SDK; tracing is off afterwards. */
  shutdown(): Promise<void>;
}

const OFF: Tracing = Object.freeze({ enabled: false, flush: async () => {}, shutdown: async () => {} });
let enabled = false;
/** Reads and writes traceparent strings; loaded with the SDK (off, nothing has a trace to read). */
let propagator: W3CTraceContextPropagator | undefined;

/** Whether this process exports spans (the helpers below do nothing when it does not). */
export function tracingEnabled(): boolean {
  return enabled;
}

/**
 * Starts tracing if the configuration asks for it (once per process; a second
 * call answers the tracing already running). Off: nothing is loaded or
 * registered, and the answer's flush and shutdown do nothing.
 */
export async function startTracing(config: TracingConfig, version = '0.1.0'): Promise<Tracing> {
  if (!config.endpoint) return OFF;
  if (running) return running;
  // Loaded only when on: a process without an endpoint never loads the SDK.
  const [
    { TracerProvider, BatchSpanProcessor },
    { AsyncLocalStorageContextManager },
    { OTLPTraceExporter },
    { resourceFromAttributes },
    { W3CTraceContextPropagator },
  ] = await Promise.all([
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/context-async-hooks'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/core'),
  ]);
  propagator = new W3CTraceContextPropagator();
  const exporter = new OTLPTraceExporter({ url: `${config.endpoint}/v1/traces` });
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': config.serviceName, 'service.version': version }),
    spanProcessors: [exceptionsWithoutDetail, new BatchSpanProcessor({ exporter })],
  });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  trace.setGlobalTracerProvider(provider);
  enabled = true;
  carryTraceFrom(currentTraceparent);
  logTraceFrom(activeTraceFields);
  const handle: Tracing = {
    enabled: true,
    flush: () => provider.forceFlush(),
    async shutdown() {
      enabled = false;
      running = undefined;
      carryTraceFrom(undefined);
      logTraceFrom(undefined);
      await provider.shutdown();
      trace.disable();
      context.disable();
    },
  };
  running = handle;
  return handle;
}
let running: Tracing | undefined;

/**
 * Before a span is queued for export: its exception events keep only their type, and its status no message.
 * A refusal's message can hold a private idea's words, an account id or a key id, and a stack trace tells an
 * operator's backend nothing the logs do not (outside review of issue 52, 2026-11-28: 63 exception events with
 * stacks and an idea's text on ordinary 4xx answers). Runs first, so the batch processor exports what it left.
 */
const exceptionsWithoutDetail: SpanProcessor = {
  onStart: () => {},
  onEnd(span: ReadableSpan) {
    for (const event of span.events) {
      if (event.name !== 'exception' || !event.attributes) continue;
      const attributes = event.attributes as Record<string, unknown>;
      for (const key of Object.keys(attributes)) if (key !== 'exception.type') delete attributes[key];
    }
    if (span.status.message !== undefined) delete (span.status as { message?: string }).message;
  },
  forceFlush: async () => {},
  shutdown: async () => {},
};

function tracer() {
  return trace.getTracer(TRACER_NAME);
}

/** The traceparent of the span active now; undefined when tracing is off or no span is active. */
export function currentTraceparent(): string | undefined {
  if (!enabled) return undefined;
  return traceparentOf(context.active());
}

/** The trace and span a log line written now belongs to (a traced logger's mixin, logger.ts). */
function activeTraceFields(): LogTraceFields | undefined {
  const spanContext = trace.getSpanContext(context.active());
  return spanContext ? { trace_id: spanContext.traceId, span_id: spanContext.spanId } : undefined;
}

function traceparentOf(ctx: Context): string | undefined {
  if (!propagator || !trace.getSpanContext(ctx)) return undefined;
  const carrier: Record<string, string> = {};
  propagator.inject(ctx, carrier, { set: (c, k, v) => (c[k] = v) });
  return carrier.traceparent;
}

/** The context whose remote parent is `traceparent` (the root context when it is missing or malformed). */
export function contextFrom(traceparent: string | null | undefined): Context {
  if (!traceparent || !propagator) return ROOT_CONTEXT;
  return propagator.extract(ROOT_CONTEXT, { traceparent }, { get: (c, k) => c[k as 'traceparent'], keys: () => ['traceparent'] });
}

/** The trace id of a traceparent (what the run's API record shows and logs carry). */
export function traceIdOf(traceparent: string | null | undefined): string | undefined {
  return traceparent ? /^[0-9a-f]{2}-([0-9a-f]{32})-/.exec(traceparent)?.[1] : undefined;
}

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  /** The parent (default: the active context). */
  parent?: Context;
  /** A new trace (no parent), e.g. a submission or a job shared by many runs. */
  root?: boolean;
  links?: Link[];
  /** Errors that are an outcome, not a failure (waiting for Google): the span keeps an unset status. */
  expected?: (error: unknown) => boolean;
}

/**
 * Runs `fn` inside a span when tracing is on (just `fn` when off). The span
 * ends when `fn` settles; a throw marks it an error with the error's class
 * name only: messages can carry an idea's words or a receiver's answer.
 */
export async function inSpan<T>(name: string, options: SpanOptions, fn: (span: Span | undefined) => Promise<T>): Promise<T> {
  if (!enabled) return fn(undefined);
  const parent = options.parent ?? context.active();
  const span = tracer().startSpan(
    name,
    {
      kind: options.kind ?? SpanKind.INTERNAL,
      ...(options.attributes ? { attributes: options.attributes } : {}),
      ...(options.root ? { root: true } : {}),
      ...(options.links ? { links: options.links } : {}),
    },
    parent,
  );
  try {
    return await context.with(trace.setSpan(parent, span), () => fn(span));
  } catch (error) {
    if (!options.expected?.(error)) {
      span.setStatus({ code: SpanStatusCode.ERROR });
      span.setAttribute('error.type', errorType(error));
    }
    throw error;
  } finally {
    span.end();
  }
}

function errorType(error: unknown): string {
  return error instanceof Error ? error.name || error.constructor.name : typeof error;
}

/** Runs `fn` with `ctx` active (just `fn` when tracing is off). */
export function withContext<T>(ctx: Context, fn: () => T): T {
  return enabled ? context.with(ctx, fn) : fn();
}

/**
 * Runs `fn` in the trace `traceparent` names, its span as the parent of what `fn` makes (a job enqueued
 * there carries it): work re-made for a run after its job was lost (the sweeper, the outbox relay) stays
 * in the run's trace. Just `fn` when tracing is off or there is no trace.
 */
export function inTraceOf<T>(traceparent: string | null | undefined, fn: () => T): T {
  return enabled && traceparent ? context.with(contextFrom(traceparent), fn) : fn();
}

/**
 * Links the span active now to the span `traceparent` names (a request answered by a trends job that
 * another run made: the job's own trace). Nothing when tracing is off, no span is active or it names none.
 */
export function linkActiveSpanTo(traceparent: string | undefined, attributes?: Attributes): void {
  if (!enabled) return;
  const [link] = linkTo(traceparent);
  if (link) trace.getSpan(context.active())?.addLink(attributes ? { ...link, attributes } : link);
}

/** How a shared job's log line names the trace of its run (runtime/workers.ts writes it, the trends gateway reads it). */
export const JOB_TRACE_PREFIX = 'trace ';

/** The traceparent a shared job's log names (its latest attempt's), or undefined. */
export function traceOfJobLog(lines: readonly string[]): string | undefined {
  const line = lines.findLast((l) => l.startsWith(JOB_TRACE_PREFIX));
  return line?.slice(JOB_TRACE_PREFIX.length);
}

/** A link to the span a traceparent names (none when it names none). */
export function linkTo(traceparent: string | undefined): Link[] {
  const spanContext: SpanContext | undefined = traceparent ? trace.getSpanContext(contextFrom(traceparent)) : undefined;
  return spanContext ? [{ context: spanContext }] : [];
}

/**
 * An outgoing HTTP request (to a provider, or a webhook receiver) as a CLIENT
 * span from its start to its close: the host, the method and the outcome (the
 * status, or the error's class), never the path, query, headers or body, where
 * tokens, cookies, keys and signatures travel. One line at the call site.
 */
export function traceRequest(request: ClientRequest, host: string): void {
  if (!enabled) return;
  const span = tracer().startSpan(request.method, {
    kind: SpanKind.CLIENT,
    attributes: { 'server.address': host, 'http.request.method': request.method },
  });
  request.once('response', (response) => {
    span.setAttribute('http.response.status_code', response.statusCode ?? 0);
    if ((response.statusCode ?? 0) >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  });
  request.once('error', (error) => {
    span.setStatus({ code: SpanStatusCode.ERROR });
    span.setAttribute('error.type', errorType(error));
  });
  request.once('close', () => span.end());
}

export { SpanKind };
