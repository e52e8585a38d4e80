// What the learned ranker (phrase-ranker.ts) reads of each candidate phrase: the signals the hand-set
// rules of phrase-prior.ts weigh (where in the parse the candidate comes from, its head, its modifiers,
// its length, the clause it sits in) and the rules' own order, as numbers. Pure: the parse and the
// rules' candidates in, one row of numbers per candidate out. The names are the weights table's columns
// (phrase-ranker-weights.ts); scripts/train-phrase-ranker.ts fits the weights from the labelled ideas.
import { isActNoun, lexicalised, madeFromVerb, singular, type NounChunk, type PhraseToken } from './noun-phrases.js';
import { CHANNEL_MODIFIERS, FORMAT, GENERIC_MODIFIERS, TRANSPARENT_ALONE } from './phrase-words.js';

export interface PhraseCandidate {
  phrase: string;
  /** Share of the idea's weighted words the phrase holds (0-1). */
  coverage: number;
  /** True when it is the product's first two nouns (its subject). */
  names_product: boolean;
  /**
   * The order before measuring: the learned ranker's probability that this is the phrase people search
   * for the idea (0-1; the candidates' sum to 1), or, with `ranker: 'rules'`, the hand-set prior.
   */
  prior: number;
  /** An operator's keyword: chosen without measuring. */
  hint?: true;
  /** A search Google listed as trending (discovery): chosen without measuring. */
  trending?: true;
}

/** The idea's noun phrases as the rules read them (phrase-choice.ts cuts them at words that name a kind of business). */
export type IdeaChunk = NounChunk;

/** Where in the parse a candidate comes from. */
export interface CandidateOrigin {
  /**
   * `slice`: words of one noun phrase as written; `differentiated`: the subject with the word that says which
   * kind or the act it is sold as; `act`: a verb's object and the verb's act ("photo digitizing");
   * `audience`: the subject after what it is for ("nurse recruitment"); `form`: the subject with the form it
   * comes in ("coffee subscription").
   */
  kind: 'slice' | 'differentiated' | 'act' | 'audience' | 'form';
  /** The noun phrase it comes from (index in the idea), and whether that phrase is the product. */
  part: number;
  product: boolean;
  /** A slice's first and last word in its phrase (-1 for a phrase made from the parse). */
  start: number;
  end: number;
  /** The phrase's head (its last noun that is not a format or the audience) and where its subject starts. */
  head: number;
  subjectAt: number;
}

/** One column per signal; the weights table names the same columns in the same order. */
export const FEATURE_NAMES = [
  'rule_rank_1',
  'rule_rank_2',
  'rule_rank_3',
  'rule_rank_4',
  'rule_rank_5_or_more',
  'rule_prior_below_best',
  'coverage',
  'names_product',
  'one_word',
  'three_words',
  'made_differentiated',
  'made_act',
  'made_audience',
  'made_form',
  'from_the_product',
  'from_the_first_phrase',
  'from_a_later_phrase',
  'after_for',
  'said_by_its_users',
  'object_of_a_verb',
  'is_the_subject',
  'ends_at_the_head',
  'ends_past_the_head',
  'starts_before_the_subject',
  'whole_noun_phrase',
  'opens_with_a_modifier',
  'generic_modifier',
  'channel_modifier',
  'ends_with_a_form',
  'ends_with_people',
  'ends_with_an_act',
  'ends_with_ing',
  'ends_plural',
  'holds_an_acronym',
  'holds_a_hyphen',
  'holds_a_wordnet_name',
  'holds_ai',
  'holds_a_company',
  'holds_the_rules_first',
  'inside_the_rules_first',
  'same_last_word_as_the_rules_first',
  'the_rules_first_and_its_act',
  'the_rules_first_and_a_word_before',
  'the_rules_first_by_a_margin',
  'the_rules_first_is_two_nouns_before_an_act',
  'differentiated_by_a_hyphen',
  'one_plural_word',
] as const;

export type FeatureName = (typeof FEATURE_NAMES)[number];

const NO_ORIGIN: CandidateOrigin = { kind: 'slice', part: 0, product: false, start: -1, end: -1, head: -1, subjectAt: -1 };

/**
 * The signals of each candidate, in the rules' order (best prior first): a row per candidate, a column
 * per FEATURE_NAMES entry, each 0 or 1 but the rules' prior gap, the coverage and the rules' first's margin.
 */
