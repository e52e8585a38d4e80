// The learned ranker of the primary phrase's candidates (issue 47). The rules of phrase-prior.ts make the
// candidates and a hand-set prior; six rounds of tuning those rules gained on the ideas they looked at and
// little on new ones (docs/research.md). This ranker reads each candidate's signals (phrase-features.ts),
// the rules' order among them, and weighs them with weights fitted to the labelled ideas
// (test/fixtures/research/primary-phrases.tsv) by scripts/train-phrase-ranker.ts: a conditional logit,
// softmax over one idea's candidates, so a candidate's prior is the model's probability that it is the
// phrase people search. Pure.
import { candidateFeatures, FEATURE_NAMES, type CandidateOrigin, type IdeaChunk, type PhraseCandidate } from './phrase-features.js';
import { PHRASE_RANKER } from './phrase-ranker-weights.js';
import { round3 } from '../numbers.js';

let checked: readonly number[] | undefined;
/** The weights by column; a table whose columns are not the features' (a stale table) is refused. */
function fittedWeights(): readonly number[] {
  if (checked) return checked;
  const { features, weights } = PHRASE_RANKER;
  if (features.length !== FEATURE_NAMES.length || features.some((f, k) => f !== FEATURE_NAMES[k]) || weights.length !== features.length)
    throw new Error('phrase-ranker-weights.ts does not match phrase-features.ts: run scripts/train-phrase-ranker.ts');
  checked = weights;
  return weights;
}

/** Each candidate's score (a logit): the weighted sum of its signals. */
export function candidateScores(rows: readonly (readonly number[])[], weights: readonly number[] = fittedWeights()): number[] {
  return rows.map((row) => row.reduce((sum, x, k) => sum + x * weights[k]!, 0));
}

/** Probabilities of one idea's candidates from their scores (softmax). */
export function softmax(scores: readonly number[]): number[] {
  const top = Math.max(...scores);
  const e = scores.map((s) => Math.exp(s - top));
  const sum = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / sum);
}

/**
 * The rules' candidates (best hand-set prior first) reordered by the learned scores; on a tie the rules'
 * order stands. Each prior is the candidate's probability, kept strictly falling down the list at the
 * 3-decimal precision it is recorded with, so no reader reorders two candidates the ranker told apart.
 */
export function rankCandidates(
  chunks: readonly IdeaChunk[],
  ruled: readonly PhraseCandidate[],
  origins: ReadonlyMap<string, CandidateOrigin>,
): PhraseCandidate[] {
  if (ruled.length === 0) return [];
  const scores = candidateScores(candidateFeatures(chunks, ruled, origins));
  const probabilities = softmax(scores);
  const order = ruled.map((_, k) => k).sort((a, b) => scores[b]! - scores[a]! || a - b);
  let above = Infinity;
  return order.map((k) => {
    const prior = Math.max(0, Math.min(round3(probabilities[k]!), round3(above - 0.001)));
    above = prior;
    return { ...ruled[k]!, prior };
  });
}
