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
}

export function termShare(queries: readonly string[], terms: readonly string[]): TermShare {
  // Whole words only: "app" must not match "apple".
  const hits = queries.filter((q) => {
    const padded = ` ${q.toLowerCase().replace(/[^\p{L}\p{N}']+/gu, ' ')} `;
    return terms.some((t) => padded.includes(` ${t.trim()} `));
  });
  return {
    share: queries.length === 0 ? 0 : Math.round((hits.length / queries.length) * 1000) / 1000,
    matched: hits.length,
    total: queries.length,
    examples: hits.slice(0, 5),
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
export function brandShare(phrase: string, queries: readonly string[]): TermShare {
  const own = new Set(phrase.toLowerCase().split(/\s+/));
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
