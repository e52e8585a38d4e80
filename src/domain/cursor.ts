// Opaque keyset cursors for GET /api/insights. A cursor remembers the sort it
// was made for and the last row's sort key; clients must treat it as opaque.
// Decoding accepts exactly what encodeCursor produces and nothing else: every
// value is checked where it enters, so nothing reaches Postgres that Postgres
// would reject (an out-of-range date, a NUL byte, a non-finite number).
import { isDimensionSort, type InsightSort } from './catalog.js';
import { isId } from './ids.js';
import { MAX_RANK_KEY } from './provenance.js';

export interface InsightCursor {
  sort: InsightSort;
  /** The last row's sort value: a score (a dimension's is −1 when unscored), or an ISO timestamp. */
  value: number | string;
  id: string;
}

/**
 * What a cursor names its sort: `score` pages by the rank key since 2026-11-27
 * (complete insights first) and by provenance above it since 2026-11-28 (live
 * research first), so its cursors say so, and one made before either is
 * refused instead of starting mid-list.
 */
const SORT_TAGS: Partial<Record<InsightSort, string>> = { score: 'score:tier' };
const tagOf = (sort: InsightSort) => SORT_TAGS[sort] ?? sort;

export function encodeCursor(cursor: InsightCursor): string {
  return Buffer.from(JSON.stringify([tagOf(cursor.sort), cursor.value, cursor.id])).toString('base64url');
}

/** Why a cursor is refused, worded to follow the parameter's name ("cursor is not …"). */
export class InvalidCursorError extends Error {
  constructor(readonly reason: string) {
    super(`cursor ${reason}`);
  }
}

// What Date#toISOString() writes for the years rows can have.
const ISO_TIMESTAMP = /^(19[7-9]\d|2\d{3})-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const notOurs = () => new InvalidCursorError('is not a value returned as next_cursor');

/** Throws InvalidCursorError for anything we did not produce for this sort. */
export function decodeCursor(raw: string, sort: InsightSort): InsightCursor {
  let parsed: unknown;
  try {
    if (!/^[A-Za-z0-9_-]{1,512}$/.test(raw)) throw new Error('not base64url');
    parsed = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    throw notOurs();
  }
  if (!Array.isArray(parsed) || parsed.length !== 3) throw notOurs();
  const [cursorSort, value, id] = parsed as unknown[];
  if (sort === 'score' && cursorSort === 'score')
    throw new InvalidCursorError('was made before sort=score listed complete insights first (2026-11-27): start again from the first page');
  if (sort === 'score' && cursorSort === 'score:rank')
    throw new InvalidCursorError(
      'was made before sort=score listed research on live data first (2026-11-28): start again from the first page',
    );
  if (cursorSort !== tagOf(sort)) {
    throw new InvalidCursorError(
      `was made for sort=${String(cursorSort)
        .replace(/:(rank|tier)$/, '')
        .slice(0, 20)}, not sort=${sort}`,
    );
  }
  if (typeof id !== 'string' || !isId('insight', id)) throw notOurs();
  if (sort === 'score') {
    // The rank key: a provenance tier (0, 2, 4 or 6), plus 1 when complete, plus overall × confidence.
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > MAX_RANK_KEY) throw notOurs();
  } else if (sort === 'overall') {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1) throw notOurs();
  } else if (isDimensionSort(sort)) {
    if (typeof value !== 'number' || !Number.isFinite(value) || (value !== -1 && (value < 0 || value > 1))) throw notOurs();
  } else {
    // The round trip rejects impossible dates such as 2026-02-31 and 2026-13-01.
    const time = typeof value === 'string' && ISO_TIMESTAMP.test(value) ? Date.parse(value) : Number.NaN;
    if (!Number.isFinite(time) || new Date(time).toISOString() !== value) throw notOurs();
  }
  return { sort, value, id };
}
