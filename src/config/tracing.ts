// The tracing section: OpenTelemetry traces (issue 52; docs/operations.md, "Traces"), off unless an
// OTLP endpoint is set.
import { EnvReader } from './env-reader.js';

export interface TracingConfig {
  /** OTEL_EXPORTER_OTLP_ENDPOINT: the OTLP/HTTP base URL (traces go to <it>/v1/traces); unset: no SDK, no spans. */
  readonly endpoint: string | undefined;
  /** OTEL_SERVICE_NAME: the service.name of every span (default startup-insights). */
  readonly serviceName: string;
}

export function loadTracingSection(read: EnvReader): TracingConfig {
  const endpoint = read.url('OTEL_EXPORTER_OTLP_ENDPOINT', ['http:', 'https:'])?.replace(/\/+$/, '');
  const serviceName = read.text('OTEL_SERVICE_NAME') ?? 'startup-insights';
  return Object.freeze({ endpoint, serviceName });
}
