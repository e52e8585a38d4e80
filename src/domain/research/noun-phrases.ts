// The noun phrases of an idea, found by an English part-of-speech tagger
// (compromise: maintained, its lexicon and rules ship inside the package, no
// network, no model to download). A hand-kept list of "stop words" cannot say
// that "finds" in "App that finds last-minute padel court bookings" is a verb
// and "last-minute" a modifier; the tagger can, so a verb, determiner, adverb
// or preposition never starts or ends a phrase. Pure: text in, tokens out.
import {
  plain,
  tagged,
  isNoun,
  isModifier,
  isGerund,
  ingAdjective,
  isVerb,
  isFunction,
  knownOrganization,
  canBeNoun,
  looksAcronym,
  isPossessive,
  nounLike,
  knownVerb,
  wordnet,
  lexicalised,
  classifies,
  agentPlural,
} from './tagged-words.js';
export { lexicalised, singular, madeFromVerb } from './tagged-words.js';
import {
  WANTS,
  ANYBODY,
  OWNERS,
  isModal,
  plainVerb,
  opensObject,
  opensWithToolVerb,
  governingVerb,
  clauseVerbsOf,
  clauseVerbBefore,
  MODEL_BRANDS,
  RENTING_MODELS,
  conjugated,
} from './clause-verbs.js';
export { isActNoun, actNouns, MODEL_BRANDS } from './clause-verbs.js';

/** What a word does in its noun phrase. */
export type Role = 'noun' | 'modifier';

export interface PhraseToken {
  /** Lower-cased, accents off; a hyphenated word stays whole ("last-minute"). */
  word: string;
  role: Role;
  /** True for a word the tagger knows as an acronym (EV, CRM). */
  acronym: boolean;
  /** People in the plural ("lovers", "parents", after "for" also "owners", "students"): who it is for, when it ends a phrase. */
  people: boolean;
  /** A company the tagger knows ("Uber", "Airbnb"): in "Uber for dog walking" the model, not the subject. */
  organization?: boolean;
  /** An adjective read as a noun because it names the thing with the noun after it ("mental health", "social media"). */
  classifier?: true;
  /** Nouns joined by a hyphen ("parent-teacher"): as a modifier, it says which kind, as a noun would. */
  nounPair?: true;
  /** Whose the rest is ("kid's" of "your kid's school bus"): never the word that says which kind. */
  owner?: true;
  /** One name with the word after it ("mental" in "mental health", "power" in "power tools"): a search does not split them. */
  joinsNext?: true;
}

/** A run of words the tagger reads as one noun phrase, in the idea's order. */
export interface NounChunk {
  tokens: PhraseToken[];
  /**
   * Who uses the product, not the product: people doing something in a clause of the idea
   * ("where landlords can screen tenants", "for restaurants to order produce", "helps freelancers
   * track their hours") or met with others ("connects homeowners with plumbers").
   */
  users?: true;
  /** Opened by "for": who or what it is for, when its last word is people ("for craft beer lovers"). */
  afterFor?: true;
  /**
   * The verb whose object the phrase is, in its plain form ("digitizes old family photos": "digitize";
   * "renting out your car": "rent"): the need may be the verb's act ("photo digitizing", "car rental").
   */
  verb?: string;
  /** The particle after that verb ("out" of "renting out"): who offers the thing, not who acquires it. */
  particle?: string;
  /** The verb opens the idea ("Rent a projector for …"): the founder offers its act, which is the need. */
  offered?: true;
  /** A tool does the verb ("App that tracks your kid's school bus"): the need may be its agent noun ("school bus tracker"). */
  byTool?: true;
  /** The verb is the model brand's business ("Airbnb for music studios": renting them out): its object is the whole subject. */
  modelled?: true;
  /** A past participle right after the phrase, in its plain form ("Prescriptions delivered …": "deliver"): what is done to it. */
  participle?: string;
}

