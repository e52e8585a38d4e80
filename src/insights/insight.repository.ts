import { sql, type ExpressionBuilder, type Insertable, type Selectable, type Transaction } from 'kysely';
import type { Db } from '../db/connection.js';
import type { Database, InsightsTable } from '../db/database.js';
import { isDimensionSort, SOURCES, type Category, type InsightSort, type Source } from '../domain/catalog.js';
import type { InsightCursor } from '../domain/cursor.js';
import type { GeographySummary, RelatedSummary } from '../domain/research/served-evidence.js';
import type { SearchVolumeSummary } from '../domain/research/search-volume.js';
import type { PrimaryChoiceSummary } from '../domain/research/phrase-choice.js';
import type { OutlookSummary } from '../domain/forecast/outlook-summary.js';
import type { Dimension, DimensionScores } from '../domain/scoring/dimensions.js';
import { trendClassOf, type TrendClass } from '../domain/scoring/trend-class.js';

/** Generated columns that exist to sort and search by, never read back. */
type DerivedColumn = 'search' | `sort_${Dimension}`;
export type InsightRow = Omit<Selectable<InsightsTable>, DerivedColumn>;

/** Every stored column of an insight, without the derived ones. */
export const INSIGHT_COLUMNS = [
  'id',
  'idea_key',
  'title',
  'idea',
  'primary_keyword',
  'keywords',
  'category',
  'source',
  'overall_score',
  'confidence',
  'dimensions',
  'dimension_scores',
  'summary',
  'status',
  'interest_level',
  'trend_class',
  'related',
  'geography',
  'search_volume',
  'provider',
  'primary_choice',
  'outlook',
  'rank_key',
  'owner_account_id',
  'publisher_account_id',
  'geo',
  'data_from',
  'data_as_of',
  'created_at',
  'updated_at',
] as const satisfies ReadonlyArray<keyof InsightRow>;
export type NewInsight = Omit<
  Insertable<InsightsTable>,
  | 'keywords'
  | 'dimensions'
  | 'dimension_scores'
  | 'related'
  | 'geography'
  | 'search_volume'
  | 'primary_choice'
  | 'outlook'
  | 'trend_class'
  | 'data_from'
  | 'data_as_of'
  | 'created_at'
  | 'updated_at'
> & {
  primary_choice?: PrimaryChoiceSummary | null;
  outlook?: OutlookSummary | null;
  keywords: string[];
  dimensions: DimensionScores;
  related?: RelatedSummary | null;
  geography?: GeographySummary | null;
  search_volume?: SearchVolumeSummary | null;
};
type DbOrTrx = Db | Transaction<Database>;

/**
 * Who may see an insight: the operator sees every one (undefined); an account
 * sees the public catalogue and what it researched privately.
 */
export type InsightViewer = { accountId: string } | undefined;

/**
 * The insights an account may see: public ones, and its own private ones.
 * Every API read of an insight filters by it.
 */
export const visibleTo = (accountId: string) => (eb: ExpressionBuilder<Database, 'insights'>) =>
  eb.or([eb('owner_account_id', 'is', null), eb('owner_account_id', '=', accountId)]);

/**
 * An idea is one insight per market and owner: a private one's account, or a
 * public one's publisher (the account whose public research made it; null: the operator).
 */
export interface IdeaScope {
  geo: string;
  ownerAccountId: string | null;
  /** Of a public insight (ownerAccountId null): its publisher; unset or null, the operator's. */
  publisherAccountId?: string | null;
}

/**
 * Inserts the insight, or updates the existing one for the same idea key,
 * market and owner (researching an idea again refreshes it instead of
 * duplicating it).
 * Returns the id that is stored — the existing one on update.
 */
export async function upsertInsight(db: DbOrTrx, insight: NewInsight): Promise<string> {
  return (await upsertInsightRow(db, insight)).id;
}

/**
 * Inserts the insight, or updates the one with its idea key (which keeps its
 * id); says which, so the caller needs no read first. `xmax = 0` holds only
 * for a freshly inserted row version.
 */
