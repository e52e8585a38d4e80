// The webhook service's refusals carry their kind (domain/refusal.ts): the API's problem and the Webhooks page's
// status are both read from it, so the two doors cannot answer the same refusal differently.
import { describe, expect, it } from 'vitest';
import { headersOfRefusal, problemOfRefusal, statusOfRefusal } from '../../src/http/api-guard/refusal.js';
import {
  DisabledByOperatorError,
  IdempotencyKeyReusedError,
  PreconditionFailedError,
  SendsExhaustedError,
  SubscriptionDisabledError,
  SubscriptionInputError,
  SubscriptionLimitError,
  WebhookNotFoundError,
} from '../../src/webhooks/webhook-service.js';

describe("the webhook service's refusals", () => {
  it('answer with the status and headers the API documents, whichever door asks', () => {
    const cases = [
      [new SubscriptionInputError('events', '"x" is unknown', ['ping']), 400, {}],
      [new WebhookNotFoundError('subscription', 'whk_1'), 404, {}],
      [new SubscriptionLimitError('acc_1', 'free', 2), 409, {}],
      [new IdempotencyKeyReusedError(), 409, {}],
      [new DisabledByOperatorError('spam'), 409, {}],
      [new SubscriptionDisabledError(null), 409, {}],
      [new PreconditionFailedError('"v2"'), 412, { etag: '"v2"' }],
      [new SendsExhaustedError('spent', 1_500), 429, { 'retry-after': '2' }],
    ] as const;
    for (const [refusal, status, headers] of cases) {
      expect(statusOfRefusal(refusal), refusal.constructor.name).toBe(status);
      expect(headersOfRefusal(refusal), refusal.constructor.name).toEqual(headers);
      const problem = problemOfRefusal(refusal);
      expect(problem.body.status, refusal.constructor.name).toBe(status);
      expect(problem.body.detail).toBe(refusal.message);
      expect(problem.headers).toEqual(headers);
    }
  });

  it('name the refused field as the API always has, and a missing one with a full stop', () => {
    const problem = problemOfRefusal(new SubscriptionInputError('events', '"x" is unknown', ['ping', 'insight.created']));
    expect(problem.body.detail).toBe('events "x" is unknown (allowed: ping, insight.created)');
    expect(problem.body.invalid_params).toEqual([{ name: 'events', reason: '"x" is unknown', allowed: ['ping', 'insight.created'] }]);
    expect(problemOfRefusal(new WebhookNotFoundError('delivery', 'dlv_1')).body.detail).toBe('No webhook delivery has the id "dlv_1".');
  });
});
