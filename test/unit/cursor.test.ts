import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, InvalidCursorError } from '../../src/domain/cursor.js';

describe('keyset cursors', () => {
  it('round-trip for every sort', () => {
    const score = { sort: 'score' as const, value: 0.731, id: 'ins_abc' };
    expect(decodeCursor(encodeCursor(score), 'score')).toEqual(score);
    const newest = { sort: 'newest' as const, value: '2026-11-22T10:00:00.000Z', id: 'ins_x' };
    expect(decodeCursor(encodeCursor(newest), 'newest')).toEqual(newest);
  });

  it('refuse a cursor made for another sort', () => {
    const cursor = encodeCursor({ sort: 'score', value: 0.5, id: 'ins_a' });
    expect(() => decodeCursor(cursor, 'newest')).toThrow(/sort=score/);
  });

  it('refuse garbage and tampered values', () => {
    const tampered = Buffer.from(JSON.stringify(['score', 'DROP TABLE', 'ins_a'])).toString('base64url');
    const badDate = Buffer.from(JSON.stringify(['newest', 'not a date', 'ins_a'])).toString('base64url');
    for (const raw of ['', '!!!', 'e30', tampered, badDate, 'a'.repeat(600)]) {
      expect(() => decodeCursor(raw, raw === badDate ? 'newest' : 'score')).toThrow(InvalidCursorError);
    }
  });
});
