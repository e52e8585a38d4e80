// What more than one phase of the research steps reads of earlier steps' outputs, and the
// one wording helper their summaries share.
import type { CategoryEvidence } from '../../domain/research/category.js';
import { cleanSeries } from '../../domain/research/series-analysis.js';
import type { RelatedServed } from '../../domain/research/served-evidence.js';
import type { ListsOnlyCompetition, RelatedOutput, SeriesOutput, StepContext, StepOutputs } from '../step-contract.js';

/** "1 topic", "3 topics": a count and its noun, singular when it is one (a step summary is read by people). */
export const count = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

export const servedOf = (o: RelatedOutput): RelatedServed => o.served ?? 'listed';

/** Step competition_signals as runs recorded it before the modifier comparison. */
export const listsOnly = (o: StepOutputs['competition_signals']): o is ListsOnlyCompetition => 'share' in o.comparisons;

/** What a category is read from: the idea, its phrases, the autocomplete topics and, once listed (step aggregate), the related lists. */
export function categoryEvidence(ctx: StepContext, withLists: boolean): CategoryEvidence {
  const topics = [
    ...Object.values(ctx.out('autocomplete_phrases').topics).flat(),
    ...(withLists ? (ctx.out('choose_primary').primary_topics ?? []) : []),
  ];
  const lists = (names: Array<'related_queries_top' | 'related_queries_rising' | 'related_topics_top' | 'related_topics_rising'>) =>
    names
      .map((n) => ctx.out(n))
      .filter((o) => servedOf(o) === 'listed')
      .flatMap((o) => o.items.map((i) => i.label));
  return {
    idea: ctx.run.idea,
    phrases: ctx.out('extract_phrases').phrases,
    topics,
    ...(withLists
      ? {
          relatedQueries: lists(['related_queries_top', 'related_queries_rising']),
          relatedTopics: lists(['related_topics_top', 'related_topics_rising']).map((label) => ({ label })),
        }
      : {}),
  };
}

export const cleaned = (s: SeriesOutput) =>
  cleanSeries(s.dates.map((date, i) => ({ date, value: s.values[i]!, hasData: s.has_data[i], isPartial: s.partial[i] })));
