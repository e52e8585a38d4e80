// Opaque keyset cursors, for every list that pages (GET /api/insights and the
// account's insight pages, GET /api/research, a webhook's delivery log): one
// encoding (a JSON array of the last row's sort key and id, base64url) and one
// limit, CURSOR_MAX_LENGTH, which each route's schema uses too. A cursor
// remembers what it was made for; clients must treat it as opaque. Decoding
// accepts exactly what the encoder produces and nothing else: every value is
// checked where it enters, so nothing reaches Postgres that Postgres would
// reject (an out-of-range date, a NUL byte, a non-finite number). A refusal is
// an InvalidCursorError, which a route answers as a 400 naming `cursor`.
import { isDimensionSort, type InsightSort } from './catalog.js';
import { isId, type IdKind } from './ids.js';
import { MAX_RANK_KEY } from './provenance.js';

/**
 * The longest cursor any list accepts (its schema's maxLength, and the codec's own check). The
 * longest a list writes is under 120 characters (a delivery's: Postgres's microsecond timestamp
 * with its offset, and the id); twice that leaves room to add a field without a new limit.
 */
export const CURSOR_MAX_LENGTH = 256;

/** Why a cursor is refused, worded to follow the parameter's name ("cursor is not …"). */
export class InvalidCursorError extends Error {
  constructor(readonly reason: string) {
    super(`cursor ${reason}`);
  }
}

const notOurs = () => new InvalidCursorError('is not a value returned as next_cursor');

/** A cursor carrying `parts` (the last row's sort key(s), then its id). */
export function encodeKeyset(parts: ReadonlyArray<string | number>): string {
  return Buffer.from(JSON.stringify(parts)).toString('base64url');
}

/** The `arity` parts of a cursor encodeKeyset made, unchecked beyond that; throws InvalidCursorError for anything else. */
export function decodeKeyset(raw: string, arity: number): unknown[] {
  let parsed: unknown;
  try {
    if (raw.length > CURSOR_MAX_LENGTH || !/^[A-Za-z0-9_-]+$/.test(raw)) throw new Error('not base64url');
    parsed = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    throw notOurs();
  }
  if (!Array.isArray(parsed) || parsed.length !== arity) throw notOurs();
  return parsed as unknown[];
}

// What Date#toISOString() writes for the years rows can have.
const ISO_TIMESTAMP = /^(19[7-9]\d|2\d{3})-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The instant `value` names, if it is exactly what Date#toISOString() wrote (2026-02-30 would come back as 2026-03-02). */
function isoInstant(value: unknown): Date | undefined {
  const time = typeof value === 'string' && ISO_TIMESTAMP.test(value) ? Date.parse(value) : Number.NaN;
  return Number.isFinite(time) && new Date(time).toISOString() === value ? new Date(time) : undefined;
}

/** A list paged newest first by creation time, then id (GET /api/research). */
export interface CreatedCursor {
  createdAt: Date;
  id: string;
}

export function encodeCreatedCursor(cursor: CreatedCursor): string {
  return encodeKeyset([cursor.createdAt.toISOString(), cursor.id]);
}

/** Throws InvalidCursorError for anything encodeCreatedCursor did not make for an id of `kind`. */
export function decodeCreatedCursor(raw: string, kind: IdKind): CreatedCursor {
  const [at, id] = decodeKeyset(raw, 2);
  const createdAt = isoInstant(at);
  if (createdAt === undefined || typeof id !== 'string' || !isId(kind, id)) throw notOurs();
  return { createdAt, id };
}

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
  return encodeKeyset([tagOf(cursor.sort), cursor.value, cursor.id]);
}

/** Throws InvalidCursorError for anything we did not produce for this sort. */
export function decodeCursor(raw: string, sort: InsightSort): InsightCursor {
  const [cursorSort, value, id] = decodeKeyset(raw, 3);
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
    if (isoInstant(value) === undefined) throw notOurs();
  }
  return { sort, value: value as number | string, id }; // checked above, per sort
}