/** Markup is never part of an idea: script and style elements go with their content, other tags and entities go. */
export function stripMarkup(text: string): string {
  return text
    .replace(/<(script|style)\b[^>]*>[\s\S]*?(<\/\1\s*>|$)/gi, ' ')
    .replace(/<\/?[a-z!][^>]*>?/gi, ' ')
    .replace(/&(?:[a-z]+|#\d+|#x[0-9a-f]+);/gi, ' ');
}

export interface ChunkOptions {
  /** Nouns that end a phrase as a preposition does ("platform", "app"): what follows them starts anew. */
  boundaries?: ReadonlySet<string>;
}

/**
 * The idea's noun phrases in order. Inside a phrase, a gerund after a noun
 * or a modifier is a noun ("dog grooming", "online tutoring"); after a
 * preposition, a verb or a boundary it is a verb ("for renting", "platform
 * connecting"). An idea names a thing, so a verb opening it or between nouns
 * is read as the noun it can also be ("Plant care reminder", "Tax filing
 * help", "herb garden kit"), a past participle before a noun as its modifier ("Automated
 * bookkeeping"), and a word the tagger took for a verb after a noun at the
 * end of a phrase as a noun ("Shopify stores").
 */
export function nounChunks(idea: string, options: ChunkOptions = {}): NounChunk[] {
  const boundaries = options.boundaries ?? new Set<string>();
  const words = tagged(stripMarkup(idea).replace(/\([^)]*\)/g, ' '));
  const chunks: NounChunk[] = [];
  let current: PhraseToken[] = [];
  // The word before the phrase: after "for", a plural agent noun is who it is for ("for dog owners").
  let opener = '';
  // Where the phrase ends in `words`: what follows it says whether it does something (its users).
  let endAt = -1;
  const meta: Array<{ person: boolean; beforeWith: boolean }> = [];
  // Where the phrase starts in `words`, and where the one before it ended: a verb between them governs it.
  let startAt = -1;
  let previousEnd = -1;
  const close = () => {
    current.forEach((t, k) => {
      const after = current[k + 1];
      if (after && t.role === 'noun' && after.role === 'noun' && lexicalised(t.word, after.word)) t.joinsNext = true;
    });
    if (current.some((t) => t.role === 'noun')) {
      const last = words[endAt]!;
      const after = /[,.;:!?|/–—()]/.test(last.post) ? undefined : words[endAt + 1];
      const person = last.tags.has('Plural') && (last.tags.has('Actor') || agentPlural(plain(last.text)));
      // A plural before a verb is its subject ("helps freelancers track", "lets small gyms manage").
      const users =
        isModal(after) ||
        (opener === 'for' && plain(after?.text ?? '') === 'to' && plainVerb(words[endAt + 2])) ||
        // Not one that wants something ("houseplants need sunlight"): what it wants is for it.
        (last.tags.has('Plural') && plainVerb(after) && !WANTS.has(plain(after!.text))) ||
        clauseVerbs.has(endAt + 1);
      // "Tinder but for finding a gym buddy", "Think Airbnb, but for boats": what comes before "but for" is the model, not the subject.
      if (plain(words[endAt + 1]?.text ?? '') === 'but' && plain(words[endAt + 2]?.text ?? '') === 'for')
        for (const t of current) t.organization = true;
      // "PetPal: a smart collar …", "My idea: …": what opens the idea before a colon is its name or a label, not its subject.
      if (chunks.length === 0 && last.post.includes(':') && endAt < words.length - 1) for (const t of current) t.organization = true;
      const modelRents =
        startAt >= 2 && /^(for|of)$/.test(plain(words[startAt - 1]!.text)) && RENTING_MODELS.has(plain(words[startAt - 2]!.text));
      const governed: { verb?: string; particle?: string; offered?: true; byTool?: true; modelled?: true } =
        governingVerb(words, startAt, previousEnd) ??
        clauseVerbBefore(words, clauseVerbs, startAt) ??
        (modelRents ? { verb: 'rent', particle: 'out', modelled: true as const } : {});
      const { verb, particle, offered, byTool, modelled } = governed;
      // "Prescriptions delivered from your pharmacy", "eggs delivered weekly": a participle after the phrase, not before a noun.
      const participle =
        after !== undefined && isVerb(after) && after.tags.has('PastTense') && !nounLike(words[endAt + 2])
          ? plain(conjugated(after.text)?.Infinitive ?? '')
          : '';
      chunks.push({
        ...(offered ? { offered } : {}),
        ...(byTool ? { byTool } : {}),
        ...(modelled ? { modelled } : {}),
        ...(participle ? { participle } : {}),
        tokens: current,
        ...(users ? { users: true as const } : {}),
        ...(opener === 'for' ? { afterFor: true as const } : {}),
        ...(verb ? { verb } : {}),
        ...(particle ? { particle } : {}),
      });
      previousEnd = endAt;
      meta.push({ person, beforeWith: plain(after?.text ?? '') === 'with' });
    }
    current = [];
  };
  const clauseVerbs = clauseVerbsOf(words);
  words.forEach((w, i) => {
    const word = plain(w.text);
    const next = words[i + 1];
    if (clauseVerbs.has(i)) {
      close();
      return;
    }
    // A boundary noun the language joins to the word before it is part of a name, not a kind of business ("power tools").
    const boundary = (k: number) =>
      words[k] !== undefined &&
      boundaries.has(plain(words[k]!.text)) &&
      !(k > 0 && lexicalised(plain(words[k - 1]!.text), plain(words[k]!.text)));
    const endsPhrase = next === undefined || isFunction(next) || boundary(i + 1) || /[,.;:!?|/–—()]/.test(w.post);
    let role: Role | null = null;
    let classifier = false;
    // A bare number or a single letter is nobody's search ("x").
    if (word.length < 2 || /^\d+$/.test(word) || ANYBODY.has(word) || OWNERS.has(word)) role = null;
    else if (i === 0 && opensWithToolVerb(words)) role = null;
    // "an" of "within an hour" is a determiner, though the tagger also reads it as a number.
    else if (w.tags.has('Determiner') && !w.tags.has('Noun')) role = null;
    else if (boundary(i)) {
      close();
      return;
    } else if (w.tags.has('Hyphenated')) {
      // A hyphenated word before a noun of the phrase modifies it; last in its phrase, it is the noun ("e-bike").
      // One ending in a gerund is a noun of its own ("co-working space", "team-building").
      // Last in its phrase, a hyphenated word the tagger does not read as an adjective names the thing ("e-bikes", tagged a verb).
      role =
        isGerund(w) || /ing$/.test(word)
          ? 'noun'
          : !endsPhrase && nounLike(next)
            ? 'modifier'
            : isNoun(w) || !isModifier(w)
              ? 'noun'
              : 'modifier';
    } else if (looksAcronym(w)) role = 'noun';
    // A date or a duration says when, not what ("by the hour", "a 2 year warranty", "Weekend cooking classes").
    // Not after a word of its phrase: "billable hours" are a thing.
    else if ((w.tags.has('Date') || w.tags.has('Duration')) && current.length === 0) role = null;
    // A name written in mixed case is a product's ("iPhones", "eBay"), whatever the tagger makes of it.
    else if (/^[a-z]+[A-Z]/.test(w.text)) role = 'noun';
    // After "to" and before a determiner or a pronoun, a word that can be a verb is one ("to water your plants").
    else if (
      plain(words[i - 1]?.text ?? '') === 'to' &&
      next !== undefined &&
      isFunction(next) &&
      (knownVerb(word) || wordnet().verbs.has(word))
    )
      role = null;
    // After "for" and closing the phrase, a verb in -s is a plural noun the tagger misread ("Airbnb for boats"): no
    // subject comes before it to make it a verb (since 2026-11-29).
    else if (
      plain(words[i - 1]?.text ?? '') === 'for' &&
      (next === undefined || isFunction(next) || /[,.;:!?]/.test(w.post)) &&
      isVerb(w) &&
      !isNoun(w) &&
      /[^s]s$/.test(word) &&
      canBeNoun(word)
    )
      role = 'noun';
    // Whose it is ("your kid's school bus", "local farmers' eggs"): a modifier that never says which kind.
    else if (isPossessive(w) && (isNoun(w) || isVerb(w))) role = 'modifier';
    else if (isFunction(w) && !(isNoun(w) && !w.tags.has('Pronoun'))) role = null;
    else if (ingAdjective(w) && current.some((t) => t.role === 'noun') && nounLike(next)) role = 'noun';
    else if (isGerund(w)) {
      // A gerund before an adjective, a name or an acronym takes an object: a verb ("using AI", "hiring local handymen").
      // Before a determiner, a pronoun or "to", it is a verb too ("musicians looking to form a band").
      const takesObject =
        next !== undefined &&
        (looksAcronym(next) ||
          next.tags.has('ProperNoun') ||
          (isModifier(next) && !isNoun(next)) ||
          // "that" before a verb opens a relative clause, not an object ("Mobile car detailing that comes to you").
          (opensObject(next) && !(plain(next.text) === 'that' && words[i + 2] !== undefined && isVerb(words[i + 2]!))) ||
          plain(next.text) === 'to');
      // After people in the plural, it is what they do ("parents doing school runs"): an English compound
      // takes its first noun in the singular ("dog grooming"), people who do are its subject.
      const prev = current.length > 0 ? words[endAt] : undefined;
      // So is wanting after any plural ("startups needing advice"): a want is never a kind of thing.
      const theyDo =
        prev !== undefined &&
        prev.tags.has('Plural') &&
        (prev.tags.has('Actor') || WANTS.has(word.replace(/ing$/, ''))) &&
        !lexicalised(current.at(-1)!.word, word);
      if (theyDo) close();
      // Opening the idea, it is a noun only where the tagger reads it as one ("parking spot", not "renting camping gear").
      // Or where WordNet names it with the noun after it ("Hearing aid comparison").
      // Before the kind of business, it names the business ("Tutoring marketplace", "Carpooling app").
      const opensName = i === 0 && ((nounLike(next) && (canBeNoun(word) || lexicalised(word, plain(next!.text)))) || boundary(i + 1));
      // Right after a clause's verb and before a noun, it names the object's kind ("manage housekeeping schedules").
      const objectKind = clauseVerbs.has(i - 1) && nounLike(next) && !opensObject(next);
      role = (!takesObject && !theyDo && (current.length > 0 || opensName)) || objectKind ? 'noun' : null;
    } else if (isVerb(w) && !isNoun(w) && clauseVerbs.has(i - 1) && canBeNoun(word)) {
      // Right after a clause's verb, a word that can be a noun is its object ("people swap houses").
      role = 'noun';
    } else if (
      isVerb(w) &&
      !isNoun(w) &&
      w.tags.has('PastTense') &&
      current.length === 0 &&
      i > 0 &&
      isNoun(next ?? w) &&
      !isVerb(next ?? w)
    ) {
      // A participle before a noun says which kind ("buying refurbished laptops"), as an adjective would.
      role = 'modifier';
    } else if (isVerb(w) && !isNoun(w)) {
      // Opening the idea, it may also start a compound through an -ing word ("Bike fitting studio").
      const inPhrase = (current.length > 0 || i === 0) && (nounLike(next) || (i === 0 && ingAdjective(next) && nounLike(words[i + 2])));
      // Between nouns, a word that can be a noun is one ("farmers market delivery", "herb garden kit").
      // Not a verb of wanting after a plural: "houseplants need sunlight" says what they need.
      const wanted = WANTS.has(word) && words[i - 1]?.tags.has('Plural') === true;
      if (inPhrase && wanted) role = null;
      else if (inPhrase && !w.tags.has('PastTense') && canBeNoun(word)) role = 'noun';
      else if (inPhrase && w.tags.has('PastTense')) role = 'modifier';
      // Not before its object, though: "freelancers track their hours" is a verb.
      // Before a word that says how or where and ends the idea ("wedding dresses online"), too.
      else if (
        current.some((t) => t.role === 'noun') &&
        (endsPhrase || (isModifier(next!) && !isNoun(next!) && !nounLike(words[i + 2]))) &&
        !w.tags.has('PastTense') &&
        !opensObject(next) &&
        canBeNoun(word)
      )
        role = 'noun';
    } else if (isNoun(w))
      // An -ing word the tagger took for a noun is a verb where it takes an object: before a determiner
      // ("finding a gym buddy"), or opening a phrase after a boundary, before a modifier ("service
      // delivering fresh flowers").
      role =
        /[a-z]{3}ing$/.test(word) &&
        ((current.length === 0 &&
          (opensObject(next) ||
            // After "I'm", "we are": a verb ("I'm thinking of a mobile coffee cart").
            (i > 0 && (words[i - 1]!.tags.has('Copula') || words[i - 1]!.tags.has('Auxiliary'))) ||
            (i > 0 && boundary(i - 1) && next !== undefined && isModifier(next) && !isNoun(next)))) ||
          // After nouns, before a word that says how or where and ends the phrase, it is what they do ("bakery delivering nationwide").
          (current.some((t) => t.role === 'noun') &&
            next !== undefined &&
            (next.tags.has('Adverb') || isModifier(next)) &&
            !isNoun(next) &&
            !/ing$/i.test(next.text) &&
            !nounLike(words[i + 2])))
          ? null
          : 'noun';
    else if (isModifier(w))
    // An adjective that closes its phrase before a boundary names the thing ("boat rental marketplace"); one
    // the language joins to the noun after it is part of its name ("mental health", "solar panel", "social media").
    {
      classifier = !endsPhrase && next !== undefined && isNoun(next) && !isFunction(next) && classifies(word, plain(next.text));
      // A relational adjective closing a phrase after a noun names the thing ("Rooftop solar": solar power).
      const relationalEnd = endsPhrase && current.some((t) => t.role === 'noun') && wordnet().relational.has(word);
      role = (boundary(i + 1) && current.length > 0 && canBeNoun(word)) || classifier || relationalEnd ? 'noun' : 'modifier';
    }

    if (role === null) {
      close();
      return;
    }
    const acronym = looksAcronym(w);
    // An acronym after nouns starts the compound ("home EV charger": the EV charger, at home).
    if (acronym && current.length > 0 && current.at(-1)!.role === 'noun' && !current.at(-1)!.acronym)
      current = current.map((t) => ({ ...t, role: 'modifier' }));
    if (current.length === 0) {
      // "for the SAT": the determiner between does not change whom or what it is for.
      const back = i > 1 && words[i - 1]!.tags.has('Determiner') ? 2 : 1;
      opener = i >= back ? plain(words[i - back]!.text) : '';
      startAt = i;
    }
    current.push({
      // "kid's" → "kid": a search writes no apostrophe.
      word: isPossessive(w) ? word.replace(/\s+s$/, '') : word,
      ...(isPossessive(w) ? { owner: true as const } : {}),
      role,
      acronym,
      people: w.tags.has('Plural') && (w.tags.has('Actor') || (opener === 'for' && agentPlural(word))),
      ...((w.tags.has('Organization') && (i > 0 || knownOrganization(word))) ||
      (MODEL_BRANDS.has(word) && /^(for|of|but)$/.test(plain(next?.text ?? '')))
        ? { organization: true }
        : {}),
      ...(classifier ? { classifier: true as const } : {}),
      ...(w.tags.has('NounPair') ? { nounPair: true as const } : {}),
    });
    endAt = i;
    // A comma, a full stop or a bracket ends the phrase.
    if (/[,.;:!?|/–—()]/.test(w.post)) close();
  });
  close();
  // People met with other people ("matches dog owners with local dog sitters", "connects homeowners
  // with plumbers"): the ones found are the service; those who look for them use it. People met with
  // anything else are the service ("connecting freelance photographers with small businesses").
  chunks.forEach((c, k) => {
    if (meta[k]!.person && meta[k]!.beforeWith && meta[k + 1]?.person) c.users = true;
  });
  // "App that reminds elderly parents to take their pills": the people are who it acts on; what they are to do is its
  // object ("pill reminder"), so the tool's verb goes to the next phrase, in place of a verb that says nothing of the need.
  chunks.forEach((c, k) => {
    const next = chunks[k + 1];
    if (c.byTool && c.verb && meta[k]!.person && next?.verb && ['take', 'do', 'get', 'make', 'use', 'have'].includes(next.verb)) {
      c.users = true;
      next.verb = c.verb;
      next.byTool = true;
    }
  });
  return chunks;
}

/**
 * How a phrase reads as a search: a `name` is one noun phrase of nouns
 * ("padel court", "dog grooming"), `modified` one that opens with a modifier
 * ("online piano"), a `fragment` anything else: a verb, a function word or an
 * adjective at either end, or words from two phrases ("finds last",
 * "renting camping").
 */
export function phraseForm(phrase: string): 'name' | 'modified' | 'fragment' {
  const words = stripMarkup(phrase).trim().split(/\s+/).filter(Boolean);
  const chunks = nounChunks(phrase);
  if (words.length === 0 || chunks.length !== 1 || chunks[0]!.tokens.length !== words.length) return 'fragment';
  const tokens = chunks[0]!.tokens;
  if (tokens.at(-1)!.role !== 'noun') return 'fragment';
  return tokens[0]!.role === 'modifier' ? 'modified' : 'name';
}
