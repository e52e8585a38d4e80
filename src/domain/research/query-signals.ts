// What related queries say about pain, buying intent, competition and breadth.
// Each signal is the share of related queries containing one of its terms.

export const PAIN_TERMS = [
  'how to',
  'fix',
  'problem',
  'not working',
  'error',
  'alternative to',
  'alternatives',
  'without',
  'help',
  'broken',
  'issue',
  'stop',
  'cant',
  "can't",
  'why is',
];
export const INTENT_TERMS = [
  'price',
  'pricing',
  'cost',
  'best',
  'buy',
  'software',
  'app',
  'tool',
  'service',
  'subscription',
  'cheap',
  'near me',
  'review',
  'reviews',
  'free trial',
  'deal',
  'order',
];
export const COMPETITION_TERMS = ['vs', 'versus', 'alternative', 'alternatives', 'competitor', 'compare', 'comparison'];

export interface TermShare {
  share: number;
  matched: number;
  total: number;
  examples: string[];
  /** Terms not counted: words of the idea or its primary phrase (see ownTerms). Absent when none were. */
  left_out?: string[];
}

/** Why a term of the idea is not counted, as the evidence says it. */
export const LEFT_OUT_REASON =
  'a word of the idea or its primary phrase: every search for the idea carries it, so it says nothing of who searches';

const wordsOf = (text: string) =>
  text
    .toLowerCase()
    .split(/[^\p{L}\p{N}']+/u)
    .filter(Boolean);

/** The words of the idea and its primary phrase, each also as its singular ("apps" gives "app"). */
export function ownWords(texts: readonly string[]): Set<string> {
  const own = new Set<string>();
  for (const w of texts.flatMap(wordsOf)) {
    own.add(w);
    if (w.endsWith('es')) own.add(w.slice(0, -2));
    if (w.endsWith('s')) own.add(w.slice(0, -1));
  }
  return own;
}

/** The terms every word of which is a word of the idea or its phrase ("software" of "accounting software"). */
export function ownTerms(terms: readonly string[], own: readonly string[]): string[] {
  const words = ownWords(own);
  return terms.filter((t) => wordsOf(t).every((w) => words.has(w)));
}

/**
 * The share of queries carrying one of the terms, whole words. `own` is the
 * idea and its primary phrase: a term of theirs is never counted (every related
 * query of "accounting software" carries "software"), and is listed as left out.
 */
export function termShare(queries: readonly string[], terms: readonly string[], own: readonly string[] = []): TermShare {
  const leftOut = ownTerms(terms, own);
  const counted = terms.filter((t) => !leftOut.includes(t));
  // Whole words only: "app" must not match "apple".
  const hits = queries.filter((q) => {
    const padded = ` ${q.toLowerCase().replace(/[^\p{L}\p{N}']+/gu, ' ')} `;
    return counted.some((t) => padded.includes(` ${t.trim()} `));
  });
  return {
    share: queries.length === 0 ? 0 : Math.round((hits.length / queries.length) * 1000) / 1000,
    matched: hits.length,
    total: queries.length,
    examples: hits.slice(0, 5),
    ...(leftOut.length ? { left_out: leftOut } : {}),
  };
}

/**
 * Words that name what is bought or done, not who sells it: "pizza delivery" and
 * "pizza places" are searches for the thing, not for a brand.
 */
const SERVICE_WORDS = new Set(
  'delivery deliveries places place restaurant restaurants shop shops store stores menu menus sauce dough oven ovens toppings topping sizes size calories nutrition coupon coupons deals deal hours open nearby local recipes ideas near me order ordering takeout catering party buffet slice crust homemade frozen making make maker machine kit kits class classes course courses jobs job salary careers certification training school schools app apps software tool tools service services company companies business website online cost costs price prices types history definition meaning images pictures'.split(
    ' ',
  ),
);

/**
 * Brand-like queries: a related query whose extra words (beyond the phrase's own)
 * are a single word not in any signal list nor a word for the thing or service
 * itself, e.g. "pizza hut" for "pizza" (but not "pizza delivery").
 */
export function brandShare(phrase: string, queries: readonly string[], idea = ''): TermShare {
  // The idea's own words name no brand either ("pizza oven home" for "a pizza oven for home").
  const own = new Set([...phrase.toLowerCase().split(/\s+/), ...(idea ? ownWords([idea]) : [])]);
  // Every word of the signal terms ("how" of "how to", "alternative"): a modifier is no brand.
  const generic = new Set([
    ...[...PAIN_TERMS, ...INTENT_TERMS, ...COMPETITION_TERMS].flatMap((t) => t.split(/\s+/)),
    'beginners',
    'near',
    'me',
    'online',
    'recipe',
    'the',
    'a',
    'for',
    'of',
    'in',
    'and',
    'to',
    'is',
    'what',
  ]);
  const hits = queries.filter((q) => {
    const extra = q
      .toLowerCase()
      .split(/\s+/)
      .filter((w) => !own.has(w) && !generic.has(w));
    // A word of the phrase in another form ("plan" beside "planner") is the phrase, not a brand.
    const ownForm = (w: string) => [...own].some((o) => o.startsWith(w) || w === `${o}s` || w === `${o}es`);
    return extra.length === 1 && extra[0]!.length > 2 && !SERVICE_WORDS.has(extra[0]!) && !ownForm(extra[0]!);
  });
  return {
    share: queries.length === 0 ? 0 : Math.round((hits.length / queries.length) * 1000) / 1000,
    matched: hits.length,
    total: queries.length,
    examples: hits.slice(0, 5),
  };
}

/** Distinct content words across related queries and topics, beyond the phrase itself. */
export function vocabulary(phrase: string, labels: readonly string[]): number {
  const own = new Set(phrase.toLowerCase().split(/\s+/));
  const words = new Set<string>();
  for (const label of labels) for (const w of label.toLowerCase().split(/[^\p{L}\p{N}]+/u)) if (w.length > 2 && !own.has(w)) words.add(w);
  return words.size;
}
