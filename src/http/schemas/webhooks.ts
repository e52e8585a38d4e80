// The /api/webhooks schemas (TypeBox).
import { Type, type Static } from '@sinclair/typebox';
import { CATEGORY_VALUES, SOURCE_VALUES } from '../../domain/catalog.js';
import { CURSOR_MAX_LENGTH } from '../../domain/cursor.js';
import { SUBSCRIPTION_LIMITS, WEBHOOK_EVENT_TYPES } from '../../domain/webhooks/subscription-input.js';

// The /api/webhooks bodies are checked strictly (no type coercion; see
// json-body.ts), by TypeBox itself, so they use plain TypeBox kinds: literal
// unions rather than the Unsafe enums above.
const literalUnion = <T extends string>(values: readonly T[], options: Record<string, unknown> = {}) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    options,
  );

const WebhookCriteria = {
  min_score: Type.Optional(
    Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], {
      description: 'Only insights whose overall score is at least this (0–1); null: any score',
    }),
  ),
  // Checked by checkCriteria, not here, so that a retired slug ("fintech") is refused naming its replacement.
  categories: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 60, description: `One of: ${CATEGORY_VALUES.join(', ')}` }), {
      maxItems: CATEGORY_VALUES.length,
      description: 'Only these categories (GET /api/categories); empty: any',
    }),
  ),
  sources: Type.Optional(
    Type.Array(literalUnion(SOURCE_VALUES), { maxItems: SOURCE_VALUES.length, description: 'Only these sources; empty: any' }),
  ),
  keywords: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: SUBSCRIPTION_LIMITS.keywordLength }), {
      maxItems: SUBSCRIPTION_LIMITS.keywords,
      description:
        'The text criterion: only insights whose title, idea or keywords contain one of these as a whole word or phrase (case-insensitive); empty: any. There is no free-text query beyond this.',
    }),
  ),
  events: Type.Optional(
    Type.Array(literalUnion(WEBHOOK_EVENT_TYPES), {
      maxItems: WEBHOOK_EVENT_TYPES.length,
      description: 'Only these event types; empty: all (insight.created, insight.updated, ping)',
    }),
  ),
};

const WebhookUrl = Type.String({
  minLength: 1,
  maxLength: SUBSCRIPTION_LIMITS.urlLength,
  description:
    'http:// or https://, no credentials; must not resolve to a private, loopback or link-local address unless the operator allows it',
});

export const WebhookCreateBody = Type.Object(
  { url: WebhookUrl, ...WebhookCriteria },
  {
    additionalProperties: false,
    examples: [
      {
        url: 'https://example.com/hooks/insights',
        min_score: 0.6,
        categories: ['computers-electronics', 'finance'],
        keywords: ['agent'],
        events: ['insight.created'],
      },
    ],
  },
);
export type WebhookCreateBody = Static<typeof WebhookCreateBody>;

export const WebhookUpdateBody = Type.Object(
  {
    url: Type.Optional(WebhookUrl),
    ...WebhookCriteria,
    enabled: Type.Optional(Type.Boolean({ description: 'false pauses deliveries; true resumes them (and ends a failure streak)' })),
  },
  { additionalProperties: false, minProperties: 1, examples: [{ min_score: 0.75, enabled: true }] },
);
export type WebhookUpdateBody = Static<typeof WebhookUpdateBody>;

export const WebhookRotateBody = Type.Object(
  {
    overlap_hours: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 720,
        description:
          "How long the previous secret keeps signing beside the new one (default: the server's WEBHOOK_SECRET_OVERLAP_HOURS, 24)",
      }),
    ),
  },
  { additionalProperties: false, examples: [{ overlap_hours: 24 }] },
);

export const WebhookReplayBody = Type.Object(
  {
    since: Type.String({ minLength: 1, maxLength: 40, description: 'ISO 8601 time: deliveries made at or after it' }),
    until: Type.Optional(
      Type.String({ minLength: 1, maxLength: 40, description: 'ISO 8601 time: deliveries made before it (default: now)' }),
    ),
  },
  { additionalProperties: false, examples: [{ since: '2026-11-24T00:00:00Z', until: '2026-11-24T12:00:00Z' }] },
);

export const WebhookIdParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64, description: 'The subscription id (sub_…)' }),
});
export const WebhookDeliveryParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64, description: 'The subscription id (sub_…)' }),
  deliveryId: Type.String({ minLength: 1, maxLength: 64, description: 'The delivery id (dlv_…)' }),
});
export const WebhookDeliveriesQuery = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'How many (1–100)' }),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: CURSOR_MAX_LENGTH, description: 'next_cursor of the page before' })),
  },
  { additionalProperties: false },
);

