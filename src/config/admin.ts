// The admin section: the token guarding /metrics and /admin/queues, and the workers' metrics port.
import { EnvReader } from './env-reader.js';

export interface AdminConfig {
  /** Guards /metrics and /admin/queues (Bearer, or Basic with it as password); both are off when unset. */
  readonly token: string | undefined;
  /** A worker process serves /metrics on this port when set (and token is set). */
  readonly metricsPort: number | undefined;
}

export function loadAdminSection(read: EnvReader): AdminConfig {
  const token = read.text('ADMIN_TOKEN');
  read.check(token === undefined || token.length >= 16, 'ADMIN_TOKEN must be at least 16 characters (openssl rand -hex 24)');
  return Object.freeze({
    token,
    metricsPort: read.text('METRICS_PORT') === undefined ? undefined : read.integer('METRICS_PORT', 9464, 1, 65535),
  });
}