export async function upsertInsightRow(db: DbOrTrx, insight: NewInsight): Promise<{ id: string; created: boolean }> {
  const row = {
    ...insight,
    // The class is momentum's: kept in its own column to filter on.
    trend_class: trendClassOf(insight.dimensions.momentum?.evidence),
    related: insight.related ? JSON.stringify(insight.related) : null,
    geography: insight.geography ? JSON.stringify(insight.geography) : null,
    search_volume: insight.search_volume ? JSON.stringify(insight.search_volume) : null,
    primary_choice: insight.primary_choice ? JSON.stringify(insight.primary_choice) : null,
    outlook: insight.outlook ? JSON.stringify(insight.outlook) : null,
    keywords: JSON.stringify(insight.keywords),
    dimensions: JSON.stringify(insight.dimensions),
    dimension_scores: JSON.stringify(Object.fromEntries(Object.entries(insight.dimensions).map(([name, d]) => [name, d.score]))),
  };
  return db
    .insertInto('insights')
    .values(row)
    .onConflict((oc) =>
      // The unique index of migration 0022: idea key, market, private owner, public publisher ('' for none):
      // research rewrites only the insight its own owner holds, never another account's or the operator's.
      oc.expression(sql`idea_key, geo, (coalesce(owner_account_id, '')), (coalesce(publisher_account_id, ''))`).doUpdateSet((eb) => ({
        title: eb.ref('excluded.title'),
        idea: eb.ref('excluded.idea'),
        primary_keyword: eb.ref('excluded.primary_keyword'),
        keywords: eb.ref('excluded.keywords'),
        category: eb.ref('excluded.category'),
        source: eb.ref('excluded.source'),
        overall_score: eb.ref('excluded.overall_score'),
        confidence: eb.ref('excluded.confidence'),
        dimensions: eb.ref('excluded.dimensions'),
        dimension_scores: eb.ref('excluded.dimension_scores'),
        summary: eb.ref('excluded.summary'),
        status: eb.ref('excluded.status'),
        interest_level: eb.ref('excluded.interest_level'),
        trend_class: eb.ref('excluded.trend_class'),
        related: eb.ref('excluded.related'),
        geography: eb.ref('excluded.geography'),
        search_volume: eb.ref('excluded.search_volume'),
        provider: eb.ref('excluded.provider'),
        primary_choice: eb.ref('excluded.primary_choice'),
        outlook: eb.ref('excluded.outlook'),
        updated_at: sql<Date>`now()`,
      })),
    )
    .returning(['id', sql<boolean>`xmax = 0`.as('created')])
    .executeTakeFirstOrThrow();
}

/**
 * The insight a new research of this idea should update (same idea key), else
 * one researched on the same primary keyword (a different idea; demo insights
 * do not count), in one query; both in the same market and of the same owner.
 */
export async function findInsightForIdea(
  db: DbOrTrx,
  ideaKey: string,
  primaryKeyword: string,
  scope: IdeaScope = { geo: '', ownerAccountId: null },
): Promise<{ id: string; idea: string; sameIdea: boolean } | undefined> {
  const sameIdea = sql<boolean>`${sql.ref('idea_key')} = ${ideaKey}`;
  return db
    .selectFrom('insights')
    .select(['id', 'idea', sameIdea.as('sameIdea')])
    .where('geo', '=', scope.geo)
    .where((eb) => (scope.ownerAccountId === null ? eb('owner_account_id', 'is', null) : eb('owner_account_id', '=', scope.ownerAccountId)))
    .where((eb) =>
      scope.publisherAccountId ? eb('publisher_account_id', '=', scope.publisherAccountId) : eb('publisher_account_id', 'is', null),
    )
    .where((eb) =>
      eb.or([
        eb('idea_key', '=', ideaKey),
        eb.and([eb('primary_keyword', '=', primaryKeyword), eb('source', '<>', SOURCES.recordedSeries)]),
      ]),
    )
    .orderBy(sameIdea, 'desc')
    .limit(1)
    .executeTakeFirst();
}

/**
 * The insight that already answers this idea for this market and viewer: its
 * own private one, else the public one; researched within `since` (a
 * duplicate submission is answered with it instead of a new run).
 */
export async function findRecentInsightForIdea(
  db: DbOrTrx,
  ideaKey: string,
  geo: string,
  viewer: { accountId: string },
  since: Date,
): Promise<InsightRow | undefined> {
  // Its own private one first; of the public ones, its own (which it may refresh) before another's (which it only reads).
  return db
    .selectFrom('insights')
    .select(INSIGHT_COLUMNS)
    .where(visibleTo(viewer.accountId))
    .where('idea_key', '=', ideaKey)
    .where('geo', '=', geo)
    .where('status', '=', 'active')
    .where('updated_at', '>=', since)
    .orderBy(sql`owner_account_id is null`)
    .orderBy(sql`publisher_account_id is distinct from ${viewer.accountId}`)
    .limit(1)
    .executeTakeFirst();
}

export function findInsightQuery(db: DbOrTrx, id: string) {
  return db.selectFrom('insights').select(INSIGHT_COLUMNS).where('id', '=', id);
}

/** The insight's id when it exists and the account may see it (a public one, or its own private one). */
export async function visibleInsightId(db: DbOrTrx, id: string, accountId: string): Promise<string | undefined> {
  return (await db.selectFrom('insights').select('id').where('id', '=', id).where(visibleTo(accountId)).executeTakeFirst())?.id;
}

