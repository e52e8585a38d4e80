// The insight list as every front door reads it (GET /api/insights and its CSV, the account's Insights
// page and its CSV, an MCP server's search): the filters checked and written one way, the repository's
// keyset query, and the next page's cursor. A door parses its own request into InsightListFilters.
import type { Db } from '../db/connection.js';
import { CATEGORY_VALUES, retiredCategoryReason, type InsightSort, type Source } from '../domain/catalog.js';
import { decodeCursor, encodeCursor, InvalidCursorError, type InsightCursor } from '../domain/cursor.js';
import { invalidParameter } from '../domain/refusal.js';
import { TREND_CLASSES } from '../domain/scoring/trend-class.js';
import { listInsights, type InsightFilter, type InsightListRow } from '../insights/insight.repository.js';
import { sortValueOf, toInsightSummaryDto, type InsightSummaryDto, type Viewer } from './insight.view.js';

/** The list's filters, checked: what the repository is asked (the viewer is the door's to add). */
export type InsightListFilters = Omit<InsightFilter, 'viewer'>;

/** The list's query as the API names its parameters (GET /api/insights; an MCP server's search takes the same). */
export interface InsightListQuery {
  limit: number;
  min_score?: number;
  source?: Source;
  category?: string;
  trend_class?: string;
  q?: string;
  geo?: string;
  sort: InsightSort;
  cursor?: string;
}

/** A comma list of allowed values (`category=a,b`), each checked; the refusal names what is allowed. Deduplicated and sorted: a set. */
export function parseList<T extends string>(name: string, raw: string | undefined, allowed: readonly T[]): T[] | undefined {
  if (raw === undefined) return undefined;
  const values = raw.split(',').map((c) => c.trim());
  for (const value of values) {
    if (!(allowed as readonly string[]).includes(value)) {
      // A retired category slug ("fintech") is refused naming the one that replaced it.
      const retired = name === 'category' ? retiredCategoryReason(value) : undefined;
      throw invalidParameter(name, retired ?? `has an unknown value "${value.slice(0, 60)}"`, allowed);
    }
  }
  return [...new Set(values)].sort() as T[];
}

/**
 * The list's parameters checked and written one way (sorted, once each) and the search text with its
 * spacing made plain, before the response cache keys on them: spellings of one request share one entry.
 * Each spelling used to make an entry of its own (5,000 spellings of one category list, 5,000 pages).
 * The query is not yet validated: a parameter given twice is an array here, and the schema refuses it next.
 */
export function normaliseInsightListQuery(query: Record<string, unknown>): void {
  const q = query;
  if (typeof q.geo === 'string') q.geo = q.geo.toUpperCase();
  if (typeof q.category === 'string') q.category = parseList('category', q.category, CATEGORY_VALUES)!.join(',');
  if (typeof q.trend_class === 'string') q.trend_class = parseList('trend_class', q.trend_class, TREND_CLASSES)!.join(',');
  // A blank search stays as it is, for insightListFilters to say so.
  if (typeof q.q === 'string' && q.q.trim() !== '') q.q = q.q.trim().replace(/\s+/g, ' ');
}

/** The API's query as filters; refused (invalidParameter) naming the parameter at fault. */
export function insightListFilters(q: InsightListQuery): InsightListFilters {
  const after = q.cursor !== undefined ? decodeListCursor(q.cursor, q.sort) : undefined;
  const text = q.q?.trim();
  if (q.q !== undefined && !text) throw invalidParameter('q', 'is blank: give at least one word to search for');
  return {
    limit: q.limit,
    minScore: q.min_score,
    source: q.source,
    categories: parseList('category', q.category, CATEGORY_VALUES),
    trendClasses: parseList('trend_class', q.trend_class, TREND_CLASSES),
    text,
    ...(q.geo !== undefined ? { geo: q.geo.toUpperCase() } : {}),
    sort: q.sort,
    ...(after !== undefined ? { after } : {}),
  };
}

/** A cursor read for its sort; refused (invalidParameter `cursor`) when it is not one this list wrote. */
export function decodeListCursor(raw: string, sort: InsightSort): InsightCursor {
  try {
    return decodeCursor(raw, sort);
  } catch (error) {
    if (error instanceof InvalidCursorError) throw invalidParameter('cursor', error.reason);
    throw error;
  }
}

export interface InsightListPage {
  rows: InsightListRow[];
  /** The rows as list entries (GET /api/insights's data). */
  data: InsightSummaryDto[];
  /** The next page's cursor; null on the last page. */
  nextCursor: string | null;
}

/** One page of the list as the viewer sees it: the public catalogue and its account's own private insights. */
export async function listInsightPage(db: Db, filters: InsightListFilters, viewer: Viewer): Promise<InsightListPage> {
  const { rows, hasMore } = await listInsights(db, {
    limit: filters.limit,
    minScore: filters.minScore,
    source: filters.source,
    categories: filters.categories,
    trendClasses: filters.trendClasses,
    text: filters.text,
    ...(filters.geo !== undefined ? { geo: filters.geo } : {}),
    sort: filters.sort,
    after: filters.after,
    viewer: { accountId: viewer.accountId },
  });
  const last = rows.at(-1);
  const nextCursor = hasMore && last ? encodeCursor({ sort: filters.sort, value: sortValueOf(last, filters.sort), id: last.id }) : null;
  return { rows, data: rows.map(toInsightSummaryDto), nextCursor };
}