const dateTime = (description?: string) => Type.String({ format: 'date-time', ...(description ? { description } : {}) });
const nullableDateTime = (description: string) => Type.Union([dateTime(), Type.Null()], { description });

const WebhookSubscriptionFields = {
  id: Type.String({ description: 'Opaque id, prefixed sub_' }),
  url: Type.String(),
  enabled: Type.Boolean(),
  disabled_reason: Type.Union([Type.String(), Type.Null()], {
    description: 'Why it is disabled: by you, by an operator, 410 Gone, or a long failure streak',
  }),
  disabled_by: Type.Union([literalUnion(['operator', 'account', 'system'] as const), Type.Null()], {
    description:
      'Who disabled it: you (account), an operator (only an operator can enable it again: a PATCH enabled=true answers 409), or the system (410 Gone, a failure streak: enable it again once your endpoint works)',
  }),
  failing_since: nullableDateTime('Start of the current failure streak; null when the last delivery got through'),
  min_score: Type.Union([Type.Number(), Type.Null()]),
  categories: Type.Array(Type.String()),
  sources: Type.Array(Type.String()),
  keywords: Type.Array(Type.String()),
  events: Type.Array(Type.String()),
  previous_secret_expires_at: nullableDateTime('After a rotation, until when the previous secret still signs too'),
  created_at: dateTime(),
  updated_at: dateTime(),
  links: Type.Object({ self: Type.String(), deliveries: Type.String() }),
};
export const WebhookSubscriptionSchema = Type.Object(WebhookSubscriptionFields);
export type WebhookSubscriptionDto = Static<typeof WebhookSubscriptionSchema>;

export const WebhookDeliverySchema = Type.Object({
  id: Type.String({ description: 'Opaque id, prefixed dlv_' }),
  event_id: Type.String({ description: 'The webhook-id header of every attempt (evt_…)' }),
  event_type: Type.String(),
  status: literalUnion(['pending', 'succeeded', 'failed'] as const),
  attempts: Type.Integer(),
  last_status_code: Type.Union([Type.Integer(), Type.Null()]),
  last_error: Type.Union([Type.String(), Type.Null()]),
  created_at: dateTime(),
  finished_at: nullableDateTime('When it succeeded or was given up on'),
});

const Warnings = Type.Array(Type.String(), { description: 'What may fail later, e.g. a host that does not resolve now' });

export const WebhookCreatedSchema = Type.Object({
  data: Type.Object({
    ...WebhookSubscriptionFields,
    secret: Type.Union([Type.String(), Type.Null()], {
      description:
        'whsec_…: shown only in this answer; verify deliveries with it. null only in a retry (Idempotent-Replayed) of a create whose subscription was rotated since: the secret it issued is no longer the one that signs; rotate to get a new one',
    }),
  }),
  warnings: Warnings,
});
export const WebhookListSchema = Type.Object({ data: Type.Array(WebhookSubscriptionSchema), next_cursor: Type.Null() });
export const WebhookShowSchema = Type.Object({
  data: Type.Object({
    ...WebhookSubscriptionFields,
    recent_deliveries: Type.Array(WebhookDeliverySchema, { description: 'The 20 newest' }),
  }),
});
export const WebhookUpdatedSchema = Type.Object({ data: WebhookSubscriptionSchema, warnings: Warnings });
export const WebhookPingSchema = Type.Object({ data: Type.Object({ event_id: Type.String(), delivery_id: Type.String() }) });
export const WebhookRotatedSchema = Type.Object({
  data: Type.Object({
    id: Type.String(),
    secret: Type.String({ description: 'The new whsec_ secret: shown only in this answer' }),
    previous_secret_expires_at: dateTime('Until then the previous secret signs too (webhook-signature carries both)'),
  }),
});
export const WebhookDeliveryListSchema = Type.Object({
  data: Type.Array(WebhookDeliverySchema),
  next_cursor: Type.Union([Type.String(), Type.Null()]),
});
export const WebhookReplayedSchema = Type.Object({
  data: Type.Object({
    replayed: Type.Array(Type.String(), { description: 'The deliveries sent again, each with its original webhook-id' }),
    truncated: Type.Boolean({
      description:
        "More deliveries fell in the window than this replay sends (the per-call cap, or what was left of the day's replays and pings): replay the rest with a later since",
    }),
    pending: Type.Integer({
      minimum: 0,
      description: 'Deliveries of the window still on their way (new, retrying, or replayed already): not sent twice',
    }),
    remaining_today: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
      description: "Replays and pings your plan allows for the rest of today (UTC); null for an operator's replay",
    }),
  }),
});
