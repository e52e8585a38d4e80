// What a webhook subscription may be: the rules the CLI and /api/webhooks share
// (src/domain/webhooks/subscription-input.ts), each refusal naming its field.
import { describe, expect, it } from 'vitest';
import {
  checkCriteria,
  checkTimeRange,
  checkWebhookUrl,
  decodeDeliveryCursor,
  encodeDeliveryCursor,
  SubscriptionInputError,
} from '../../src/domain/webhooks/subscription-input.js';
import { ifMatchAllows } from '../../src/webhooks/webhook-service.js';
import { newId } from '../../src/domain/ids.js';

function refusal(fn: () => unknown): SubscriptionInputError {
  try {
    fn();
  } catch (error) {
    if (error instanceof SubscriptionInputError) return error;
    throw error;
  }
  throw new Error('no refusal');
}

describe('checkWebhookUrl', () => {
  it('accepts http and https, normalised', () => {
    expect(checkWebhookUrl('https://Example.com/hooks')).toBe('https://example.com/hooks');
    expect(checkWebhookUrl('http://10.0.0.1:8080/x?y=1')).toBe('http://10.0.0.1:8080/x?y=1');
  });
  it.each([
    ['', /1–2048 characters/],
    ['x'.repeat(2049), /1–2048 characters/],
    ['not a url', /not a URL/],
    ['ftp://example.com', /http:\/\/ or https:\/\//],
    ['javascript:alert(1)', /http:\/\/ or https:\/\//],
    ['https://u:p@example.com', /credentials/],
    ['https://example.com/\u0000', /control character U\+0000/],
    ['https://example.com/\u202e', /control character U\+202E/],
  ])('refuses %j naming url', (url, reason) => {
    const error = refusal(() => checkWebhookUrl(url));
    expect(error.field).toBe('url');
    expect(error.message).toMatch(reason);
  });
});

describe('checkCriteria', () => {
  it('leaves out what was not given (an update changes only those) and cleans what was', () => {
    expect(checkCriteria({})).toEqual({});
    expect(
      checkCriteria({
        min_score: null,
        keywords: [' Violin ', 'violin', '', 'Sheet Music'],
        categories: ['computers-electronics', 'computers-electronics'],
        events: ['ping'],
      }),
    ).toEqual({
      minScore: null,
      keywords: ['violin', 'sheet music'],
      categories: ['computers-electronics'],
      eventTypes: ['ping'],
    });
    expect(checkCriteria({ min_score: 0 }).minScore).toBe(0);
    expect(checkCriteria({ min_score: 1 }).minScore).toBe(1);
  });
  it.each([
    [{ min_score: -0.1 }, 'min_score'],
    [{ min_score: 1.01 }, 'min_score'],
    [{ min_score: Number.NaN }, 'min_score'],
    [{ min_score: Number.POSITIVE_INFINITY }, 'min_score'],
    [{ categories: ['spaceships'] }, 'categories'],
    [{ sources: ['twitter'] }, 'sources'],
    [{ events: ['insight.deleted'] }, 'events'],
    [{ keywords: Array.from({ length: 51 }, (_, i) => `k${i}`) }, 'keywords'],
    [{ keywords: ['k'.repeat(101)] }, 'keywords'],
    [{ keywords: ['bell\u0007'] }, 'keywords'],
  ])('refuses %j naming %s', (input, field) => {
    expect(refusal(() => checkCriteria(input)).field).toBe(field);
  });
  it('lists what is allowed and never echoes a control character', () => {
    const error = refusal(() => checkCriteria({ categories: ['\u001b[31mred'] }));
    expect(error.allowed).toContain('computers-electronics');
    expect(error.message).not.toMatch(/\u001b/);
  });
});

describe('checkTimeRange', () => {
  it('parses since and an optional later until', () => {
    expect(checkTimeRange('2026-11-22T00:00:00Z', undefined)).toEqual({ since: new Date('2026-11-22T00:00:00Z'), until: null });
    expect(checkTimeRange('2026-11-22T00:00:00Z', '2026-11-23T00:00:00Z').until).toEqual(new Date('2026-11-23T00:00:00Z'));
  });
  it.each([
    ['yesterday', undefined, 'since'],
    ['2026-11-22T00:00:00Z', 'soon', 'until'],
    ['2026-11-22T00:00:00Z', '2026-11-22T00:00:00Z', 'until'],
  ])('refuses since=%j until=%j naming %s', (since, until, field) => {
    expect(refusal(() => checkTimeRange(since, until)).field).toBe(field);
  });
});

describe('delivery cursors', () => {
  it('round-trip, and refuse anything else naming cursor', () => {
    const position = { createdKey: '2026-11-24 13:20:01.123456+00', id: newId('delivery') };
    expect(decodeDeliveryCursor(encodeDeliveryCursor(position))).toEqual(position);
    for (const bad of [
      '',
      'x',
      Buffer.from('[1,2]').toString('base64url'),
      Buffer.from(JSON.stringify(["2026-11-24'; drop table x", position.id])).toString('base64url'),
    ]) {
      expect(refusal(() => decodeDeliveryCursor(bad)).field).toBe('cursor');
    }
  });
});

describe('If-Match', () => {
  it('matches the strong tag, a list holding it, or *; never a weak or other tag', () => {
    expect(ifMatchAllows('"abc"', '"abc"')).toBe(true);
    expect(ifMatchAllows('"x", "abc"', '"abc"')).toBe(true);
    expect(ifMatchAllows('*', '"abc"')).toBe(true);
    expect(ifMatchAllows('W/"abc"', '"abc"')).toBe(false);
    expect(ifMatchAllows('"abd"', '"abc"')).toBe(false);
  });
});