export function candidateFeatures(
  chunks: readonly IdeaChunk[],
  candidates: readonly PhraseCandidate[],
  origins: ReadonlyMap<string, CandidateOrigin>,
): number[][] {
  const tokenOf = new Map<string, PhraseToken>();
  for (const c of chunks) for (const t of c.tokens) if (!tokenOf.has(t.word)) tokenOf.set(t.word, t);
  const best = candidates[0];
  const bestWords = new Set(best?.phrase.split(' ') ?? []);
  return candidates.map((c, rank) => {
    const origin = origins.get(c.phrase) ?? NO_ORIGIN;
    const chunk = chunks[origin.part];
    const words = c.phrase.split(' ');
    const tokens = words.map((w) => tokenOf.get(w));
    const last = words.at(-1)!;
    const slice = origin.kind === 'slice' && origin.start >= 0;
    const row: Record<FeatureName, boolean | number> = {
      rule_rank_1: rank === 1,
      rule_rank_2: rank === 2,
      rule_rank_3: rank === 3,
      rule_rank_4: rank === 4,
      rule_rank_5_or_more: rank >= 5,
      rule_prior_below_best: Math.max(0, (best?.prior ?? 0) - c.prior),
      coverage: c.coverage,
      names_product: c.names_product,
      one_word: words.length === 1,
      three_words: words.length >= 3,
      made_differentiated: origin.kind === 'differentiated',
      made_act: origin.kind === 'act',
      made_audience: origin.kind === 'audience',
      made_form: origin.kind === 'form',
      from_the_product: origin.product,
      from_the_first_phrase: origin.part === 0,
      from_a_later_phrase: !origin.product && origin.part > 0,
      after_for: chunk?.afterFor === true,
      said_by_its_users: chunk?.users === true,
      object_of_a_verb: chunk?.verb !== undefined,
      is_the_subject: slice && origin.start === origin.subjectAt && origin.end === origin.head,
      ends_at_the_head: slice && origin.end === origin.head,
      ends_past_the_head: slice && origin.end > origin.head,
      starts_before_the_subject: slice && origin.start < origin.subjectAt,
      whole_noun_phrase: slice && origin.start === 0 && origin.end === (chunk?.tokens.length ?? 0) - 1,
      opens_with_a_modifier: tokens[0]?.role === 'modifier',
      generic_modifier: words.some((w) => GENERIC_MODIFIERS.has(w)),
      channel_modifier: words.some((w) => CHANNEL_MODIFIERS.has(w)),
      ends_with_a_form: FORMAT.has(last),
      ends_with_people: tokens.at(-1)?.people === true,
      ends_with_an_act: madeFromVerb(last) || isActNoun(last) || isActNoun(singular(last)),
      ends_with_ing: /[a-z]{3}ing$/.test(last),
      ends_plural: singular(last) !== last,
      holds_an_acronym: tokens.some((t) => t?.acronym === true),
      holds_a_hyphen: words.some((w) => w.includes('-')),
      holds_a_wordnet_name: words.some((w, k) => k > 0 && lexicalised(words[k - 1]!, w)),
      holds_ai: words.some((w) => TRANSPARENT_ALONE.has(w)),
      holds_a_company: tokens.some((t) => t?.organization === true),
      holds_the_rules_first: rank > 0 && [...bestWords].every((w) => words.includes(w)),
      inside_the_rules_first: rank > 0 && words.every((w) => bestWords.has(w)),
      same_last_word_as_the_rules_first: rank > 0 && best !== undefined && best.phrase.split(' ').at(-1) === last,
      ...besideTheFirst(c, rank, candidates, chunk),
    };
    return FEATURE_NAMES.map((name) => Number(row[name]));
  });
}

/** Signals of how a candidate stands to the rules' first: what the rules weigh least well (docs/research.md). */
function besideTheFirst(
  c: PhraseCandidate,
  rank: number,
  candidates: readonly PhraseCandidate[],
  chunk: IdeaChunk | undefined,
): Pick<
  Record<FeatureName, boolean | number>,
  | 'the_rules_first_and_its_act'
  | 'the_rules_first_and_a_word_before'
  | 'the_rules_first_by_a_margin'
  | 'the_rules_first_is_two_nouns_before_an_act'
  | 'differentiated_by_a_hyphen'
  | 'one_plural_word'
> {
  const first = candidates[0]!.phrase.split(' ');
  const words = c.phrase.split(' ');
  const last = words.at(-1)!;
  const extends_ = rank > 0 && words.length === first.length + 1;
  const act = madeFromVerb(last) || isActNoun(last) || isActNoun(singular(last));
  // The rules' first is two nouns of a longer noun phrase whose next word is an act ("drone roof" of "drone roof inspection").
  const tokens = chunk?.tokens ?? [];
  const at = tokens.findIndex((t, k) => t.word === first[0] && tokens[k + first.length - 1]?.word === first.at(-1));
  const next = at >= 0 ? tokens[at + first.length] : undefined;
  return {
    the_rules_first_and_its_act: extends_ && act && first.every((w, k) => words[k] === w),
    the_rules_first_and_a_word_before: extends_ && first.every((w, k) => words[k + 1] === w),
    the_rules_first_by_a_margin: rank === 0 ? Math.min(1, c.prior - (candidates[1]?.prior ?? 0)) : 0,
    the_rules_first_is_two_nouns_before_an_act:
      rank === 0 && first.length === 2 && next?.role === 'noun' && (madeFromVerb(next.word) || isActNoun(singular(next.word))),
    differentiated_by_a_hyphen: words.length > 1 && words[0]!.includes('-'),
    one_plural_word: words.length === 1 && singular(last) !== last,
  };
}
