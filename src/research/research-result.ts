// aggregate's writes, in the transaction that marks the step done: the insight
// (updated in place when the idea was researched before), its 30-day series,
// its forecast, and the outbox event that announces it.
import type { Transaction } from 'kysely';
import type { Database } from '../db/database.js';
import { newId } from '../domain/ids.js';
import { stripInvisible } from '../domain/research/idea.js';
import { upsertInsightRow } from '../insights/insight.repository.js';
import { replaceTrendPoints, upsertInsightSeries } from '../insights/trend-point.repository.js';
import { geographySummary, relatedSummary } from '../domain/research/served-evidence.js';
import { searchVolumeSummary } from '../domain/research/search-volume.js';
import { upsertForecast } from '../insights/forecast.repository.js';
import { recordEvents } from '../webhooks/event.repository.js';
import type { AggregateOutput, CommitResult, StepContext, StepOutputs } from './step-contract.js';
import type { PrimaryChoiceSummary } from '../domain/research/phrase-choice.js';

/** What the insight keeps of choose_primary (null for runs recorded before it measured its candidates). */
function primaryChoiceSummary(o: StepOutputs['choose_primary']): PrimaryChoiceSummary | null {
  if (!o.candidates) return null;
  return {
    primary: o.primary,
    reason: o.reason,
    candidates: o.candidates.map(({ phrase, coverage, names_product, mean, popularity, score }) => ({
      phrase,
      coverage,
      names_product,
      mean,
      popularity,
      score,
    })),
    measured: o.measured ? { timeframe: '12m', anchor: o.measured.anchor, anchor_mean: o.measured.anchorMean } : null,
  };
}

export async function commitResearchResult(trx: Transaction<Database>, ctx: StepContext, o: AggregateOutput): Promise<CommitResult> {
  const normalized = ctx.out('normalize_idea');
  const { primary, secondary } = ctx.out('choose_primary');
  // Popularity against the anchor: how the refresh groups this insight with others of its size.
  const { phraseMean, anchorMean } = ctx.out('compare_anchor');
  // Runs submitted before invisible characters were stripped at submission may still carry them.
  const text = stripInvisible(normalized.text);
  const { id: insightId, created } = await upsertInsightRow(trx, {
    id: newId('insight'), // kept only if the idea is new; an update keeps the insight's id
    idea_key: normalized.key,
    title: text.length > 120 ? `${text.slice(0, 117)}…` : text,
    idea: text,
    primary_keyword: primary,
    keywords: [primary, ...secondary],
    category: o.category,
    source: ctx.run.source,
    overall_score: o.overall.score,
    confidence: o.overall.confidence,
    dimensions: o.dimensions,
    summary: o.summary,
    status: 'active',
    interest_level: anchorMean > 0 && phraseMean > 0 ? phraseMean / anchorMean : null,
    related: (() => {
      const [queriesTop, queriesRising, topicsTop, topicsRising] = [
        ctx.out('related_queries_top'),
        ctx.out('related_queries_rising'),
        ctx.out('related_topics_top'),
        ctx.out('related_topics_rising'),
      ];
      return relatedSummary(
        primary,
        { queriesTop: queriesTop.items, queriesRising: queriesRising.items, topicsTop: topicsTop.items, topicsRising: topicsRising.items },
        // Top and rising come from one answer: the top list's step says what Google served for both.
        // (Runs recorded before it was kept read as listed.)
        { queries: queriesTop.served ?? 'listed', topics: topicsTop.served ?? 'listed' },
      );
    })(),
    geography: geographySummary(ctx.out('interest_by_country')),
    search_volume: searchVolumeSummary(ctx.out('compare_anchor').volume),
    primary_choice: primaryChoiceSummary(ctx.out('choose_primary')),
    outlook: ctx.out('forecast').outlook ?? null,
    provider: ctx.run.provider ?? null,
    geo: ctx.geo,
    // Its owner: the account of a private run, or the publisher of a public one (null: the operator). The upsert's
    // key includes both, so a run rewrites only its owner's insight, never another account's or the operator's.
    owner_account_id: ctx.run.ownerAccountId,
    publisher_account_id: ctx.run.ownerAccountId === null ? (ctx.run.publisherAccountId ?? null) : null,
  });

  const s30 = ctx.out('interest_30d');
  const now = new Date();
  await replaceTrendPoints(
    trx,
    insightId,
    // Stored as Google answers: integers 0–100 (a 30-day series cut from the 90 days carries decimals).
    s30.dates.map((date, i) => ({ date, value: Math.round(s30.values[i]!), isPartial: s30.partial[i] ?? false })),
    now,
  );
  // The longer series, as the run fetched them (the refresh keeps the 90 days fresh).
  for (const [step, timeframe] of [
    ['interest_90d', '90d'],
    ['interest_12m', '12m'],
    ['interest_5y', '5y'],
  ] as const) {
    const s = ctx.out(step);
    const points = s.dates.map((date, i) => ({ date, value: Math.round(s.values[i]!), isPartial: s.partial[i] ?? false }));
    await upsertInsightSeries(trx, insightId, timeframe, points, now);
  }
  await upsertForecast(trx, insightId, ctx.out('forecast'), now);

  const [eventId] = await recordEvents(trx, [
    {
      type: created ? 'insight.created' : 'insight.updated',
      insightId,
      payload: {
        insight_id: insightId,
        run_id: ctx.run.id,
        title: text,
        category: o.category,
        source: ctx.run.source,
        overall_score: o.overall.score,
        previous: created ? null : 'updated',
      },
    },
  ]);
  return { insightId, eventId: eventId! };
}
