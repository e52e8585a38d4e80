import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { classifyAddress, refusal } from '../../src/domain/webhooks/address-policy.js';
import {
  eventText,
  matches,
  SubscriptionIndex,
  type MatchableEvent,
  type SubscriptionCriteria,
} from '../../src/domain/webhooks/matching.js';
import { MAX_ATTEMPTS, retryDelayMs } from '../../src/domain/webhooks/retry.js';
import { generateWebhookSecret, isWebhookSecret, signatureHeader } from '../../src/domain/webhooks/signing.js';

describe('Standard Webhooks signing', () => {
  it('verifies with the reference library (standardwebhooks)', () => {
    const secret = generateWebhookSecret();
    expect(isWebhookSecret(secret)).toBe(true);
    const body = JSON.stringify({ type: 'insight.created', data: { id: 'ins_x', score: 0.8 } });
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = {
      'webhook-id': 'evt_123',
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signatureHeader([secret], 'evt_123', timestamp, body),
    };
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(generateWebhookSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(secret).verify(`${body} `, headers)).toThrow();
  });

  it('signs with old and new secrets during a rotation, and either verifies', () => {
    const [oldSecret, newSecret] = [generateWebhookSecret(), generateWebhookSecret()];
    const body = '{"a":1}';
    const ts = Math.floor(Date.now() / 1000);
    const header = signatureHeader([newSecret, oldSecret], 'evt_1', ts, body);
    expect(header.split(' ')).toHaveLength(2);
    for (const s of [oldSecret, newSecret]) {
      expect(new Webhook(s).verify(body, { 'webhook-id': 'evt_1', 'webhook-timestamp': String(ts), 'webhook-signature': header })).toEqual({
        a: 1,
      });
    }
  });
});

describe('outbound address policy', () => {
  it.each([
    ['8.8.8.8', 'public'],
    ['2606:4700:4700::1111', 'public'],
    ['10.1.2.3', 'private'],
    ['172.20.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['fd12::1', 'private'],
    ['127.0.0.1', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['169.254.1.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['100.64.0.1', 'cgnat'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['169.254.169.254', 'metadata'],
    ['0.0.0.0', 'unspecified'],
    ['198.18.0.1', 'reserved'],
  ])('%s is %s', (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
    const policy = { allowPrivate: false, allowedCidrs: [] };
    if (kind === 'public') expect(refusal(address, policy)).toBeNull();
    else expect(refusal(address, policy)).toMatch(new RegExp(`${kind} address`));
  });

  it('lets WEBHOOK_ALLOW_PRIVATE and WEBHOOK_ALLOWED_CIDRS through, but never cloud metadata unless listed', () => {
    expect(refusal('10.0.0.5', { allowPrivate: true, allowedCidrs: [] })).toBeNull();
    expect(refusal('127.0.0.1', { allowPrivate: false, allowedCidrs: ['127.0.0.1/32'] })).toBeNull();
    expect(refusal('127.0.0.2', { allowPrivate: false, allowedCidrs: ['127.0.0.1/32'] })).not.toBeNull();
    expect(refusal('169.254.169.254', { allowPrivate: true, allowedCidrs: [] })).toMatch(/metadata/);
    expect(refusal('169.254.169.254', { allowPrivate: false, allowedCidrs: ['169.254.169.254/32'] })).toBeNull();
  });
});

describe('retry schedule', () => {
  it('is immediate, then about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, with ±10 % jitter', () => {
    expect(MAX_ATTEMPTS).toBe(8);
    expect([1, 2, 3, 4, 5, 6, 7, 8].map((a) => retryDelayMs(a, () => 0.5))).toEqual([
      0, 5000, 300000, 1800000, 7200000, 18000000, 36000000, 36000000,
    ]);
    expect(retryDelayMs(2, () => 0)).toBe(4500);
    expect(retryDelayMs(2, () => 1)).toBe(5500);
  });
});

describe('subscription matching', () => {
  const event = (over: Partial<MatchableEvent> = {}): MatchableEvent => ({
    type: 'insight.created',
    category: 'fintech',
    source: 'research',
    score: 0.7,
    text: eventText(['Budget app for freelance designers', 'freelance budget']),
    ...over,
  });
  const sub = (over: Partial<SubscriptionCriteria> = {}): SubscriptionCriteria => ({
    id: 's',
    minScore: null,
    categories: [],
    sources: [],
    keywords: [],
    eventTypes: [],
    ...over,
  });

  it('applies every criterion, empty meaning any', () => {
    expect(matches(sub(), event())).toBe(true);
    expect(matches(sub({ minScore: 0.8 }), event())).toBe(false);
    expect(matches(sub({ minScore: 0.7 }), event())).toBe(true);
    expect(matches(sub({ categories: ['health'] }), event())).toBe(false);
    expect(matches(sub({ sources: ['discovery'] }), event())).toBe(false);
    expect(matches(sub({ keywords: ['freelance budget'] }), event())).toBe(true);
    expect(matches(sub({ keywords: ['free'] }), event())).toBe(false); // whole words
    expect(matches(sub({ eventTypes: ['insight.updated'] }), event())).toBe(false);
  });

  it('finds exactly what a full scan finds (property test)', () => {
    const categories = ['fintech', 'health', 'ai-ml', 'devtools'];
    const subArb = fc.record({
      id: fc.uuid(),
      minScore: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: null }),
      categories: fc.subarray(categories, { maxLength: 2 }),
      sources: fc.subarray(['research', 'discovery'], { maxLength: 1 }),
      keywords: fc.subarray(['budget', 'app', 'sleep', 'budget app', 'ai agent', 'a very long keyword phrase'], { maxLength: 2 }),
      eventTypes: fc.subarray(['insight.created', 'insight.updated'], { maxLength: 1 }),
    });
    const eventArb = fc.record({
      type: fc.constantFrom('insight.created', 'insight.updated'),
      category: fc.constantFrom(...categories),
      source: fc.constantFrom('research', 'discovery'),
      score: fc.double({ min: 0, max: 1, noNaN: true }),
      text: fc.constantFrom('budget app', 'sleep tracker', 'ai agent', 'a very long keyword phrase here', 'budget'),
    });
    fc.assert(
      fc.property(fc.uniqueArray(subArb, { maxLength: 60, selector: (s) => s.id }), eventArb, (subs, e) => {
        const naive = subs
          .filter((s) => matches(s, e))
          .map((s) => s.id)
          .sort();
        expect(new SubscriptionIndex(subs).match(e).sort()).toEqual(naive);
      }),
      { numRuns: 1000 },
    );
  });
});
