// How people search an idea, read from a request Google still answers. Related
// queries come back empty to automated clients since 2024-08-20 (pytrends #628,
// google-trends-api #174), so pain, intent and competition are measured by
// comparing, in one request, the phrase with the phrase plus the words of each
// signal. Google's `+` joins terms with OR ("pizza how to + pizza fix": the
// searches for either), and a term without quotes matches its words in any
// order with other words around them, so "pizza how to" counts "how to make
// pizza". Every such search is also a search for the phrase: the ratio of the
// two means over the same weeks is the share of the phrase's searches that
// carry the family's words.
import type { InterestOverTime } from '../trends/answers.js';
import { ownTerms } from './query-signals.js';

/**
 * The words appended to the phrase for each signal, most telling first: a long
 * phrase leaves room for fewer (see MAX_ITEM_CHARS), and the first ones go in.
 * No apostrophes: Google Trends drops queries that have them.
 */
export const MODIFIER_FAMILIES = {
  pain: ['how to', 'fix', 'not working', 'problem', 'error', 'broken', 'help'],
  intent: ['price', 'best', 'buy', 'cost', 'near me', 'app', 'software', 'review', 'cheap'],
  competition: ['vs', 'alternative', 'alternatives', 'competitors'],
} as const;
export type ModifierFamily = keyof typeof MODIFIER_FAMILIES;
export const MODIFIER_FAMILY_NAMES = Object.keys(MODIFIER_FAMILIES) as ModifierFamily[];

/** Google answers 400 to a comparison item longer than this (pytrends #224). */
export const MAX_ITEM_CHARS = 100;
const OR = ' + ';

/**
 * A family reading counts fully in the confidence when the phrase averages at
 * least this much of its own peak over the weeks compared: one rounding step of
 * Google's integers is then at most 2 % of the phrase's searches. Below, in
 * proportion.
 */
export const RESOLVED_PHRASE_MEAN = 25;

export interface FamilyQuery {
  family: ModifierFamily;
  /** The comparison item: the phrase with each term, joined by Google's OR. */
  keyword: string;
  /** The modifiers that fit in it, in order. */
  terms: string[];
  /** Modifiers not asked: words of the phrase or the idea ("accounting software software" is just the phrase). Absent when none. */
  left_out?: string[];
}

/**
 * The phrase with as many of the family's words as fit in one comparison item;
 * null when not even one does. A modifier that is a word of the phrase or of
 * the idea (`own`) is left out: "accounting software software" counts every
 * search for "accounting software", and would read as 100 % buying intent.
 */
export function familyQuery(phrase: string, family: ModifierFamily, own: readonly string[] = []): FamilyQuery | null {
  const base = phrase.trim().toLowerCase().replace(/\s+/g, ' ');
  const leftOut = ownTerms(MODIFIER_FAMILIES[family], [base, ...own]);
  const terms: string[] = [];
  let keyword = '';
  for (const modifier of MODIFIER_FAMILIES[family]) {
    if (leftOut.includes(modifier)) continue;
    const next = keyword === '' ? `${base} ${modifier}` : `${keyword}${OR}${base} ${modifier}`;
    if (next.length > MAX_ITEM_CHARS) break;
    keyword = next;
    terms.push(modifier);
  }
  return terms.length === 0 ? null : { family, keyword, terms, ...(leftOut.length ? { left_out: leftOut } : {}) };
}

export interface ModifierRequest {
  phrase: string;
  /** What is asked, in this order: the phrase, then one item per family that fits. */
  keywords: string[];
  families: FamilyQuery[];
}

/** The comparison for a phrase (four items, under Google's five); null when the phrase is too long for any family. `own`: the idea, whose words are not asked either. */
export function modifierRequest(phrase: string, own: readonly string[] = []): ModifierRequest | null {
  const families = MODIFIER_FAMILY_NAMES.map((f) => familyQuery(phrase, f, own)).filter((q): q is FamilyQuery => q !== null);
  if (families.length === 0) return null;
  return { phrase, keywords: [phrase, ...families.map((f) => f.keyword)], families };
}

/**
 * An OR-group counts a subset of the phrase's searches, so its mean cannot
 * exceed the phrase's beyond rounding (each mean is off by at most half a
 * point, so by one between them) and Google's sampling noise (a few percent at
 * the volumes a phrase's own peak scales to). Past this, the two numbers
 * contradict each other: low volume or a sample too thin to keep the relation.
 */
