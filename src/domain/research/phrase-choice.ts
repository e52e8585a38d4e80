// Which search phrase a research run studies: the one that says the idea and
// that people search. Steps 2 and 4. Pure functions.
//
// An idea reads "<product> for <audience>" ("AI meal planner for busy
// parents"): the words before the first joining word name what is built, the
// words after it who it is for. So candidates never cross a joining word
// ("planner busy" is nobody's search), the product's words weigh three times
// the audience's, and words that say how it is built or sold ("app", "platform",
// "AI", "smart") weigh nothing and end a part. A candidate's coverage is the
// share of the idea's weight it holds. People search a product in about two
// words ("meal planner", "plant care"): two words of the product part get a
// bonus, its first two a little more (the subject comes first, the format last:
// "plant care reminder"), and three words a penalty (Google seldom has enough
// searches of them to draw a series). That is the prior, known before any
// request. Step 4 then measures how much the best four are searched (one
// comparison, the request steps 11-12 read again) and adds popularity on a log
// scale (a phrase searched a tenth as much as the most searched candidate
// gets half of it); a phrase with no measurable search is never chosen while
// another has some. docs/research.md has the hit rate on a labelled set.
import { normalizeIdea } from './idea.js';

/** Words that join an idea's parts or carry no subject: never part of a phrase. */
const JOINING = new Set(
  'a an and are as at be by for from get help helps in into is it its my of on or our that the their them this to using via we which with your you lets people who where when how what so than then like just more most very can will'.split(
    ' ',
  ),
);
/** Words that name the kind of business, not its subject: they end a part and weigh nothing. */
const GENERIC = new Set(
  'app apps application platform platforms service services startup tool tools software saas website site marketplace solution solutions system company business simple smart new better powered based driven ai automated personalized'.split(
    ' ',
  ),
);

/** How much the audience's words weigh against the product's. */
const AUDIENCE_WEIGHT = 0.35;
/** What being two words of the product part adds to a candidate's coverage (the length people search a product in). */
const TWO_WORDS_BONUS = 0.25;
/** What being three words long takes away: Google seldom has enough searches of a three-word phrase to draw a series. */
const THREE_WORDS_PENALTY = 0.1;
/** What being the product part's first two words adds besides (its subject, before its format). */
const SUBJECT_BONUS = 0.05;
/** What the most searched candidate adds; a tenth as searched adds half of it (log scale, two decades). */
const POPULARITY_WEIGHT = 0.3;
/** Below this mean (0-100, the comparison's scale) a phrase counts as not measurably searched. */
export const MIN_MEAN = 1;
/** Candidates measured: a comparison takes five terms, one of them the anchor. */
export const MEASURED = 4;

export interface PhraseCandidate {
  phrase: string;
  /** Share of the idea's weighted words the phrase holds (0-1). */
  coverage: number;
  /** True when it is the first two words of the product part (its subject). */
  names_product: boolean;
  /** coverage and the length bonuses: the order before measuring. */
  prior: number;
  /** An operator's keyword: chosen without measuring. */
  hint?: true;
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/** The idea's parts: runs of subject words between joining and generic words, parenthesised asides left out. */
export function ideaParts(idea: string): string[][] {
  const text = idea.replace(/\([^)]*\)/g, ' ');
  const parts: string[][] = [];
  let current: string[] = [];
  // Punctuation ends a part as a joining word does.
  for (const token of normalizeIdea(text.replace(/[,;:.!?/|–—]+/g, ' | ')).text.split(/\s+/)) {
    const word = normalizeIdea(token).key;
    const stop = token === '|' || word === '' || JOINING.has(word) || GENERIC.has(word) || word.length < 2;
    if (stop) {
      if (current.length) parts.push(current);
      current = [];
      continue;
    }
    // A hyphenated word ("meal-planner") stays one part of two words.
    current.push(...word.split(' '));
  }
  if (current.length) parts.push(current);
  return parts;
}

/**
 * Candidate phrases of an idea, best first by coverage: operator hints first
 * (as given), then every run of 1-3 consecutive subject words within a part.
 */
