// The lexicon read as terms: an idea's words stemmed, the lexicon's terms (and their agents) found in them,
// and WordNet's nouns or the software form where the lexicon knows none.
import type { Category } from '../../catalog.js';
import { WORDNET_CATEGORIES } from '../wordnet-categories.js';
import { LEXICON, MODIFIERS } from './lexicon.js';
import { FORM_WORDS, SOFTWARE_FORMS, WORKPLACE } from './words.js';

export interface Term {
  category: Exclude<Category, 'uncategorized'>;
  /** As written in the lexicon, for the `matched` list. */
  term: string;
  tokens: string[];
  weight: number;
  /** A MODIFIERS term: confirms a category, never decides one. */
  modifier: boolean;
}

/** A word's comparable form: lower case, no accents, a plain plural made singular ("flights" → "flight"). */
function stem(word: string): string {
  // Irregular plurals of people ("handymen", "craftsmen", "women", "children").
  if (/[^aeiou]men$/.test(word) && word.length > 4) return `${word.slice(0, -3)}man`;
  if (word === 'children') return 'child';
  // "dresses", "glasses", "classes": the plural of a word in -ss.
  if (word.endsWith('sses')) return word.slice(0, -2);
  if (word.length <= 3 || word === 'news' || word.endsWith('ss') || word.endsWith('us') || word.endsWith('is')) return word;
  if (word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (/(ches|shes|xes)$/.test(word)) return word.slice(0, -2);
  if (word.endsWith('s')) return word.slice(0, -1);
  return word;
}

export function tokens(text: string): string[] {
  return (
    text
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      // British spellings read as American ones ("neighbourhood", "colour", "labour").
      .replace(/(b|l|v|m|n|vi)our/g, '$1or')
      // A possessive is its noun ("men's grooming", "a dog's walks"), not a word "s".
      .replace(/(?<=\p{L})['’]s\b/gu, '')
      .split(/[^\p{L}\p{N}]+/u)
      .filter(Boolean)
      .map(stem)
  );
}

/** Every term, the longest first so that "budget travel" is read before "budget". */
const LEXICON_TERMS: Term[] = Object.entries(LEXICON).flatMap(([category, list]) =>
  list.split(',').map((entry) => {
    const [term, weight] = entry.trim().split(':');
    return {
      category: category as Term['category'],
      term: term!,
      tokens: tokens(term!),
      weight: weight ? Number(weight) : 1,
      modifier: MODIFIERS.has(term!),
    };
  }),
);

/** Agent nouns that are other words ("betting" → "better", "towing" → "tower", "drawing" → "drawer"). */
const NOT_AGENTS = new Set(['better', 'tower', 'drawer', 'sewer', 'parker', 'builder', 'planner', 'booker', 'liner', 'clother', 'houser']);

/**
 * Who does what a lexicon activity names is about it too: "birdwatchers" for
 * "birdwatching", "hikers" for "hiking", "roofers" for "roofing" (the
 * activity's word with -er for -ing), where the lexicon has no such word
 * already and the activity is a subject (weight 1 or more, not a modifier).
 */
function agentTerms(terms: readonly Term[]): Term[] {
  const known = new Set(terms.map((t) => t.tokens.join(' ')));
  return terms.flatMap((t) => {
    const [word] = t.tokens;
    if (t.modifier || t.weight < 1 || t.tokens.length !== 1) return [];
    // Who practises a field the lexicon names: "dermatologist" for "dermatology", "physiotherapist" for "physiotherapy".
    if (/(ology|therapy)$/.test(word!)) {
      const practitioner = `${word!.slice(0, -1)}ist`;
      return known.has(practitioner) ? [] : [{ ...t, term: practitioner, tokens: [practitioner] }];
    }
    if (!word!.endsWith('ing') || word!.length < 6) return [];
    const agent = `${word!.slice(0, -3)}er`;
    return known.has(agent) || NOT_AGENTS.has(agent) ? [] : [{ ...t, term: agent, tokens: [agent] }];
  });
}

const TERMS: Term[] = [...LEXICON_TERMS, ...agentTerms(LEXICON_TERMS)].sort((a, b) => b.tokens.length - a.tokens.length);

export const TERMS_WITH_AND = TERMS.filter((t) => t.tokens.includes('and'));

/**
 * An activity's verb right after "to" is the activity: "teaches kids to swim" is
 * about swimming, "helps beginners to knit" about knitting. The lexicon's
 * one-word -ing subjects by their verbs (swimm-ing → swim, hik-ing → hike).
 * Only there: elsewhere "box" is not boxing nor "park" parking.
 */
export const ACTIVITY_VERBS = new Map<string, Term>();
for (const t of LEXICON_TERMS) {
  const [word] = t.tokens;
  if (t.modifier || t.weight < 1 || t.tokens.length !== 1 || !word!.endsWith('ing') || word!.length < 6) continue;
  const stem = word!.slice(0, -3);
  const verbs = [stem, `${stem}e`, /([^aeiou])\1$/.test(stem) ? stem.slice(0, -1) : ''];
  for (const verb of verbs) if (verb && !ACTIVITY_VERBS.has(verb)) ACTIVITY_VERBS.set(verb, t);
}

const FIRST_TOKEN = new Map<string, Term[]>();
for (const t of TERMS) FIRST_TOKEN.set(t.tokens[0]!, [...(FIRST_TOKEN.get(t.tokens[0]!) ?? []), t]);

export interface Found {
  term: Term;
  /** The word positions [start, end) it took in its text. */
  start: number;
  end: number;
}

/** The lexicon's terms in a run of words, each word used by at most one term (the longest that fits), in order. */
export function termsInWords(words: readonly string[]): Found[] {
  const found: Found[] = [];
  for (let i = 0; i < words.length;) {
    const hit = FIRST_TOKEN.get(words[i]!)?.find((t) => t.tokens.every((w, k) => words[i + k] === w));
    if (hit) {
      found.push({ term: hit, start: i, end: i + hit.tokens.length });
      i += hit.tokens.length;
    } else i += 1;
  }
  return found;
}

export const termsIn = (text: string): Term[] => termsInWords(tokens(text)).map((f) => f.term);

/** WordNet's nouns by category (wordnet-categories.ts), read into a map at first use. */
let wordNetNouns: Map<string, Exclude<Category, 'uncategorized'>> | undefined;
function wordNetCategory(word: string): Exclude<Category, 'uncategorized'> | undefined {
  if (!wordNetNouns) {
    wordNetNouns = new Map();
    for (const [category, list] of Object.entries(WORDNET_CATEGORIES))
      for (const noun of list!.split(',')) wordNetNouns.set(noun, category as Exclude<Category, 'uncategorized'>);
  }
  // The words are stemmed ("eyeglasses" → "eyeglasse"): WordNet may list the plural as the lemma.
  return wordNetNouns.get(word) ?? wordNetNouns.get(`${word}s`);
}

/**
 * What a WordNet noun weighs: a word that leans (right about two times in
 * three on the tuning ideas), so an idea filed by WordNet alone stays below
 * FIRM_CONFIDENCE and a research run's step aggregate files it by what Google
 * measured instead.
 */
const WORDNET_WEIGHT = 0.5;

const wordNetTerm = (category: Exclude<Category, 'uncategorized'>, words: string[]): Term => ({
  category,
  term: `${words.join(' ')} (WordNet)`,
  tokens: words,
  weight: WORDNET_WEIGHT,
  modifier: false,
});

/**
 * The idea's nouns the lexicon does not know, filed by WordNet: a two-word
 * compound WordNet lists first ("blood test"), else a single noun. Only words
 * the tagger reads as nouns in the idea's noun phrases are asked (not "finds",
 * "helps"), and never a form word.
 */
export function wordNetTermsIn(words: readonly string[], known: readonly Found[], nouns: ReadonlySet<string>): Found[] {
  const taken = new Set(known.flatMap((f) => Array.from({ length: f.end - f.start }, (_, k) => f.start + k)));
  // A letter or two ("m" of /m/0abc, "tv") is an abbreviation, not a noun WordNet should guess at.
  const open = (i: number) => i < words.length && !taken.has(i) && !FORM_WORDS.has(words[i]!) && words[i]!.length > 2;
  const out: Found[] = [];
  for (let i = 0; i < words.length; i++) {
    if (!open(i)) continue;
    const pair =
      open(i + 1) && (nouns.has(words[i]!) || nouns.has(words[i + 1]!)) ? wordNetCategory(`${words[i]} ${words[i + 1]}`) : undefined;
    if (pair) {
      out.push({ term: wordNetTerm(pair, [words[i]!, words[i + 1]!]), start: i, end: i + 2 });
      i += 1;
      continue;
    }
    const single = nouns.has(words[i]!) ? wordNetCategory(words[i]!) : undefined;
    if (single) out.push({ term: wordNetTerm(single, [words[i]!]), start: i, end: i + 1 });
  }
  return out;
}

/** The last resort for an idea that names nothing the lexicon or WordNet knows: its software form. */
export function softwareFormIn(words: readonly string[], all: readonly string[]): Found[] {
  const at = words.findLastIndex((w) => SOFTWARE_FORMS.has(w));
  if (at === -1) return [];
  const category = all.some((w) => WORKPLACE.has(w)) ? 'business-industrial' : 'computers-electronics';
  return [
    { term: { category, term: `${words[at]} (software)`, tokens: [words[at]!], weight: 0.5, modifier: false }, start: at, end: at + 1 },
  ];
}
