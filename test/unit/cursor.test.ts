import { describe, expect, it } from 'vitest';
import {
  CURSOR_MAX_LENGTH,
  decodeCreatedCursor,
  decodeCursor,
  encodeCreatedCursor,
  encodeCursor,
  encodeKeyset,
  InvalidCursorError,
} from '../../src/domain/cursor.js';
import { decodeDeliveryCursor, encodeDeliveryCursor, SubscriptionInputError } from '../../src/domain/webhooks/subscription-input.js';
import { InsightListQuery } from '../../src/http/schemas/insights.js';
import { WebhookDeliveriesQuery } from '../../src/http/schemas/webhooks.js';
import { newId } from '../../src/domain/ids.js';

const id = newId('insight');
const craft = (value: unknown[]) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('keyset cursors', () => {
  it('round-trip for every sort', () => {
    const score = { sort: 'score' as const, value: 0.731, id };
    expect(decodeCursor(encodeCursor(score), 'score')).toEqual(score);
    const newest = { sort: 'newest' as const, value: '2026-11-22T10:00:00.000Z', id };
    expect(decodeCursor(encodeCursor(newest), 'newest')).toEqual(newest);
  });

  it('refuse a sort=score cursor made before it listed complete insights, then live research, first (it would start mid-list)', () => {
    expect(() => decodeCursor(craft(['score', 0.793, id]), 'score')).toThrow(/made before sort=score listed complete insights first/);
    expect(() => decodeCursor(craft(['score:rank', 1.5, id]), 'score')).toThrow(
      /made before sort=score listed research on live data first/,
    );
    expect(decodeCursor(craft(['score:tier', 7.5, id]), 'score')).toEqual({ sort: 'score', value: 7.5, id });
  });

  it('refuse a cursor made for another sort', () => {
    const cursor = encodeCursor({ sort: 'score', value: 0.5, id });
    expect(() => decodeCursor(cursor, 'newest')).toThrow(/sort=score/);
  });

  it('refuse garbage, tampered values and well-formed cursors with hostile contents', () => {
    const forScore = [
      '',
      '!!!',
      'e30',
      'a'.repeat(600),
      craft(['score:tier', 'DROP TABLE', id]),
      craft(['score:tier', 1e308 * 10, id]),
      craft(['score:tier', -0.5, id]),
      craft(['score:tier', 9, id]),
      craft(['score:tier', 0.5, 'ins_\u0000aaaaaaaaaaaaaaaaaaa']),
      craft(['score:tier', 0.5, 'ins_abc']),
      craft(['score:tier', 0.5, 42]),
      craft(['score:tier', 0.5, id, 'extra']),
    ];
    const forNewest = [
      craft(['newest', 'not a date', id]),
      craft(['newest', '-271821-04-20T00:00:00.000Z', id]),
      craft(['newest', '+275760-09-13T00:00:00.000Z', id]),
      craft(['newest', '2026-02-31T00:00:00.000Z', id]),
      craft(['newest', '2026-11-22T10:00:00.000Z\u0000', id]),
      craft(['newest', '1969-12-31T23:59:59.999Z', id]),
      craft(['newest', 1700000000000, id]),
    ];
    for (const raw of forScore) expect(() => decodeCursor(raw, 'score'), raw).toThrow(InvalidCursorError);
    for (const raw of forNewest) expect(() => decodeCursor(raw, 'newest'), raw).toThrow(InvalidCursorError);
  });
});

describe('one cursor codec for every list', () => {
  const runId = newId('run');
  const deliveryId = newId('delivery');

  it('round-trips the research list cursor and refuses what it did not make', () => {
    const at = new Date('2026-11-28T10:00:00.123Z');
    expect(decodeCreatedCursor(encodeCreatedCursor({ createdAt: at, id: runId }), 'run')).toEqual({ createdAt: at, id: runId });
    for (const raw of [
      '',
      '!!!',
      craft(['2026-02-30T00:00:00.000Z', runId]),
      craft(['2026-11-28T10:00:00.123Z', id]),
      craft(['2026-11-28T10:00:00.123Z', runId, 'extra']),
      craft([1764324000123, runId]),
    ])
      expect(() => decodeCreatedCursor(raw, 'run'), raw).toThrow(InvalidCursorError);
  });

  it('holds every list to one length limit, in the codec and in each route schema', () => {
    // The longest cursors the lists write stay well under it.
    const longest = [
      encodeCursor({ sort: 'score', value: 6.123456789012345, id }),
      encodeCreatedCursor({ createdAt: new Date('2026-11-28T10:00:00.123Z'), id: runId }),
      encodeDeliveryCursor({ createdKey: '2026-11-28 10:00:00.123456+05:30', id: deliveryId }),
    ];
    for (const cursor of longest) expect(cursor.length).toBeLessThan(CURSOR_MAX_LENGTH / 2);
    // A cursor over the limit is refused whatever it holds (padding JSON with spaces keeps it valid).
    const padded = (value: unknown[]) => Buffer.from(JSON.stringify(value) + ' '.repeat(CURSOR_MAX_LENGTH)).toString('base64url');
    expect(() => decodeCursor(padded(['newest', '2026-11-22T10:00:00.000Z', id]), 'newest')).toThrow(InvalidCursorError);
    expect(() => decodeCreatedCursor(padded(['2026-11-22T10:00:00.000Z', runId]), 'run')).toThrow(InvalidCursorError);
    expect(() => decodeDeliveryCursor(padded(['2026-11-28 10:00:00.123456+00', deliveryId]))).toThrow(SubscriptionInputError);
    expect(InsightListQuery.properties.cursor.maxLength).toBe(CURSOR_MAX_LENGTH);
    expect(WebhookDeliveriesQuery.properties.cursor.maxLength).toBe(CURSOR_MAX_LENGTH);
  });

  it('encodes every list the same way: a base64url JSON array of the sort key(s) and the id', () => {
    const at = new Date('2026-11-28T10:00:00.123Z');
    expect(encodeCreatedCursor({ createdAt: at, id: runId })).toBe(encodeKeyset([at.toISOString(), runId]));
    expect(encodeDeliveryCursor({ createdKey: '2026-11-28 10:00:00+00', id: deliveryId })).toBe(
      encodeKeyset(['2026-11-28 10:00:00+00', deliveryId]),
    );
    expect(decodeDeliveryCursor(encodeDeliveryCursor({ createdKey: '2026-11-28 10:00:00+00', id: deliveryId }))).toEqual({
      createdKey: '2026-11-28 10:00:00+00',
      id: deliveryId,
    });
  });
});