export const SUBSET_TOLERANCE = { rounding: 1, noise: 0.05 } as const;
/**
 * Below this mean (on the comparison's scale, over the weeks compared) a
 * phrase has too little data for a share of its searches to be read: one
 * rounding step is then more than a tenth of them (see readableFamily).
 */
export const MIN_READABLE_PHRASE_MEAN = 5;

/** Why a phrase this far down the comparison's scale cannot be read (null when it can). */
export function tooLittleData(phrase: string, phraseMean: number): string | null {
  if (phraseMean >= MIN_READABLE_PHRASE_MEAN) return null;
  return `too little data: "${phrase}" averages ${round(phraseMean, 2)} on the comparison's scale over the weeks compared, so one rounding step of Google's integers is ${round(50 / phraseMean, 1)} % of its searches (readable from a mean of ${MIN_READABLE_PHRASE_MEAN})`;
}

export interface FamilyShare {
  family: ModifierFamily;
  terms: string[];
  /** Modifiers not asked because they are words of the phrase or the idea (see familyQuery). */
  left_out?: string[];
  /** The family's searches as a share of the phrase's over the same weeks, 0–1 (the ratio, capped; see contradictory). */
  share: number;
  /** The family's mean over the phrase's, as Google's numbers gave it (absent in runs recorded before it was kept). */
  ratio?: number;
  /** The ratio exceeds 1 beyond rounding and noise: the numbers contradict each other and are not scored. */
  contradictory?: boolean;
  family_mean: number;
  phrase_mean: number;
  /** Weeks read (with data for the phrase, the trailing partial one left out). */
  points: number;
  /** The smallest share one rounding step resolves: a family averaging under half a point reads 0. */
  resolution: number;
}

export type FamilySharesResult = { ok: true; shares: Partial<Record<ModifierFamily, FamilyShare>> } | { ok: false; reason: string };

const round = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits;

/** Each family's share of the phrase's searches, from the comparison's answer (columns in the request's order). */
export function familyShares(request: ModifierRequest, answer: Pick<InterestOverTime, 'points'>): FamilySharesResult {
  const points = answer.points.filter((p, i) => p.hasData[0] !== false && !(p.isPartial && i === answer.points.length - 1));
  const phraseMean = points.reduce((s, p) => s + (p.values[0] ?? 0), 0) / Math.max(1, points.length);
  if (points.length === 0 || phraseMean === 0)
    return { ok: false, reason: `Google has no data for "${request.phrase}" over the weeks compared` };
  const shares: Partial<Record<ModifierFamily, FamilyShare>> = {};
  request.families.forEach((query, i) => {
    const familyMean = points.reduce((s, p) => s + (p.values[i + 1] ?? 0), 0) / points.length;
    const ratio = familyMean / phraseMean;
    shares[query.family] = {
      family: query.family,
      terms: query.terms,
      ...(query.left_out ? { left_out: query.left_out } : {}),
      // Rounding and noise can put a subset a hair above its whole; it is never more than all of it.
      share: round(Math.min(1, ratio), 4),
      ratio: round(ratio, 4),
      contradictory: familyMean > phraseMean * (1 + SUBSET_TOLERANCE.noise) + SUBSET_TOLERANCE.rounding,
      family_mean: round(familyMean, 3),
      phrase_mean: round(phraseMean, 3),
      points: points.length,
      resolution: round(0.5 / phraseMean, 4),
    };
  });
  return { ok: true, shares };
}

/** How much a family reading counts in the confidence (see RESOLVED_PHRASE_MEAN). */
export function familyStrength(share: Pick<FamilyShare, 'phrase_mean'>): number {
  return round(Math.min(1, share.phrase_mean / RESOLVED_PHRASE_MEAN), 3);
}

/**
 * Whether a search carries a family's words the way Google's match for
 * "phrase modifier" counts it: every word of the phrase and of one modifier,
 * whole words, in any order.
 */
export function carriesFamily(query: string, phrase: string, family: ModifierFamily): boolean {
  const words = new Set(
    query
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u)
      .filter(Boolean),
  );
  const all = (text: string) =>
    text
      .toLowerCase()
      .split(/\s+/)
      .filter(Boolean)
      .every((w) => words.has(w));
  return all(phrase) && MODIFIER_FAMILIES[family].some((m) => all(m));
}
