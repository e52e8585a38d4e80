// Opaque keyset cursors for GET /api/insights. A cursor remembers the sort it
// was made for and the last row's sort key; clients must treat it as opaque.
import type { InsightSort } from './catalog.js';

export interface InsightCursor {
  sort: InsightSort;
  /** The last row's sort value: a score, or an ISO timestamp. */
  value: number | string;
  id: string;
}

export function encodeCursor(cursor: InsightCursor): string {
  return Buffer.from(JSON.stringify([cursor.sort, cursor.value, cursor.id])).toString('base64url');
}

export class InvalidCursorError extends Error {}

/** Throws InvalidCursorError for anything we did not produce for this sort. */
export function decodeCursor(raw: string, sort: InsightSort): InsightCursor {
  let parsed: unknown;
  try {
    if (!/^[A-Za-z0-9_-]{1,512}$/.test(raw)) throw new Error('not base64url');
    parsed = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    throw new InvalidCursorError('cursor is not a value returned as next_cursor');
  }
  if (!Array.isArray(parsed) || parsed.length !== 3) {
    throw new InvalidCursorError('cursor is not a value returned as next_cursor');
  }
  const [cursorSort, value, id] = parsed as unknown[];
  if (cursorSort !== sort) {
    throw new InvalidCursorError(`cursor was made for sort=${String(cursorSort)}, not sort=${sort}`);
  }
  if (typeof id !== 'string' || id.length > 64) {
    throw new InvalidCursorError('cursor is not a value returned as next_cursor');
  }
  if (sort === 'score') {
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      throw new InvalidCursorError('cursor is not a value returned as next_cursor');
    }
  } else if (typeof value !== 'string' || Number.isNaN(Date.parse(value))) {
    throw new InvalidCursorError('cursor is not a value returned as next_cursor');
  }
  return { sort, value, id };
}
