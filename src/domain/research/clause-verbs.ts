// The verbs of an idea's clauses, read by English grammar where the tagger guesses: which verb governs a noun
// phrase ("digitizes old family photos"), which words are a clause's verb ("where people swap houses"), what act a
// verb names ("rent": rental), and who does it (a tool: "App that tracks …"). noun-phrases.ts reads them. Pure.
import nlp from 'compromise';
import { WORDNET_DERIVATIONS } from './wordnet-lexicon.js';
import {
  plain,
  isNoun,
  isGerund,
  isModifier,
  isVerb,
  canBeNoun,
  nounLike,
  knownVerb,
  wordnet,
  madeFromVerb,
  type Tagged,
} from './tagged-words.js';

/** Verbs of wanting: after a plural they say what it wants ("houseplants need sunlight"), never a kind of thing. */
export const WANTS = new Set('need want wish seek look hope try'.split(' '));
/** Nouns that stand for anybody ("people can hire someone"): nobody searches them, so they are no part of a phrase. */
export const ANYBODY = new Set(
  'people someone somebody anyone anybody everyone everybody something anything thing things stuff'.split(' '),
);
/** Whose it is ("my idea", "your plants"): the tagger may read these as nouns; they are never part of a search. */
export const OWNERS = new Set('my our your their his her its'.split(' '));
/** Words that say the phrase before them does something: "can", "could" … (a modal), or "to" before a verb. */
export const isModal = (t: Tagged | undefined) => t !== undefined && t.tags.has('Modal');
/** A verb in its plain form after a noun ("freelancers track", "people hire"): the noun is its subject. */
export const plainVerb = (t: Tagged | undefined) =>
  t !== undefined &&
  isVerb(t) &&
  !isNoun(t) &&
  !isGerund(t) &&
  !t.tags.has('PastTense') &&
  (t.tags.has('Infinitive') || t.tags.has('PresentTense'));
/** A determiner or a pronoun after a verb is its object's start ("track their hours", "finding a buddy"). */
export const opensObject = (t: Tagged | undefined) =>
  t !== undefined && (t.tags.has('Determiner') || t.tags.has('Pronoun') || t.tags.has('Possessive'));

/** Words between a verb and its object: a particle ("renting out"), a determiner, whose it is ("your car"). */
export const beforeObject = (t: Tagged) =>
  t.tags.has('Particle') ||
  t.tags.has('Determiner') ||
  t.tags.has('Possessive') ||
  OWNERS.has(plain(t.text)) ||
  /^(which|what)$/.test(plain(t.text));

/**
 * An idea that opens with a verb in the third person ("Helps you track …", "Finds cheap flights …", "Lets you sell …")
 * leaves its product unsaid: it is the tool that does what follows. The tagger may read the verb as a plural noun.
 */
export const opensWithToolVerb = (words: readonly Tagged[]) => {
  const first = words[0];
  const stem = plain(first?.text ?? '').replace(/s$/, '');
  return (
    first !== undefined &&
    /^[A-Z][a-z]+s$/.test(first.text) &&
    wordnet().verbs.has(stem) &&
    words[1] !== undefined &&
    (words[1].tags.has('Pronoun') || isVerb(first))
  );
};

/**
 * The verb whose object starts at `start` ("digitizes old photos", "to split rent", "renting out your
 * car"), in its plain form; none past the phrase before (`after`), nor a copula, an auxiliary or a modal.
 */
export function governingVerb(
  words: readonly Tagged[],
  start: number,
  after: number,
): { verb: string; particle?: string; offered?: true; byTool?: true; modelled?: true } | undefined {
  let k = start - 1;
  while (k > after && beforeObject(words[k]!) && !isVerb(words[k]!)) k -= 1;
  // A particle is tagged a verb too ("out" in "renting out"): the verb is the word before it.
  const particle = k > after && words[k]!.tags.has('Particle') ? plain(words[k]!.text) : undefined;
  if (particle) k -= 1;
  const w = words[k];
  if (k <= after || w === undefined || !isVerb(w) || ['Copula', 'Auxiliary', 'Modal', 'PastTense', 'Particle'].some((t) => w.tags.has(t)))
    return undefined;
  // An -ing word opening the idea names a kind ("Standing desk rental", "Hearing aid comparison"), not an act.
  if (k === 0 && /ing$/i.test(w.text)) return undefined;
  if (/[,.;:!?|/–—()]/.test(w.post)) return undefined;
  const verb = plain(conjugated(w.text)?.Infinitive ?? '');
  // "App that tracks …", "An app to track …", "A Chrome extension that blocks …": a tool does the verb.
  const byTool =
    (/^(that|which|to)$/.test(plain(words[k - 1]?.text ?? '')) && TOOLS.has(plain(words[k - 2]?.text ?? ''))) ||
    (k > 0 && opensWithToolVerb(words));
  // An imperative opening the idea offers its act ("Rent a projector …"); a verb in the third person is the tool's.
  const offered = k === 0 && !opensWithToolVerb(words);
  return verb
    ? {
        verb,
        ...(particle ? { particle } : {}),
        ...(offered ? { offered: true as const } : {}),
        ...(byTool ? { byTool: true as const } : {}),
      }
    : undefined;
}

export type Conjugation = { Infinitive?: string; Gerund?: string };
export const conjugated = (verb: string): Conjugation | undefined =>
  (nlp(verb).tag('Verb') as unknown as { verbs(): { conjugate(): Conjugation[] } }).verbs().conjugate()[0];

