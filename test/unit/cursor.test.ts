import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, InvalidCursorError } from '../../src/domain/cursor.js';
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