export function phraseCandidates(idea: string, hints: readonly string[], max = 8): PhraseCandidate[] {
  const parts = ideaParts(idea);
  const product = parts[0] ?? [];
  const weight = new Map<string, number>();
  parts.forEach((part, i) => part.forEach((w) => weight.set(w, Math.max(weight.get(w) ?? 0, i === 0 ? 1 : AUDIENCE_WEIGHT))));
  const total = [...weight.values()].reduce((a, b) => a + b, 0);
  const found = new Map<string, PhraseCandidate>();
  for (const part of parts)
    for (let n = Math.min(3, part.length); n >= 1; n -= 1)
      for (let i = 0; i + n <= part.length; i += 1) {
        const words = part.slice(i, i + n);
        const phrase = words.join(' ');
        if (found.has(phrase)) continue;
        const coverage = total > 0 ? [...new Set(words)].reduce((a, w) => a + (weight.get(w) ?? 0), 0) / total : 0;
        const subject = part === product && i === 0 && n === Math.min(2, part.length);
        found.set(phrase, {
          phrase,
          coverage: round3(coverage),
          names_product: subject,
          prior: round3(
            coverage +
              (n === 2 && part === product ? TWO_WORDS_BONUS : 0) +
              (subject ? SUBJECT_BONUS : 0) -
              (n === 3 ? THREE_WORDS_PENALTY : 0),
          ),
        });
      }
  // On a tie, the longer phrase first: it says more of the idea ("ai meal" before "planner").
  const ranked = [...found.values()].sort((a, b) => b.prior - a.prior || b.phrase.split(' ').length - a.phrase.split(' ').length);
  const hinted: PhraseCandidate[] = [];
  for (const h of hints) {
    const phrase = h.trim().toLowerCase().replace(/\s+/g, ' ');
    if (phrase && !hinted.some((c) => c.phrase === phrase)) hinted.push({ phrase, coverage: 1, names_product: true, prior: 1, hint: true });
  }
  return [...hinted, ...ranked.filter((c) => !hinted.some((h) => h.phrase === c.phrase))].slice(0, max);
}

/** The phrases a run's step 2 recorded before it weighed them, weighed now (in their recorded order). */
export function recordedCandidates(idea: string, hints: readonly string[], phrases: readonly string[]): PhraseCandidate[] {
  const weighed = new Map(phraseCandidates(idea, hints, Infinity).map((c) => [c.phrase, c]));
  return phrases.map((phrase) => weighed.get(phrase) ?? { phrase, coverage: 0, names_product: false, prior: 0 });
}

/** The candidates step 4 measures, in the order it asks them: the best four by prior. */
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

const pct = (x: number) => `${Math.round(x * 100)}%`;

/** Popularity of a mean against the best one: 1 for the best, 0.5 at a tenth, 0 at a hundredth or when not searched. */
export function popularity(mean: number, best: number): number {
  if (mean < MIN_MEAN || best <= 0) return 0;
  return round3(Math.max(0, Math.min(1, 1 + Math.log10(mean / best) / 2)));
}

/**
 * Step 4's choice from the candidates and, when measured, their means in one
 * comparison. An operator's hint wins; without measurements the best coverage does.
 */
export function choosePrimary(
  candidates: readonly PhraseCandidate[],
  means: Record<string, number> | null,
  unmeasured?: string,
): PrimaryChoice {
  if (candidates.length === 0) throw new Error('no candidate phrase');
  const hint = candidates.find((c) => c.hint);
  const best = means ? Math.max(0, ...Object.values(means)) : 0;
  const scored: MeasuredCandidate[] = candidates.map((c) => {
    const mean = means && c.phrase in means ? means[c.phrase]! : null;
    const pop = mean === null ? null : popularity(mean, best);
    return { ...c, mean, popularity: pop, score: round3(c.prior + POPULARITY_WEIGHT * (pop ?? 0)) };
  });
  const measured = scored.filter((c) => c.mean !== null);
  const searched = measured.filter((c) => c.mean! >= MIN_MEAN);
  const pool = searched.length > 0 ? searched : measured.length > 0 ? measured : scored;
  const order = (a: MeasuredCandidate, b: MeasuredCandidate) => b.score - a.score || b.coverage - a.coverage;
  const chosen = hint ? scored[candidates.indexOf(hint)]! : [...pool].sort(order)[0]!;
  const ranked = [...measured].sort(order);
  const rest = scored.filter((c) => c.mean === null);
  const list = [...ranked, ...rest];
  // The runner-up is the best other phrase that could have been chosen.
  const runnerUp = [...pool].sort(order).find((c) => c !== chosen) ?? list.find((c) => c !== chosen);
  const describe = (c: MeasuredCandidate) =>
    `covers ${pct(c.coverage)} of the idea${c.names_product ? ' and names its subject' : ''}${
      c.mean === null
        ? ''
        : c.mean < MIN_MEAN
          ? ', not measurably searched'
          : `, searched ${c.mean} (popularity ${c.popularity!.toFixed(2)})`
    }`;
  const reason = hint
    ? 'operator keyword'
    : `${describe(chosen)}${runnerUp ? `; runner-up "${runnerUp.phrase}" ${describe(runnerUp)}` : ''}${
        means ? '' : ` (popularity not measured: ${unmeasured ?? 'a single candidate'})`
      }`;
  return { primary: chosen.phrase, candidates: list, reason };
}
