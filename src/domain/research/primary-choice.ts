// Step choose_primary: which of the candidates (phrase-choice.ts) a run studies, from their priors and, when
// measured, how much each is searched in one 12-month comparison with the anchor. Pure functions.
import type { PhraseCandidate } from './phrase-features.js';
import { round3, wholePercent } from '../numbers.js';

/** What the most searched candidate adds; a tenth as searched adds half of it (log scale, two decades). */
const POPULARITY_WEIGHT = 0.3;
/** Below this mean (0-100, the comparison's scale) a phrase counts as not measurably searched. */
export const MIN_MEAN = 1;
/** Candidates measured: a comparison takes five terms, one of them the anchor. */
export const MEASURED = 4;

/** The candidates step choose_primary measures, in the order it asks them: the best four by prior. */
export function measuredPhrases(candidates: readonly PhraseCandidate[]): string[] {
  return candidates.slice(0, MEASURED).map((c) => c.phrase);
}

export interface MeasuredCandidate extends PhraseCandidate {
  /** Mean interest over 12 months in the step's comparison (0-100, one scale for all); null: not measured. */
  mean: number | null;
  /** 0-1 on a log scale against the most searched candidate; null: not measured. */
  popularity: number | null;
  score: number;
}

/** What the insight keeps of the choice (API: `primary_choice`). */
export interface PrimaryChoiceSummary {
  primary: string;
  reason: string;
  /** The candidates measured (best first), then the others, each with what decided. */
  candidates: Array<Pick<MeasuredCandidate, 'phrase' | 'coverage' | 'names_product' | 'mean' | 'popularity' | 'score'>>;
  /** The comparison the means come from: 12 months, beside the anchor; null when nothing was measured. */
  measured: { timeframe: '12m'; anchor: string; anchor_mean: number } | null;
}

export interface PrimaryChoice {
  primary: string;
  /** The measured candidates, best first, then the rest in their prior order. */
  candidates: MeasuredCandidate[];
  /** Why this phrase: coverage, popularity, and the runner-up it beat. */
  reason: string;
}

/** Popularity of a mean against the best one: 1 for the best, 0.5 at a tenth, 0 at a hundredth or when not searched. */
export function popularity(mean: number, best: number): number {
  if (mean < MIN_MEAN || best <= 0) return 0;
  return round3(Math.max(0, Math.min(1, 1 + Math.log10(mean / best) / 2)));
}

/**
 * choose_primary's choice from the candidates and, when measured, their means in one
 * comparison. An operator's hint wins, and a trending search that started the
 * run; without measurements the best prior does.
 */
export function choosePrimary(
  candidates: readonly PhraseCandidate[],
  means: Record<string, number> | null,
  unmeasured?: string,
): PrimaryChoice {
  if (candidates.length === 0) throw new Error('no candidate phrase');
  const hint = candidates.find((c) => c.hint || c.trending);
  const best = means ? Math.max(0, ...Object.values(means)) : 0;
  const scored: MeasuredCandidate[] = candidates.map((c) => {
    const mean = means && c.phrase in means ? means[c.phrase]! : null;
    const pop = mean === null ? null : popularity(mean, best);
    return { ...c, mean, popularity: pop, score: round3(c.prior + POPULARITY_WEIGHT * (pop ?? 0)) };
  });
  const measured = scored.filter((c) => c.mean !== null);
  const searched = measured.filter((c) => c.mean! >= MIN_MEAN);
  // Popularity may only choose among rephrasings of the best prior's phrase: those that keep its first word,
  // the one that says which kind, and its subject ("padel court bookings" for "padel court"; not "pet food"
  // nor "vegan" for "vegan pet food").
  // A broader phrase replaces it only where it has no measurable interest, and the reason says so.
  const lead = scored[0]!;
  const stem = (w: string) => w.replace(/s$/, '');
  const leadWords = lead.phrase.split(' ').map(stem);
  // A rephrasing keeps the first word and, of a longer phrase, another ("vegan" alone is not "vegan pet food").
  const keeps = (c: MeasuredCandidate) => {
    const words = new Set(c.phrase.split(' ').map(stem));
    return words.has(leadWords[0]!) && (leadWords.length === 1 || leadWords.filter((w) => words.has(w)).length >= 2);
  };
  const kept = searched.filter(keeps);
  const broader = kept.length === 0 && lead.mean !== null && lead.mean < MIN_MEAN && searched.length > 0;
  const pool = kept.length > 0 ? kept : broader ? searched : measured.length > 0 ? measured.filter(keeps) : scored;
  const order = (a: MeasuredCandidate, b: MeasuredCandidate) => b.score - a.score || b.coverage - a.coverage;
  const chosen = hint ? scored[candidates.indexOf(hint)]! : ([...pool].sort(order)[0] ?? lead);
  const ranked = [...measured].sort(order);
  const rest = scored.filter((c) => c.mean === null);
  const list = [...ranked, ...rest];
  // The runner-up is the best other phrase that could have been chosen.
  const runnerUp = [...pool].sort(order).find((c) => c !== chosen) ?? list.find((c) => c !== chosen);
  const describe = (c: MeasuredCandidate) =>
    `covers ${wholePercent(c.coverage)} of the idea${c.names_product ? ' and names its subject' : ''}${
      c.mean === null
        ? ''
        : c.mean < MIN_MEAN
          ? ', not measurably searched'
          : `, searched ${c.mean} (popularity ${c.popularity!.toFixed(2)})`
    }`;
  const reason = hint
    ? hint.hint
      ? 'operator keyword'
      : "Google's trending search itself (discovery): already a search, not re-derived"
    : `${broader && chosen !== lead ? `${lead.phrase}: no measurable interest; researched the broader ${chosen.phrase}: ` : ''}${describe(chosen)}${runnerUp ? `; runner-up "${runnerUp.phrase}" ${describe(runnerUp)}` : ''}${
        means ? '' : ` (popularity not measured: ${unmeasured ?? 'a single candidate'})`
      }`;
  return { primary: chosen.phrase, candidates: list, reason };
}