let derivationTable: Map<string, string[]> | undefined;
let actTable: Set<string> | undefined;
/** Whether WordNet names a noun as a verb's act ("recruitment", "translation"; not "bookkeeping", "telehealth"). */
export function isActNoun(noun: string): boolean {
  actTable ??= new Set(WORDNET_DERIVATIONS.split(',').flatMap((entry) => entry.split(':')[1]!.split('/')));
  return actTable.has(noun);
}
/**
 * The nouns that name a verb's act, as a search puts them after its object: the ones WordNet derives
 * from it with an ending that makes a noun of a verb ("rent": "rental", "inspect": "inspection"), then
 * its -ing form, which every verb has ("digitize": "digitizing", "split": "splitting").
 */
export function actNouns(verb: string): string[] {
  derivationTable ??= new Map(
    WORDNET_DERIVATIONS.split(',').map((entry) => {
      const [v, nouns] = entry.split(':');
      return [v!, nouns!.split('/')];
    }),
  );
  const derived = derivationTable.get(verb) ?? [];
  const gerund = plain(conjugated(verb)?.Gerund ?? '');
  // The most used first (the table's order); a noun not made with an ending the verb takes ("assemblage",
  // "transcription") may name another sense: after the -ing form.
  const regular = derived.filter((noun) => noun.endsWith('ing') || madeFromVerb(noun));
  return [
    ...new Set([
      ...regular,
      ...(gerund.endsWith('ing') && !gerund.includes(' ') ? [gerund] : []),
      ...derived.filter((noun) => !regular.includes(noun)),
    ]),
  ];
}

/** Things that do what a verb after "that" or "to" says ("App that tracks …"): the need is their agent noun ("school bus tracker"). */
export const TOOLS = new Set(
  'app application tool extension plugin software ai bot chatbot device gadget website site platform assistant'.split(' '),
);

/**
 * Platforms founders name as the model of their idea ("Uber for piano movers", "Tinder for adopting rescue dogs"): the
 * model is never the phrase, whether or not the tagger knows it as a company ("Tinder" it reads as a noun). A short list,
 * as no tagger tells a brand used as a model from a common noun. Those whose business is people renting out their
 * things make what follows a rental ("Airbnb for campervans": campervan rental).
 */
export const MODEL_BRANDS: ReadonlySet<string> = new Set(
  'uber lyft airbnb vrbo turo tinder bumble hinge netflix spotify etsy ebay amazon doordash instacart fiverr upwork peloton duolingo zillow yelp rover taskrabbit classpass opentable patreon kickstarter groupon linkedin strava venmo shopify'.split(
    ' ',
  ),
);
export const RENTING_MODELS: ReadonlySet<string> = new Set(['airbnb', 'vrbo', 'turo']);

/** Words that take an object and then a bare verb: "helps landlords screen tenants", "lets renters split bills". */
export const CATENATIVE = /^(help|helps|helping|helped|let|lets|letting)$/;
/** Subjects after which a word that can be a verb is one ("where people swap houses", "we monitor fridges"). */
export const SUBJECTS = new Set([...ANYBODY, 'we', 'you', 'they', 'i']);

/**
 * The words of an idea that are verbs of a clause, by English grammar rather than by the tagger's guess (it
 * reads "screen", "swap", "track" after a plural as nouns): a bare verb after a subject ("people swap houses"),
 * or after the object of "help" or "let" ("helps construction firms track equipment"), before what it takes.
 * Index → the verb.
 */
export function clauseVerbsOf(words: readonly Tagged[]): Map<number, string> {
  const found = new Map<number, string>();
  for (let i = 1; i < words.length - 1; i += 1) {
    const word = plain(words[i]!.text);
    const next = words[i + 1]!;
    const bare = /^[a-z]{2,}$/.test(word) && !/s$/.test(word) && (wordnet().verbs.has(word) || knownVerb(word));
    if (!bare || /[,.;:!?|/–—()]/.test(words[i - 1]!.post) || !(nounLike(next) || opensObject(next) || isModifier(next))) continue;
    const prev = plain(words[i - 1]!.text);
    // "where bands rent rehearsal rooms", "where neighbours lend …": a plural after "where" is a clause's subject.
    const afterWhere =
      plain(words[i - 2]?.text ?? '') === 'where' &&
      /[a-z]s$/.test(prev) &&
      canBeNoun(prev) &&
      !isModal(words[i]) &&
      !words[i]!.tags.has('Auxiliary');
    if (SUBJECTS.has(prev) || afterWhere) {
      found.set(i, word);
      continue;
    }
    // "help" or "let", its object (nouns and modifiers ending with a plural), then the bare verb.
    let k = i - 1;
    while (k > 0 && !CATENATIVE.test(plain(words[k]!.text)) && (nounLike(words[k]) || isModifier(words[k]!)) && !found.has(k)) k -= 1;
    if (k < i - 1 && CATENATIVE.test(plain(words[k]!.text)) && /[a-z]s$/.test(prev)) found.set(i, word);
  }
  return found;
}

/** The clause verb before a phrase, past a determiner or whose it is ("screen their tenants"). */
export function clauseVerbBefore(
  words: readonly Tagged[],
  clauseVerbs: ReadonlyMap<number, string>,
  start: number,
): { verb: string; particle?: string; byTool?: true } | undefined {
  let k = start - 1;
  while (k > 0 && beforeObject(words[k]!) && !clauseVerbs.has(k)) k -= 1;
  const verb = clauseVerbs.get(k);
  return verb ? { verb, ...(opensWithToolVerb(words) ? { byTool: true as const } : {}) } : undefined;
}