export async function findInsight(db: DbOrTrx, id: string, viewer?: InsightViewer): Promise<InsightRow | undefined> {
  const query = findInsightQuery(db, id);
  return (viewer ? query.where(visibleTo(viewer.accountId)) : query).executeTakeFirst();
}

export interface InsightFilter {
  limit: number;
  minScore?: number;
  source?: Source;
  categories?: Category[];
  trendClasses?: TrendClass[];
  /** Full-text search over title, idea and keywords (Postgres websearch syntax: words, "phrases", -not, or). */
  text?: string;
  /** Only insights of this market ('' worldwide). */
  geo?: string;
  sort: InsightSort;
  after?: InsightCursor;
  /** Whose list: an account sees the public catalogue and its own private insights; undefined, every insight. */
  viewer?: InsightViewer;
}

/** What a list page shows of each insight: scores, not evidence. */
export const LIST_COLUMNS = [
  'id',
  'title',
  'idea',
  'primary_keyword',
  'category',
  'source',
  'overall_score',
  'confidence',
  'dimension_scores',
  'rank_key',
  'provider',
  'trend_class',
  'summary',
  'status',
  'geo',
  'owner_account_id',
  'data_from',
  'data_as_of',
  'created_at',
  'updated_at',
] as const;
export type InsightListRow = Pick<InsightRow, (typeof LIST_COLUMNS)[number]>;

/** The page query, built but not run: listInsights runs it, and a test EXPLAINs it. */
export function buildListQuery(db: DbOrTrx, filter: InsightFilter) {
  let query = db.selectFrom('insights').select(LIST_COLUMNS).where('status', '=', 'active');
  if (filter.viewer) query = query.where(visibleTo(filter.viewer.accountId));
  if (filter.geo !== undefined) query = query.where('geo', '=', filter.geo);
  if (filter.minScore !== undefined) query = query.where('overall_score', '>=', filter.minScore);
  if (filter.source !== undefined) query = query.where('source', '=', filter.source);
  if (filter.categories !== undefined && filter.categories.length > 0) {
    query =
      filter.categories.length === 1
        ? query.where('category', '=', filter.categories[0]!)
        : query.where('category', 'in', filter.categories);
  }
  if (filter.trendClasses !== undefined && filter.trendClasses.length > 0) {
    query =
      filter.trendClasses.length === 1
        ? query.where('trend_class', '=', filter.trendClasses[0]!)
        : query.where('trend_class', 'in', filter.trendClasses);
  }
  if (filter.text !== undefined) {
    query = query.where(sql<boolean>`${sql.ref('search')} @@ websearch_to_tsquery('english', ${filter.text})`);
  }
  const after = filter.after;
  if (isDimensionSort(filter.sort)) {
    // The dimension's score, -1 when unscored (a generated column, migration 0008): unscored last.
    const column = `sort_${filter.sort}` as const;
    if (after) query = query.where((eb) => eb(eb.refTuple(column, 'id'), '<', eb.tuple(after.value as number, after.id)));
    return query
      .orderBy(column, 'desc')
      .orderBy('id', 'desc')
      .limit(filter.limit + 1);
  }
  switch (filter.sort) {
    case 'score':
      // Live research first, then recorded, simulated and bare series (domain/provenance.ts); within each,
      // complete insights first, each by overall × confidence (a generated column, migrations 0018 and 0021).
      if (after) query = query.where((eb) => eb(eb.refTuple('rank_key', 'id'), '<', eb.tuple(after.value as number, after.id)));
      query = query.orderBy('rank_key', 'desc').orderBy('id', 'desc');
      break;
    case 'overall':
      if (after) query = query.where((eb) => eb(eb.refTuple('overall_score', 'id'), '<', eb.tuple(after.value as number, after.id)));
      query = query.orderBy('overall_score', 'desc').orderBy('id', 'desc');
      break;
    case 'newest':
      if (after) query = query.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(new Date(after.value), after.id)));
      query = query.orderBy('created_at', 'desc').orderBy('id', 'desc');
      break;
    case 'oldest':
      if (after) query = query.where((eb) => eb(eb.refTuple('created_at', 'id'), '>', eb.tuple(new Date(after.value), after.id)));
      query = query.orderBy('created_at', 'asc').orderBy('id', 'asc');
      break;
  }
  // One row more than asked, to know whether another page exists.
  return query.limit(filter.limit + 1);
}

export async function listInsights(db: DbOrTrx, filter: InsightFilter): Promise<{ rows: InsightListRow[]; hasMore: boolean }> {
  const rows = await buildListQuery(db, filter).execute();
  const hasMore = rows.length > filter.limit;
  return { rows: hasMore ? rows.slice(0, filter.limit) : rows, hasMore };
}

