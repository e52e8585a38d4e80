// Understand the idea: its words, its phrases, the one to research, its category, and whether
// it is already an insight (steps normalize_idea to detect_duplicate).
import { classifyCategory, FIRM_CONFIDENCE } from '../../domain/research/category.js';
import { normalizeIdea } from '../../domain/research/idea.js';
import { choosePrimary, MEASURED, measuredPhrases, phraseCandidates, recordedCandidates } from '../../domain/research/phrase-choice.js';
import type { Measurement } from '../trends-plan.js';
import { TrendsFailedError } from '../../providers/gateway.js';
import type { NamedStep } from '../step-contract.js';
import { count, categoryEvidence } from './shared.js';

export const UNDERSTAND_STEPS: readonly NamedStep[] = [
  {
    name: 'normalize_idea',
    run: async (ctx) => normalizeIdea(ctx.run.idea),
    summarize: (o) => `"${o.key}" (${count(o.words.length, 'word')})`,
  },
  {
    name: 'extract_phrases',
    run: async (ctx) => {
      // A trending search discovery found is a search already: it is the phrase, not re-derived from its words.
      const candidates = phraseCandidates(ctx.run.idea, ctx.run.hints, ctx.run.trending ? { trending: ctx.run.trending } : {});
      return { phrases: candidates.map((c) => c.phrase), candidates };
    },
    summarize: (o) =>
      o.candidates
        ? o.candidates
            .map(
              (c) =>
                `${c.phrase} (${c.hint ? 'operator keyword' : c.trending ? 'trending search' : `covers ${Math.round(c.coverage * 100)}%`})`,
            )
            .join(', ') || 'no phrases'
        : o.phrases.join(', ') || 'no phrases',
  },
  {
    name: 'autocomplete_phrases',
    // Only the phrases step choose_primary may choose (the best four by coverage): the others are never researched.
    run: async (ctx) =>
      ctx.requests.autocomplete(
        ctx.out('extract_phrases').phrases.slice(0, MEASURED),
        ctx.run.hints.length > 0 || ctx.run.trending !== undefined,
      ),
    summarize: (o) =>
      o.unavailable
        ? `not available: ${o.unavailable}`
        : Object.entries(o.topics)
            .map(([p, t]) => `${p} → ${t[0]?.title ?? '–'}`)
            .join('; ') + (o.not_asked?.length ? `; not asked: ${o.not_asked.join(', ')}` : ''),
  },
  {
    name: 'choose_primary',
    run: async (ctx) => {
      const extracted = ctx.out('extract_phrases');
      // Runs whose step extract_phrases predates candidates: the same candidates, from the idea.
      const candidates = extracted.candidates ?? recordedCandidates(ctx.run.idea, ctx.run.hints, extracted.phrases);
      if (candidates.length === 0) throw new Error('no search phrase could be extracted from the idea; pass --keyword');
      // How much the best candidates are searched: one comparison with the anchor (the request steps compare_secondary and compare_anchor read again).
      const asked = measuredPhrases(candidates);
      let measurement: Measurement | null = null;
      const given = candidates[0]!.hint ? 'an operator keyword' : candidates[0]!.trending ? "Google's trending search" : null;
      let unmeasured = given ?? 'a single candidate';
      if (!given && asked.length > 1) {
        try {
          measurement = await ctx.requests.measure(asked, ctx.anchorTerm);
        } catch (error) {
          if (!(error instanceof TrendsFailedError)) throw error;
          unmeasured = error.message;
        }
      }
      const choice = choosePrimary(candidates, measurement?.means ?? null, unmeasured);
      const order = [...(measurement?.keywords ?? []), ...candidates.map((c) => c.phrase)];
      const secondary = [...new Set(order)].filter((p) => p !== choice.primary).slice(0, 4);
      // Step autocomplete_phrases asked autocomplete until a phrase was a topic: the chosen phrase may not be among those asked.
      const autocomplete = ctx.out('autocomplete_phrases');
      const primaryTopics =
        !autocomplete.unavailable && autocomplete.topics[choice.primary] === undefined
          ? (await ctx.requests.autocomplete([choice.primary], true)).topics[choice.primary]
          : undefined;
      return {
        primary: choice.primary,
        secondary,
        reason: choice.reason,
        candidates: choice.candidates,
        // One scale across requests (the Trends API): measured against the scale's reference level, no anchor term asked.
        measured: measurement
          ? { ...measurement, anchor: ctx.scale ? `${ctx.scale.values}=${ctx.scale.reference}` : ctx.anchorTerm }
          : null,
        ...(primaryTopics ? { primary_topics: primaryTopics } : {}),
      };
    },
    summarize: (o) => `"${o.primary}" (${o.reason}); secondary: ${o.secondary.join(', ') || 'none'}`,
  },
  {
    name: 'classify_category',
    // From the idea and its autocomplete topics: the idea's own meaning. Step aggregate files the insight under this
    // choice, and reads the related lists only when it was uncategorized or a guess (insightCategory).
    run: async (ctx) => classifyCategory(categoryEvidence(ctx, false)),
    summarize: (o) =>
      `${o.category}${o.matched.length ? ` (matched: ${o.matched.join(', ')})` : ''}${
        o.category === 'uncategorized' || o.confidence < FIRM_CONFIDENCE
          ? `; a guess (confidence ${o.confidence.toFixed(2)}): aggregate files the insight by the related lists as well`
          : ''
      }`,
  },
  {
    name: 'detect_duplicate',
    run: async (ctx) => {
      const existing = await ctx.findExistingInsight(ctx.out('normalize_idea').key, ctx.out('choose_primary').primary);
      if (!existing) return { existing_insight_id: null, matched_on: null, action: 'create' };
      return existing.sameIdea
        ? { existing_insight_id: existing.id, matched_on: 'idea', action: 'update' }
        : {
            existing_insight_id: existing.id,
            matched_on: 'primary_keyword',
            similar_idea: existing.idea,
            action: 'create (a different idea on the same phrase)',
          };
    },
    summarize: (o) => (o.existing_insight_id ? `${o.matched_on} matches ${o.existing_insight_id}: ${o.action}` : 'new idea'),
  },
];
