// Publish: the overall score, the category the insight is filed under, and the insight itself,
// committed with the step (step aggregate).
import { classifyCategory, insightCategory } from '../../domain/research/category.js';
import { DIMENSIONS, type DimensionScores } from '../../domain/scoring/dimensions.js';
import { combineScores, SOURCE_CERTAINTY } from '../../domain/scoring/overall.js';
import { provenanceKind } from '../../domain/provenance.js';
import { seriesQuality } from '../../domain/scoring/series.js';
import { commitResearchResult } from '../research-result.js';
import type { NamedStep } from '../step-contract.js';
import { categoryEvidence, cleaned } from './shared.js';

export const PUBLISH_STEPS: readonly NamedStep[] = [
  {
    name: 'aggregate',
    run: async (ctx) => {
      const dimensions = Object.fromEntries(DIMENSIONS.map((d) => [d, ctx.out(`score_${d}`)])) as DimensionScores;
      const s30 = cleaned(ctx.out('interest_30d'));
      const quality = seriesQuality(
        s30.values.map((value, i) => ({ date: s30.dates[i]!, value })),
        30,
      ).quality;
      // What the data is bounds the confidence: a simulated world's answers are complete but made up (SOURCE_CERTAINTY).
      const kind = provenanceKind({
        source: ctx.run.source,
        provider: ctx.run.provider ?? ctx.out('interest_30d').provenance?.provider ?? null,
      });
      const overall = combineScores(dimensions, quality, SOURCE_CERTAINTY[kind]);
      // classify_category's choice, unless it was uncategorized or a guess: the related lists drift from the idea
      // ("vegan pet food" → "vegan recipes"), so they fill a gap, they do not overrule (docs/categories.md).
      const category = insightCategory(ctx.out('classify_category'), () => classifyCategory(categoryEvidence(ctx, true))).category;
      const strongest = Object.entries(dimensions)
        .filter(([, d]) => d.score !== null)
        .sort((a, b) => b[1].score! - a[1].score!)
        .slice(0, 2)
        .map(([name, d]) => `${name} ${d.score!.toFixed(2)}${d.experimental ? ' (experimental)' : ''}`);
      return {
        overall,
        dimensions,
        category,
        summary: `Overall ${overall.score.toFixed(2)} (confidence ${overall.confidence.toFixed(2)}, ${overall.scoredDimensions}/8 dimensions scored)${strongest.length ? `; strongest: ${strongest.join(', ')}` : ''}; filed under ${category}${
          // Where the related lists overruled classify_category's guess, the trace says so (founder review).
          category !== ctx.out('classify_category').category
            ? ` (classify_category's guess was ${ctx.out('classify_category').category})`
            : ''
        }.`,
      };
    },
    summarize: (o) => o.summary,
    // The insight, its series, its forecast and the outbox event commit with this step.
    commit: commitResearchResult,
  },
];