export async function countInsightsBy(db: DbOrTrx, column: 'category' | 'source', viewer?: InsightViewer): Promise<Map<string, number>> {
  let query = db.selectFrom('insights').select([column, (eb) => eb.fn.countAll<number>().as('count')]);
  if (viewer) query = query.where(visibleTo(viewer.accountId));
  const rows = await query.where('status', '=', 'active').groupBy(column).execute();
  return new Map(rows.map((r) => [r[column] as string, Number(r.count)]));
}

export async function countInsights(db: DbOrTrx): Promise<number> {
  const { count } = await db
    .selectFrom('insights')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(count);
}

/**
 * Dates the insights by the data they rest on: the first and last day of
 * every series they keep. Called by every write of a series (trend-point.repository.ts),
 * in its transaction, so the dates never disagree with the series.
 */
export async function stampDataDates(trx: Transaction<Database>, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await sql`update insights i set
      data_from = least(
        (select min(t.date) from trend_points t where t.insight_id = i.id),
        (select min((p ->> 'date')::date) from insight_series s, jsonb_array_elements(s.points) p where s.insight_id = i.id)),
      data_as_of = greatest(
        (select max(t.date) from trend_points t where t.insight_id = i.id),
        (select max((p ->> 'date')::date) from insight_series s, jsonb_array_elements(s.points) p where s.insight_id = i.id))
    where i.id in (${sql.join([...new Set(ids)])})`.execute(trx);
}

/** The days of data these insights rest on, by id (what a list of runs shows beside each run's insight). */
export async function dataDatesOf(db: DbOrTrx, ids: readonly string[]): Promise<Map<string, Pick<InsightRow, 'data_from' | 'data_as_of'>>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('insights')
    .select(['id', 'data_from', 'data_as_of'])
    .where('id', 'in', [...new Set(ids)])
    .execute();
  return new Map(rows.map((r) => [r.id, { data_from: r.data_from, data_as_of: r.data_as_of }]));
}

/** A refresh: new scores for an existing insight (its identity and text stay). */
export async function updateInsightScores(
  trx: Transaction<Database>,
  id: string,
  scores: { dimensions: DimensionScores; overall_score: number; confidence: number; interest_level?: number },
): Promise<void> {
  await trx
    .updateTable('insights')
    .set({
      dimensions: JSON.stringify(scores.dimensions),
      dimension_scores: JSON.stringify(Object.fromEntries(Object.entries(scores.dimensions).map(([name, d]) => [name, d.score]))),
      trend_class: trendClassOf(scores.dimensions.momentum?.evidence),
      overall_score: scores.overall_score,
      confidence: scores.confidence,
      ...(scores.interest_level !== undefined ? { interest_level: scores.interest_level } : {}),
      updated_at: sql<Date>`now()`,
    })
    .where('id', '=', id)
    .execute();
}

/** What the daily refresh plans from: every active insight that is not static demo data, by id. */
export async function listRefreshable(db: DbOrTrx): Promise<Array<Pick<InsightRow, 'id' | 'source' | 'provider' | 'interest_level'>>> {
  return db
    .selectFrom('insights')
    .select(['id', 'source', 'provider', 'interest_level'])
    .where('status', '=', 'active')
    .where('source', '<>', SOURCES.recordedSeries)
    .orderBy('id')
    .execute();
}

/** The active insights among these ids (a refresh group's members still worth refreshing). */
export async function findActiveInsights(db: DbOrTrx, ids: readonly string[]): Promise<InsightRow[]> {
  if (ids.length === 0) return [];
  return db.selectFrom('insights').select(INSIGHT_COLUMNS).where('id', 'in', ids).where('status', '=', 'active').execute();
}

/** The popularity each of these insights was last measured at (null: never measured). */
export async function interestLevelsOf(db: DbOrTrx, ids: readonly string[]): Promise<Array<{ id: string; level: number | null }>> {
  if (ids.length === 0) return [];
  const rows = await db.selectFrom('insights').select(['id', 'interest_level']).where('id', 'in', ids).execute();
  return rows.map((r) => ({ id: r.id, level: r.interest_level }));
}

/** Popularities a refresh batch measured for members it could not serve, kept with the batch's other writes. */
export async function setInterestLevels(
  trx: Transaction<Database>,
  levels: ReadonlyArray<{ insightId: string; level: number }>,
): Promise<void> {
  for (const { insightId, level } of levels)
    await trx.updateTable('insights').set({ interest_level: level }).where('id', '=', insightId).execute();
}

/** Whether a public, worldwide insight already holds this idea (its normalised key): what discovery skips. */
export async function insightExistsForIdeaKey(db: DbOrTrx, ideaKey: string): Promise<boolean> {
  return (
    (await db
      .selectFrom('insights')
      .select('id')
      .where('idea_key', '=', ideaKey)
      .where('geo', '=', '')
      .where('owner_account_id', 'is', null)
      .executeTakeFirst()) !== undefined
  );
}
