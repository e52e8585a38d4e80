// An insight as every front door answers it (GET /api/insights/{id}, the list, the account pages, the
// report, an MCP server): the insight the asker may see, its JSON shape (verdict, evidence, provenance,
// links), its series for a window and its forecast. Read from the repositories; no transport here.
import type { Db } from '../db/connection.js';
import type { InsightSort } from '../domain/catalog.js';
import { isDimensionSort } from '../domain/catalog.js';
import { isId } from '../domain/ids.js';
import { insightFieldsOf } from '../domain/insight-fields.js';
import { Refusal } from '../domain/refusal.js';
import type { ForecastPoint } from '../domain/forecast/forecaster.js';
import { decisionSummary } from '../domain/research/decision-summary.js';
import { verdictOf } from '../domain/research/verdict.js';
import { isPartial, rankScore } from '../domain/scoring/overall.js';
import { trendClassFacts } from '../domain/scoring/trend-class.js';
import { findForecast } from '../insights/forecast.repository.js';
import { findInsight, visibleInsightId, type InsightListRow, type InsightRow } from '../insights/insight.repository.js';
import { findInsightSeries, latestTrendPoints } from '../insights/trend-point.repository.js';

/** Who asks: an account sees the public catalogue and its own private insights. */
export interface Viewer {
  accountId: string;
}

