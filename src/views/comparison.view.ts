// A comparison of 2 to 5 researched ideas as every front door answers it (POST /api/comparisons, the
// account's Compare page, an MCP server): each idea's insight facts beside its series on the shared
// scale, with its mean and peak, and what the shared series rests on.
import { provenanceKind } from '../domain/provenance.js';
import type { Comparison } from '../research/comparison-service.js';

/** The mean (to one decimal) and the peak of one idea's values on the shared scale; null without points. */
export function meanAndPeak(values: readonly number[]): { mean: number | null; peak: number | null } {
  if (values.length === 0) return { mean: null, peak: null };
  return { mean: Math.round((values.reduce((a, b) => a + b, 0) / values.length) * 10) / 10, peak: Math.max(...values) };
}

/** The comparison asked for `geo` (the market, upper case): done, or pending until the provider answers. */
export function comparisonView(comparison: Comparison, geo: string) {
  const series = comparison.kind === 'done' ? comparison.series.points : [];
  return {
    data: {
      status: comparison.kind,
      geo,
      provider: comparison.provider,
      provenance: comparison.provider ? provenanceKind({ source: '', provider: comparison.provider }) : null,
      timeframe: '12m' as const,
      ideas: comparison.ideas.map((c, i) => {
        const { mean, peak } = meanAndPeak(series.map((p) => p.values[i] ?? 0));
        return {
          idea: c.idea,
          insight_id: c.insight.id,
          phrase: c.phrase,
          researched_at: c.insight.updated_at.toISOString(),
          provider: c.insight.provider,
          provenance: provenanceKind(c.insight),
          data_as_of: c.insight.data_as_of,
          overall_score: c.insight.overall_score,
          confidence: c.insight.confidence,
          dimension_scores: c.insight.dimension_scores,
          mean,
          peak,
        };
      }),
      series: series.map((p) => ({ date: p.date, values: p.values, is_partial: p.isPartial })),
    },
  };
}
