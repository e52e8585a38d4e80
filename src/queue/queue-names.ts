// Queue and job names, declared once. What each job is (payload, options, id
// rule) is declared in job-catalogue.ts. Payloads are `unknown` until checked:
// older or newer code may have enqueued them.
import type { Static, TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { UnrecoverableError } from 'bullmq';

export const QUEUES = {
  research: 'research',
  trends: 'trends',
  ingest: 'ingest',
  webhooks: 'webhooks',
  maintenance: 'maintenance',
} as const;
export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

export const JOBS = {
  researchStep: 'research-step',
  trendsFetch: 'trends-fetch',
  sweep: 'sweep',
  refreshAll: 'refresh-all',
  refreshInsight: 'refresh-insight',
  refreshGroup: 'refresh-group',
  refreshLeftovers: 'refresh-leftovers',
  discover: 'discover',
  webhookMatch: 'match',
  webhookDeliver: 'deliver',
  relay: 'relay',
  googleCheck: 'google-check',
  prune: 'prune',
} as const;
export type JobName = (typeof JOBS)[keyof typeof JOBS];

/** A payload that does not match its schema fails its job for good: retrying cannot mend it. */
export function checkPayload<T extends TSchema>(schema: T, data: unknown, jobName: string): Static<T> {
  if (Value.Check(schema, data)) return data;
  const first = [...Value.Errors(schema, data)][0];
  throw new UnrecoverableError(`${jobName}: invalid payload at ${first?.path || '/'}: ${first?.message ?? 'unknown'}`);
}