/** What a list entry and the insight itself answer alike (a list entry is the insight without its evidence). */
function sharedFieldsOf(row: InsightListRow) {
  return {
    ...insightFieldsOf(row),
    idea: row.idea,
    primary_keyword: row.primary_keyword,
    rank_score: rankScore(row.overall_score, row.confidence),
    partial: isPartial(row.dimension_scores),
    // From the scores alone, so a list entry and the insight say the same.
    verdict: verdictOf(row),
    status: row.status,
    geo: row.geo,
    visibility: row.owner_account_id === null ? ('public' as const) : ('private' as const),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** A list entry: the insight without its evidence, and each dimension's score alone. */
export function toInsightSummaryDto(row: InsightListRow) {
  return { ...sharedFieldsOf(row), dimension_scores: row.dimension_scores };
}
export type InsightSummaryDto = ReturnType<typeof toInsightSummaryDto>;

/** The insight with its 8 dimensions' evidence, its trend class's rule and the decision summary. */
export function toInsightDto(row: InsightRow) {
  return {
    ...sharedFieldsOf(row),
    keywords: row.keywords,
    dimensions: row.dimensions,
    trend_class_evidence: trendEvidence(row),
    related: row.related,
    geography: row.geography,
    search_volume: row.search_volume ?? null,
    primary_choice: row.primary_choice ?? null,
    outlook: row.outlook ?? null,
    // Made when read, from the scores served beside it: it always agrees with them.
    decision: decisionSummary({
      primary_keyword: row.primary_keyword,
      title: row.title,
      data_as_of: row.data_as_of,
      confidence: row.confidence,
      dimensions: row.dimensions,
      trend_class: row.trend_class,
      outlook: row.outlook,
    }),
  };
}
export type InsightDto = ReturnType<typeof toInsightDto>;

function trendEvidence(row: InsightRow) {
  if (!row.trend_class) return null;
  const facts = trendClassFacts(row.trend_class);
  const reason = row.dimensions.momentum?.evidence.trend_class_reason;
  return {
    rule: facts.rule,
    reason: typeof reason === 'string' ? reason : null,
    claim: facts.claim,
    hit_rate: facts.hit_rate,
    base_rate: facts.base_rate,
    methodology: '/api/methodology#trend-classes',
  };
}

/** The sort key of a row, as its cursor carries it. */
export function sortValueOf(row: InsightListRow, sort: InsightSort): number | string {
  // The repository orders `score` by rank_key (complete insights first), `overall` by the overall score alone.
  if (sort === 'score') return row.rank_key;
  if (sort === 'overall') return row.overall_score;
  if (isDimensionSort(sort)) return row.dimension_scores[sort] ?? -1;
  return row.created_at.toISOString();
}

const noInsight = (id: string) => new Refusal('notFound', `No insight has the id "${id.slice(0, 64)}".`);

/** The insight, when the viewer may see it (public, or its own); ids that cannot exist are answered without a query. */
export async function findVisibleInsight(db: Db, id: string, viewer: Viewer): Promise<InsightRow | undefined> {
  return isId('insight', id) ? findInsight(db, id, { accountId: viewer.accountId }) : undefined;
}

/**
 * The insight an /api/insights/:id route is about, or the refusal every such route answers: also for
 * another account's private insight (whether it exists is not the asker's to learn).
 */
export async function visibleInsight(db: Db, id: string, viewer: Viewer): Promise<InsightRow> {
  const row = await findVisibleInsight(db, id, viewer);
  if (!row) throw noInsight(id);
  return row;
}

/**
 * The same check for a reader that needs only the insight's id (its series, its forecast): the row's JSON
 * columns (dimensions, related lists, geography, search volume) are not read, let alone parsed.
 */
export async function visibleInsightIdOf(db: Db, id: string, viewer: Viewer): Promise<string> {
  const found = isId('insight', id) ? await visibleInsightId(db, id, viewer.accountId) : undefined;
  if (!found) throw noInsight(id);
  return found;
}

export const TREND_WINDOWS = ['30d', '90d', '12m', '5y'] as const;
export type TrendWindow = (typeof TREND_WINDOWS)[number];

/** Daily or weekly, as the points are (Google answers 12 months and 5 years weekly; a replayed recording may differ). */
export function intervalOf(points: ReadonlyArray<{ date: string }>): 'day' | 'week' {
  if (points.length < 2) return 'day';
  return Date.parse(points[1]!.date) - Date.parse(points[0]!.date) >= 7 * 86_400_000 ? 'week' : 'day';
}

export interface WindowPoint {
  date: string;
  value: number;
  is_partial: boolean;
  fetched_at?: Date;
}

/** An insight's series for a window: the 30 days from trend_points, the longer ones as research (or the refresh) stored them. */
export async function seriesOf(
  reader: Db,
  insightId: string,
  window: TrendWindow,
): Promise<{ points: WindowPoint[]; fetchedAt: Date | null }> {
  if (window === '30d') return { points: await latestTrendPoints(reader, insightId, 30), fetchedAt: null };
  const row = await findInsightSeries(reader, insightId, window);
  if (!row) {
    throw new Refusal(
      'notFound',
      `Insight ${insightId} has no ${window} series: it was not researched with one (demo insights carry 30 and 90 days; insights researched before 2026-11-23 only 30).`,
    );
  }
  return {
    points: row.points.map((p) => ({ date: p.date, value: Math.round(p.value), is_partial: p.is_partial })),
    fetchedAt: row.fetched_at,
  };
}

/** GET /api/insights/{id}/trend-data's answer: the window's points, each with when it was fetched. */
export async function trendDataView(reader: Db, insightId: string, window: TrendWindow) {
  const { points, fetchedAt } = await seriesOf(reader, insightId, window);
  return {
    window,
    interval: intervalOf(points),
    data: points.map((p) => ({
      date: p.date,
      value: p.value,
      is_partial: p.is_partial,
      fetched_at: (p.fetched_at ?? fetchedAt)!.toISOString(),
    })),
    next_cursor: null,
  };
}

/** GET /api/insights/{id}/forecast's answer: the 7 days with their intervals and backtest, or why it is withheld. */
export async function forecastView(reader: Db, insightId: string) {
  const row = await findForecast(reader, insightId);
  if (!row) {
    throw new Refusal(
      'notFound',
      `Insight ${insightId} has no forecast yet (demo insights are not forecast; research and refresh make one).`,
    );
  }
  if (row.withheld) return { withheld: true as const, reason: row.reason ?? 'withheld', generated_at: row.generated_at.toISOString() };
  const backtest = row.backtest ?? {};
  return {
    withheld: false as const,
    model: row.model ?? 'unknown',
    generated_at: row.generated_at.toISOString(),
    horizon: row.horizon,
    points: row.points as ForecastPoint[],
    backtest: {
      mase: backtest.mase ?? null,
      mase_seasonal_naive: backtest.mase_seasonal_naive ?? null,
      coverage_80: backtest.coverage_80 ?? null,
      coverage_95: backtest.coverage_95 ?? null,
    },
  };
}
