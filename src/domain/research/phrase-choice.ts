// Which search phrase a research run studies: the one that says the idea and
// that people search. Steps extract_phrases and choose_primary. Pure functions.
//
// Candidates are the idea's noun phrases as an English part-of-speech tagger
// reads them (noun-phrases.ts), each with a prior known before any request:
// phrase-prior.ts has the hand-set rules that weigh them. Step choose_primary then
// measures how much the best four are searched (one comparison, the request
// steps compare_secondary and compare_anchor read again) and adds popularity on a log scale (a phrase
// searched a tenth as much as the most searched candidate gets half of it); a
// phrase with no measurable search is never chosen while another has some. A
// phrase discovery found among Google's trending searches is a search already:
// it is its own primary phrase. docs/research.md has the hit rate on a
// labelled set.
import { nounChunks, type PhraseToken } from './noun-phrases.js';
import type { CandidateOrigin, IdeaChunk, PhraseCandidate } from './phrase-features.js';
import { ruleCandidates } from './phrase-prior.js';
import { rankCandidates } from './phrase-ranker.js';
export type { PhraseCandidate } from './phrase-features.js';
// Step choose_primary's measuring and choice live in primary-choice.ts; callers import them from here as before.
export {
  MIN_MEAN,
  MEASURED,
  measuredPhrases,
  popularity,
  choosePrimary,
  type MeasuredCandidate,
  type PrimaryChoice,
  type PrimaryChoiceSummary,
} from './primary-choice.js';
import { GENERIC, TRANSPARENT_ALONE } from './phrase-words.js';

/** The idea's parts: its noun phrases cut at the words that name a kind of business, in order. */
export function ideaParts(idea: string): PhraseToken[][] {
  return chunksOf(idea).map((c) => c.tokens);
}

// Words that name a kind of business end a phrase: what follows starts anew ("platform connecting …" is a verb).
const chunksOf = (idea: string): IdeaChunk[] =>
  nounChunks(idea, { boundaries: GENERIC }).map((c) => ({
    ...c,
    tokens: c.tokens.map((t, k) =>
      TRANSPARENT_ALONE.has(t.word) && c.tokens.slice(k + 1).some((n) => n.role === 'noun') ? { ...t, role: 'modifier' as const } : t,
    ),
  }));

/** A phrase an operator or Google gave, as a search: lower case, single spaces. */
const asSearch = (text: string) => text.trim().toLowerCase().replace(/\s+/g, ' ');

export interface CandidateOptions {
  /** A search Google listed as trending that started this run (discovery): it is the phrase. */
  trending?: string;
  max?: number;
  /**
   * Which order: the hand-set prior's (the default), or the learned ranker's (phrase-ranker.ts), which did not
   * beat it cross-validated on the labelled ideas and so is not shipped as the default (docs/research.md).
   */
  ranker?: 'learned' | 'rules';
}

/**
 * Candidate phrases of an idea, best first by prior: operator hints first (as
 * given), or the trending search discovery found, then every run of 1-3 words
 * of a noun phrase that ends with a noun.
 */
export function phraseCandidates(idea: string, hints: readonly string[], options: CandidateOptions | number = {}): PhraseCandidate[] {
  const { trending, max = 8, ranker = 'rules' } = typeof options === 'number' ? { max: options } : options;
  const chunks = chunksOf(idea);
  const { candidates: ruled, origins } = ruleCandidates(chunks);
  const ranked = ranker === 'rules' ? ruled : rankCandidates(chunks, ruled, origins);
  const given: PhraseCandidate[] = [];
  for (const h of hints) {
    const phrase = asSearch(h);
    if (phrase && !given.some((c) => c.phrase === phrase)) given.push({ phrase, coverage: 1, names_product: true, prior: 1, hint: true });
  }
  if (given.length === 0 && trending && asSearch(trending))
    given.push({ phrase: asSearch(trending), coverage: 1, names_product: true, prior: 1, trending: true });
  return [...given, ...ranked.filter((c) => !given.some((h) => h.phrase === c.phrase))].slice(0, max);
}

/** An idea's parse and its candidates by the hand-set prior, with where each came from: what the ranker reads, and its trainer. */
export function ruledCandidates(idea: string): {
  chunks: IdeaChunk[];
  candidates: PhraseCandidate[];
  origins: Map<string, CandidateOrigin>;
} {
  const chunks = chunksOf(idea);
  return { chunks, ...ruleCandidates(chunks) };
}

/** The phrases a run's step extract_phrases recorded before it weighed them, weighed now (in their recorded order). */
export function recordedCandidates(idea: string, hints: readonly string[], phrases: readonly string[]): PhraseCandidate[] {
  const weighed = new Map(phraseCandidates(idea, hints, { max: Infinity }).map((c) => [c.phrase, c]));
  return phrases.map((phrase) => weighed.get(phrase) ?? { phrase, coverage: 0, names_product: false, prior: 0 });
}
