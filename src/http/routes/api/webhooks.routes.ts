// /api/webhooks: the key's account manages its own webhook subscriptions. Every
// route needs the webhooks:write scope (which also reads them); every rule is
// the WebhookService's, shared with the operators' CLI. Bodies are JSON only
// (415 otherwise), at most 16 KB (413), checked strictly (400 naming the
// field). POSTs honour Idempotency-Key; PATCH honours If-Match. Answers are
// never cached (the guard caches only routes marked cacheable) and say so.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DeliveryLogRow } from '../../../webhooks/delivery.repository.js';
import type { SubscriptionRow } from '../../../webhooks/subscription.repository.js';
import { IdempotencyKeyReusedError, subscriptionEtag, type WebhookService } from '../../../webhooks/webhook-service.js';
import { registerIdempotency, type IdempotencyOptions } from '../../idempotency.js';
import { strictJsonValidator } from '../../json-body.js';
import { problem, ProblemError } from '../../problem.js';
import { errorResponses, NoBody } from '../../schemas/common.js';
import {
  WebhookCreateBody,
  WebhookCreatedSchema,
  WebhookDeliveriesQuery,
  WebhookDeliveryListSchema,
  WebhookDeliveryParams,
  WebhookIdParams,
  WebhookListSchema,
  WebhookPingSchema,
  WebhookReplayBody,
  WebhookReplayedSchema,
  WebhookRotateBody,
  WebhookRotatedSchema,
  WebhookShowSchema,
  WebhookUpdateBody,
  WebhookUpdatedSchema,
  type WebhookSubscriptionDto,
} from '../../schemas/webhooks.js';

export interface WebhookRoutesDeps {
  service: WebhookService;
  idempotency: IdempotencyOptions;
}

/** Small: the largest valid body (50 keywords of 100 characters, a 2 KB URL) is well under it. */
export const WEBHOOK_BODY_LIMIT = 16 * 1024;

const BASE = '/webhooks';

export function subscriptionDto(row: SubscriptionRow): WebhookSubscriptionDto {
  return {
    id: row.id,
    url: row.url,
    enabled: row.state === 'enabled',
    disabled_reason: row.disabled_reason,
    disabled_by: row.state === 'disabled' ? (row.disabled_by ?? 'system') : null,
    failing_since: row.failing_since?.toISOString() ?? null,
    min_score: row.min_score,
    categories: row.categories,
    sources: row.sources,
    keywords: row.keywords,
    events: row.event_types,
    previous_secret_expires_at:
      row.previous_secret_expires_at && row.previous_secret_expires_at > new Date() ? row.previous_secret_expires_at.toISOString() : null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    links: { self: `/api/webhooks/${row.id}`, deliveries: `/api/webhooks/${row.id}/deliveries` },
  };
}

function deliveryDto(d: DeliveryLogRow) {
  return {
    id: d.id,
    event_id: d.event_id,
    event_type: d.event_type,
    status: d.status,
    attempts: d.attempts,
    last_status_code: d.last_status_code,
    last_error: d.last_error,
    created_at: d.created_at.toISOString(),
    finished_at: d.finished_at?.toISOString() ?? null,
  };
}

/**
 * One line per write, for the account's audit trail: who (account, key), what,
 * which subscription, when. Never the secret, the URL (it may carry a token in
 * its path or query) or the body.
 */
function audit(request: FastifyRequest, action: string, subscriptionId: string, extra: Record<string, unknown> = {}): void {
  request.log.info(
    {
      audit: {
        account_id: request.apiKey!.accountId,
        key_id: request.apiKey!.id,
        action,
        subscription_id: subscriptionId,
        at: new Date().toISOString(),
        ...extra,
      },
    },
    'webhook subscription change',
  );
}

const scope = (request: FastifyRequest) => request.apiKey!.accountId;

const writeConfig = { requiredScope: 'webhooks:write' as const, acceptsBody: true };
/** A POST whose body may be left out (sent as none, it is read as {}). */
const optionalBodyWrite = {
  config: writeConfig,
  bodyLimit: WEBHOOK_BODY_LIMIT,
  preValidation: async (request: FastifyRequest) => {
    request.body ??= {};
  },
};
const readConfig = { requiredScope: 'webhooks:write' as const };
const idempotencyHeader = {
  headers: Type.Object({
    'idempotency-key': Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 255,
        description: 'Any unique string (a UUID): the same key and body within 24 h get the first answer again',
      }),
    ),
  }),
};

