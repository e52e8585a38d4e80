// Queue and job names, declared once, and the payload each job accepts.
// Payloads are `unknown` until checked: older or newer code may have enqueued them.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { UnrecoverableError, type DefaultJobOptions } from 'bullmq';

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

/**
 * Retries follow the webhook schedule (retry.ts) through the worker's custom
 * backoff strategy. Failed jobs stay a week, at most 10,000 (the delivery and
 * its attempts stay in Postgres, and a replay makes a new job).
 */
export const WEBHOOK_DELIVERY_OPTIONS: DefaultJobOptions = {
  attempts: 8,
  backoff: { type: 'custom' },
  removeOnComplete: { age: 24 * 3600, count: 10_000 },
  removeOnFail: { age: 7 * 24 * 3600, count: 10_000 },
};
/** One match job per outbox event; kept an hour so a second announce is a no-op. */
export const MATCH_JOB_OPTIONS: DefaultJobOptions = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 1_000 },
  removeOnComplete: { age: 3600 },
  removeOnFail: { age: 7 * 24 * 3600 },
};
export const matchJobId = (eventId: string) => `match-${eventId}`;

/**
 * A delivery's job id: from the delivery and its replay count (Postgres), never
 * the clock, so a replay asked twice while one is pending is one job.
 */
export const deliveryJobId = (deliveryId: string, replay = 0) =>
  replay > 0 ? `deliver-${deliveryId}-replay-${replay}` : `deliver-${deliveryId}`;

/**
 * A replay waits behind fresh deliveries (new events, pings): BullMQ takes a
 * job without a priority before any with one, so an account's backlog of
 * thousands of replays is not a queue every other account's new event stands
 * behind.
 */
export const REPLAY_PRIORITY = 10;

/** The deliver job of a delivery (its replay count as Postgres holds it): the one way every producer enqueues one. */
export const deliveryJob = (delivery: { id: string; replays?: number }) => {
  const replays = delivery.replays ?? 0;
  return {
    name: JOBS.webhookDeliver,
    data: { deliveryId: delivery.id },
    opts: {
      ...WEBHOOK_DELIVERY_OPTIONS,
      jobId: deliveryJobId(delivery.id, replays),
      ...(replays > 0 ? { priority: REPLAY_PRIORITY } : {}),
    },
  };
};

/** Scheduled jobs and the refresh's flow parent carry nothing: what they do is read from the database. */
export const NoPayload = Type.Object({});

export const WebhookMatchPayload = Type.Object({ eventId: Type.String({ minLength: 1 }) });
export const WebhookDeliverPayload = Type.Object({ deliveryId: Type.String({ minLength: 1 }) });

export const RefreshInsightPayload = Type.Object({ insightId: Type.String({ pattern: '^ins_' }) });
export const RefreshGroupPayload = Type.Object({
  insightIds: Type.Array(Type.String({ pattern: '^ins_' }), { minItems: 1, maxItems: 5 }),
  /** 1: the planned groups (leftovers go back to the parent); 2: leftovers regrouped (leftovers then go alone). */
  round: Type.Optional(Type.Union([Type.Literal(1), Type.Literal(2)])),
});
export const INGEST_JOB_OPTIONS: DefaultJobOptions = {
  attempts: 4,
  backoff: { type: 'exponential', delay: 10_000 },
  removeOnComplete: { age: 3 * 24 * 3600 },
  removeOnFail: { age: 7 * 24 * 3600 },
};

export const ResearchStepPayload = Type.Object({
  runId: Type.String({ pattern: '^run_' }),
  step: Type.Integer({ minimum: 1, maximum: 40 }),
});
export type ResearchStepPayload = Static<typeof ResearchStepPayload>;

export const TrendsFetchPayload = Type.Object({
  request: Type.Record(Type.String(), Type.Unknown()),
  provider: Type.String(),
  /** Egress routes that refused this request (HTTP 400): it is not sent through them again. */
  refusedBy: Type.Optional(Type.Array(Type.String())),
});
export type TrendsFetchPayload = Static<typeof TrendsFetchPayload>;

/** A payload that does not match its schema fails its job for good: retrying cannot mend it. */
export function checkPayload<T extends TSchema>(schema: T, data: unknown, jobName: string): Static<T> {
  if (Value.Check(schema, data)) return data;
  const first = [...Value.Errors(schema, data)][0];
  throw new UnrecoverableError(`${jobName}: invalid payload at ${first?.path || '/'}: ${first?.message ?? 'unknown'}`);
}

/** BullMQ rejects job ids with ':' or made only of digits; ours are always prefixed. */
export const researchStepJobId = (runId: string, step: number) => `${runId}-step-${step}`;

export const RESEARCH_JOB_OPTIONS: DefaultJobOptions = {
  attempts: 4,
  backoff: { type: 'exponential', delay: 2_000 },
  removeOnComplete: true,
  removeOnFail: { age: 7 * 24 * 3600 },
};

export const TRENDS_JOB_OPTIONS: DefaultJobOptions = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 5_000 },
  // Kept a day: the same request from another step or run reuses the answer.
  removeOnComplete: { age: 24 * 3600 },
  removeOnFail: { age: 24 * 3600 },
};