export const webhookRoutes: FastifyPluginAsyncTypebox<{ webhooks?: WebhookRoutesDeps }> = async (app, { webhooks }) => {
  // JSON only: without the text/plain parser, any other content type is a 415.
  app.removeContentTypeParser('text/plain');
  // Many HTTP clients send "Content-Type: application/json" on every request, bodiless ones
  // too: an empty body is no body (Fastify's parser answered 400 "Body cannot be empty"), and
  // anything else goes to Fastify's own parser, which keeps its prototype-poisoning guard.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text === '') return done(null, undefined);
    return parseJson(request, text, done);
  });
  app.setValidatorCompiler<TSchema>(strictJsonValidator);
  app.setErrorHandler((error, request) => {
    // The key belongs to the request that made a subscription: this refusal must not take its place in Redis.
    if (error instanceof IdempotencyKeyReusedError && request.idempotencyClaim) request.idempotencyClaim.keep = false;
    // The service's refusals are Refusals (webhook-errors.ts): errors.plugin answers each with its problem.
    throw error;
  });
  app.addHook('onSend', async (_request, reply: FastifyReply, payload) => {
    // A create or rotate answer holds a secret: no cache anywhere may keep any of these.
    reply.header('cache-control', 'no-store');
    return payload;
  });

  const service = (): WebhookService => {
    if (!webhooks) throw new ProblemError(problem('unavailable', 'Webhook management is not configured on this web process.'));
    return webhooks.service;
  };
  if (webhooks) registerIdempotency(app, webhooks.idempotency);

  app.post(
    BASE,
    {
      config: writeConfig,
      bodyLimit: WEBHOOK_BODY_LIMIT,
      schema: {
        tags: ['webhooks'],
        operationId: 'createWebhook',
        summary: 'Subscribe a URL to the insights that match your criteria; the answer holds the signing secret, shown only this once',
        body: WebhookCreateBody,
        ...idempotencyHeader,
        response: { 201: WebhookCreatedSchema, ...errorResponses(400, 401, 403, 409, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      const claim = request.idempotencyClaim;
      const created = await service().create(
        scope(request),
        request.body,
        scope(request),
        claim && { keyHash: claim.keyHash, fingerprint: claim.fingerprint },
      );
      // A retry whose first answer was lost gets what the first made, as a kept answer would be sent.
      if (created.madeBefore) reply.header('idempotent-replayed', 'true');
      else audit(request, 'create', created.row.id);
      reply.code(201).header('location', `/api/webhooks/${created.row.id}`).header('etag', subscriptionEtag(created.row));
      return { data: { ...subscriptionDto(created.row), secret: created.secret }, warnings: created.warnings };
    },
  );

  app.get(
    BASE,
    {
      config: readConfig,
      schema: {
        tags: ['webhooks'],
        operationId: 'listWebhooks',
        summary: "Your account's webhook subscriptions, oldest first",
        response: { 200: WebhookListSchema, ...errorResponses(401, 403, 429) },
      },
    },
    async (request) => ({ data: (await service().list(scope(request))).map(subscriptionDto), next_cursor: null }),
  );

  app.get(
    `${BASE}/:id`,
    {
      config: readConfig,
      schema: {
        tags: ['webhooks'],
        operationId: 'getWebhook',
        summary:
          'One subscription: criteria, state (enabled, why disabled, failing since) and its 20 newest deliveries; the ETag is for If-Match',
        params: WebhookIdParams,
        response: { 200: WebhookShowSchema, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      const { row, deliveries } = await service().show(scope(request), request.params.id);
      reply.header('etag', subscriptionEtag(row));
      return { data: { ...subscriptionDto(row), recent_deliveries: deliveries.map(deliveryDto) } };
    },
  );

  app.patch(
    `${BASE}/:id`,
    {
      config: writeConfig,
      bodyLimit: WEBHOOK_BODY_LIMIT,
      schema: {
        tags: ['webhooks'],
        operationId: 'updateWebhook',
        summary:
          'Change the criteria, the URL, or pause and resume (enabled); the fields sent replace theirs, the others stay. With If-Match, only if unchanged since',
        params: WebhookIdParams,
        headers: Type.Object({
          'if-match': Type.Optional(
            Type.String({
              minLength: 1,
              maxLength: 1024,
              description: 'The ETag you read: the change is made only if the subscription is still that version (else 412)',
            }),
          ),
        }),
        body: WebhookUpdateBody,
        response: { 200: WebhookUpdatedSchema, ...errorResponses(400, 401, 403, 404, 409, 412, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      const ifMatch = request.headers['if-match'];
      const updated = await service().update(
        scope(request),
        request.params.id,
        request.body,
        typeof ifMatch === 'string' ? ifMatch : undefined,
      );
      audit(request, 'update', updated.row.id, { fields: Object.keys(request.body) });
      reply.header('etag', subscriptionEtag(updated.row));
      return { data: subscriptionDto(updated.row), warnings: updated.warnings };
    },
  );

  app.delete(
    `${BASE}/:id`,
    {
      config: readConfig,
      schema: {
        tags: ['webhooks'],
        operationId: 'deleteWebhook',
        summary: 'Delete a subscription and its delivery log; nothing more is sent to it',
        params: WebhookIdParams,
        response: { 204: Type.Null({ description: 'Deleted' }), ...errorResponses(400, 401, 403, 404, 409, 429) },
      },
    },
    async (request, reply) => {
      await service().remove(scope(request), request.params.id);
      audit(request, 'delete', request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    `${BASE}/:id/test`,
    {
      ...optionalBodyWrite,
      schema: {
        tags: ['webhooks'],
        operationId: 'testWebhook',
        summary: 'Send a signed ping event to this subscription now (whatever its criteria); see its delivery in the log',
        params: WebhookIdParams,
        body: NoBody,
        ...idempotencyHeader,
        response: { 202: WebhookPingSchema, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      const sent = await service().ping(scope(request), request.params.id);
      audit(request, 'test', request.params.id);
      reply.code(202);
      return { data: { event_id: sent.eventId, delivery_id: sent.deliveryId } };
    },
  );

  app.post(
    `${BASE}/:id/rotate`,
    {
      ...optionalBodyWrite,
      schema: {
        tags: ['webhooks'],
        operationId: 'rotateWebhookSecret',
        summary:
          'A new signing secret, shown only in this answer; during the overlap every delivery is signed with both, so switch your receiver within it',
        params: WebhookIdParams,
        body: WebhookRotateBody,
        ...idempotencyHeader,
        response: { 200: WebhookRotatedSchema, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429) },
      },
    },
    async (request) => {
      const { row, secret } = await service().rotate(scope(request), request.params.id, request.body.overlap_hours);
      audit(request, 'rotate-secret', row.id);
      return { data: { id: row.id, secret, previous_secret_expires_at: row.previous_secret_expires_at!.toISOString() } };
    },
  );

  app.get(
    `${BASE}/:id/deliveries`,
    {
      config: readConfig,
      schema: {
        tags: ['webhooks'],
        operationId: 'listWebhookDeliveries',
        summary: "This subscription's delivery log, newest first, a page at a time (next_cursor)",
        params: WebhookIdParams,
        querystring: WebhookDeliveriesQuery,
        response: { 200: WebhookDeliveryListSchema, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const page = await service().deliveries(scope(request), request.params.id, {
        limit: request.query.limit,
        ...(request.query.cursor !== undefined ? { cursor: request.query.cursor } : {}),
      });
      return { data: page.rows.map(deliveryDto), next_cursor: page.nextCursor };
    },
  );

  app.post(
    `${BASE}/:id/deliveries/:deliveryId/replay`,
    {
      ...optionalBodyWrite,
      schema: {
        tags: ['webhooks'],
        operationId: 'replayWebhookDelivery',
        summary: 'Send one delivery again, with its original webhook-id (receivers deduplicate on it)',
        params: WebhookDeliveryParams,
        body: NoBody,
        ...idempotencyHeader,
        response: { 202: WebhookReplayedSchema, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      const result = await service().replayOne(scope(request), request.params.id, request.params.deliveryId);
      audit(request, 'replay', request.params.id, { deliveries: result.replayed.length });
      reply.code(202);
      return {
        data: { replayed: result.replayed, truncated: result.truncated, pending: result.pending, remaining_today: result.remainingToday },
      };
    },
  );

  app.post(
    `${BASE}/:id/replay`,
    {
      config: writeConfig,
      bodyLimit: WEBHOOK_BODY_LIMIT,
      schema: {
        tags: ['webhooks'],
        operationId: 'replayWebhookDeliveries',
        summary:
          "Send again the deliveries made in a time window, oldest first, each with its original webhook-id: at most WEBHOOK_REPLAY_MAX_PER_CALL (100) a call and what is left of your plan's replays and pings today; those still pending are not sent twice",
        params: WebhookIdParams,
        body: WebhookReplayBody,
        ...idempotencyHeader,
        response: { 202: WebhookReplayedSchema, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      const result = await service().replayRange(scope(request), request.params.id, request.body.since, request.body.until);
      audit(request, 'replay', request.params.id, { deliveries: result.replayed.length });
      reply.code(202);
      return {
        data: { replayed: result.replayed, truncated: result.truncated, pending: result.pending, remaining_today: result.remainingToday },
      };
    },
  );
};
