// The hand-set prior of step extract_phrases: each candidate phrase of an idea
// and what it is worth before any request. Pure functions; phrase-choice.ts
// hands it the idea's parse and takes its candidates.
//
// Candidates are the idea's noun phrases as an English part-of-speech tagger
// reads them (noun-phrases.ts): a verb, determiner, adverb, preposition or
// markup never starts or ends one, so "App that finds last-minute padel court
// bookings" gives "padel court", never "finds last". An idea reads "<product>
// for <audience>": the first noun phrase that names more than a kind of
// business ("app", "platform", "subscription box") is the product, the later
// ones weigh a third as much. Words that name the kind of business weigh
// nothing and end a phrase. A candidate is 1-3 words of one noun phrase,
// ending with a noun; its coverage is the share of the idea's weight it holds.
// People search a product in about two words: two words of the product get a
// bonus, and the most its first two nouns (its subject, after any modifier:
// "piano lessons" of "online piano lessons", "dog grooming" of "mobile dog
// grooming van"); a phrase opening with a modifier ("online piano") loses a
// little, three words a little more (Google seldom has enough searches of them
// to draw a series). That is the prior, known before any request.
import { actNouns, isActNoun, madeFromVerb, singular, type PhraseToken } from './noun-phrases.js';
import type { CandidateOrigin, IdeaChunk, PhraseCandidate } from './phrase-features.js';
import {
  ACQUIRING_VERBS,
  AGENT_LIGHT_VERBS,
  agentNoun,
  CHANNEL_MODIFIERS,
  FORMAT,
  GENERIC_MODIFIERS,
  LIGHT_VERBS,
  MAKING_VERBS,
  TRANSPARENT_ALONE,
} from './phrase-words.js';
import { round3 } from '../numbers.js';

/** What a generic modifier takes from the prior of a candidate that keeps it and is not the subject. */
const GENERIC_PENALTY = 0.1;
/** What the differentiated subject (the subject with the modifier that says which kind) gets over the bare subject. */
const DIFFERENTIATED_STEP = 0.005;
/** Whether a noun names an act (a verb made noun: "booking", "rental", "installation", "subscription"): a phrase's act tail. */
const actTail = (word: string) => madeFromVerb(word) || isActNoun(word) || isActNoun(singular(word));
/** What the need's act gets over its object's phrase (first), or loses (next to it). */
const ACT_STEP = 0.01;

/** How much the audience's words weigh against the product's. */
const AUDIENCE_WEIGHT = 0.35;
/** What being two words of the product part adds to a candidate's coverage (the length people search a product in). */
const TWO_WORDS_BONUS = 0.25;
/** What being three words long takes away: Google seldom has enough searches of a three-word phrase to draw a series. */
const THREE_WORDS_PENALTY = 0.1;
/** What being the product's first two nouns adds besides (its subject, before its format). */
const SUBJECT_BONUS = 0.15;
/** What opening with a modifier takes away ("online piano" before "piano lessons"). */
const MODIFIER_START_PENALTY = 0.2;
/** How much a modifier weighs against a noun ("online", "last-minute": they say which kind, the nouns say what). */
const MODIFIER_WEIGHT = 0.35;

/** Whether a hyphenated word has a part that says where, when or at what price ("last-minute", "hyper-local"); "-free" is without, not a price ("gluten-free"). */
const genericParts = (word: string) => word.split('-').some((w) => GENERIC_MODIFIERS.has(w) && w !== 'free');
/** Whether a hyphenated word says how or when a product comes: a participle part ("solar-powered", "chef-prepared") or a generic one. */
const hyphenatedManner = (word: string) => word.includes('-') && (word.split('-').some((w) => /ed$/.test(w)) || genericParts(word));

/**
 * Whether the word before a subject may lead it as the word that says which kind ("vegan pet food", "tiny house
 * rental"): not people, a company or an owner, not part of a name WordNet lists, not a generic word, a number or an
 * acronym, nor a hyphenated word that says how or when it comes. Both differentiated subjects ask it; the first adds
 * its own conditions.
 */
function mayLead(left: PhraseToken | undefined, part: readonly PhraseToken[], subjectAt: number): left is PhraseToken {
  return (
    left !== undefined &&
    !left.people &&
    !left.organization &&
    !left.owner &&
    !left.joinsNext &&
    !part[subjectAt - 2]?.joinsNext &&
    !GENERIC_MODIFIERS.has(left.word) &&
    /[a-z]/.test(left.word) &&
    !left.acronym &&
    !hyphenatedManner(left.word)
  );
}

/** The candidates by the hand-set prior (the rules below), best first, and where each came from in the parse. */
export function ruleCandidates(chunks: readonly IdeaChunk[]): { candidates: PhraseCandidate[]; origins: Map<string, CandidateOrigin> } {
  const origins = new Map<string, CandidateOrigin>();
  const parts = chunks.map((c) => c.tokens);
  // The product: the first part with a noun that is not a format, past a brand named as a model
  // ("Uber for dog walking", "Airbnb for boats": the subject follows the brand) and past the people
  // who use it ("where landlords can screen …", "connects homeowners with plumbers").
  const users = new Set(chunks.flatMap((c, i) => (c.users ? [i] : [])));
  const subjectOf = (p: PhraseToken[], i = parts.indexOf(p)) =>
    !(users.has(i) && parts.some((q, k) => k > i && !users.has(k))) &&
    p.some((t) => t.role === 'noun' && !FORMAT.has(t.word) && !TRANSPARENT_ALONE.has(t.word));
  // No part but its users names a subject ("SaaS for dentists to manage patient reminders"): the first with a noun.
  const firstAt = parts.some((p) => subjectOf(p)) ? parts.findIndex((p) => subjectOf(p)) : parts.findIndex((p, i) => !users.has(i));
  const brandOnly = firstAt >= 0 && parts[firstAt]!.every((t) => t.organization || t.role !== 'noun');
  const afterBrand = brandOnly ? parts.findIndex((p, i) => i > firstAt && subjectOf(p)) : -1;
  const productAt = afterBrand >= 0 ? afterBrand : firstAt;
  // Each part's head: its last noun that is not a format or people it is for ("for craft beer lovers": the beer;
  // "padel court bookings": the court). People not after "for" may be the product ("birthday party entertainers").
  const heads = parts.map((part, p) => {
    let head = part.length - 1;
    // Unless what comes before "for" is only a booking form ("Booking platform for freelance makeup artists"): who is
    // booked is the product (since 2026-11-29).
    const booked = p === productAt && productAt > 0 && parts[productAt - 1]!.some((t) => /^bookings?$/.test(t.word));
    const forWhom = (t: PhraseToken) => t.people && chunks[p]!.afterFor === true && !booked;
    while (head > 0 && (FORMAT.has(part[head]!.word) || forWhom(part[head]!)) && part.slice(0, head).some((t) => t.role === 'noun'))
      head -= 1;
    while (head > 0 && part[head]!.role !== 'noun') head -= 1;
    // Three nouns or more, the last or the one before it made from a verb: the compound branches left
    // ("[wedding dress] rental", "[inventory management] software", "[sleep tracking] ring"), so the
    // subject is the two nouns before the last, and the last says in what form it comes.
    // Nouns proper: an adjective that classifies ("electric bike rental", "real estate photography") does not make a third.
    const run = (k: number) => k >= 0 && part[k]!.role === 'noun' && !part[k]!.acronym && !part[k]!.classifier;
    // So does a run of three before "software", which names the kind of product ("[fleet maintenance] software").
    if (
      head >= 2 &&
      run(head) &&
      run(head - 1) &&
      run(head - 2) &&
      (madeFromVerb(part[head]!.word) || madeFromVerb(part[head - 1]!.word) || part[head]!.word === 'software')
    )
      head -= 1;
    return head;
  });
  // Modifiers and the words after the head say which kind or in what form: they weigh less than the subject's nouns.
  const weight = new Map<string, number>();
  parts.forEach((part, i) => {
    const w = i < productAt ? 0 : i === productAt ? 1 : AUDIENCE_WEIGHT;
    part.forEach((t, k) =>
      weight.set(t.word, Math.max(weight.get(t.word) ?? 0, w * (t.role === 'modifier' || k > heads[i]! ? MODIFIER_WEIGHT : 1))),
    );
  });
  const total = [...weight.values()].reduce((a, b) => a + b, 0);
  const found = new Map<string, PhraseCandidate>();
  // "Subscription box for coffee lovers": the idea names only a form before its subject, and the
  // subject is one word, too broad to search alone ("coffee"); people search the subject with the
  // form ("coffee subscription", "coffee box"), so those are candidates, the first form first.
  const formOnly = productAt > 0 ? parts[productAt - 1]!.filter((t) => t.role === 'noun') : [];
  const forms = formOnly.length > 0 && formOnly.every((t) => FORMAT.has(t.word)) ? formOnly.map((t) => t.word) : [];
  parts.forEach((part, p) => {
    if (p < productAt) return;
    const product = p === productAt;
    const head = heads[p]!;
    // The subject: the head and the noun before it. A modifier is not part of it ("local handymen": "handymen"),
    // except before an activity, which it names a kind of ("online tutoring", "vertical farming"; not "automated").
    const before = part[head - 1];
    const activity = part[head]!.word.endsWith('ing') && !before?.word.endsWith('ed');
    // A subject never splits one name ("[real estate] photography").
    // A lone noun after its modifier is searched with it: one noun says too little ("smart collar",
    // "personal trainer", "billable hours", "wholesale produce").
    // Not a modifier that says where, how or at what price it comes (a search adds those as it likes:
    // "local handymen", "online tutoring"), nor a participle ("automated").
    // A hyphenated one says which kind ("solar-powered backpack", "gluten-free pizza", "3d-printed prosthetics"; since
    // 2026-11-29) unless it is generic ("last-minute", "same-day") or says whom the thing suits ("eco-friendly",
    // "allergy-friendly"), and only where the head ends the phrase but for a form ("gluten-free pizza delivery").
    const lastNoun = part.findLastIndex((t) => t.role === 'noun' && !FORMAT.has(t.word));
    const kindHyphen = (t: PhraseToken) =>
      t.word.includes('-') && !GENERIC_MODIFIERS.has(t.word) && !genericParts(t.word) && !/-friendly$/.test(t.word) && lastNoun === head;
    const lone =
      before?.role === 'modifier' &&
      !before.owner &&
      part[head - 2]?.role !== 'noun' &&
      (before.nounPair === true || !/-|ed$/.test(before.word) || kindHyphen(before)) &&
      !CHANNEL_MODIFIERS.has(before.word);
    const subjectAt = before && (before.role === 'noun' || activity || lone) ? (part[head - 2]?.joinsNext ? head - 2 : head - 1) : head;
    for (let n = Math.min(3, part.length); n >= 1; n -= 1)
      for (let i = 0; i + n <= part.length; i += 1) {
        const tokens = part.slice(i, i + n);
        // A search names the whole of a name the language made of two words: not "health" of "mental health", nor "power" of "power tools".
        if (tokens.at(-1)!.role !== 'noun' || tokens.at(-1)!.joinsNext || part[i - 1]?.joinsNext) continue;
        // An act at the end is searched in the singular ("sauna rental" of "sauna rentals", "roof inspection").
        const lastWord = tokens.at(-1)!.word;
        // Not an -ing plural, which names things ("buildings", "meetings").
        const actEnd =
          n > 1 && /[^s]s$/.test(lastWord) && !/ings$/.test(lastWord) && isActNoun(singular(lastWord)) && singular(lastWord) !== lastWord;
        const phrase = [...tokens.slice(0, -1).map((t) => t.word), actEnd ? singular(lastWord) : lastWord].join(' ');
        if (found.has(phrase)) continue;
        const words = new Set(tokens.map((t) => t.word));
        const coverage = total > 0 ? [...words].reduce((a, w) => a + (weight.get(w) ?? 0), 0) / total : 0;
        const subject = product && i === subjectAt && i + n - 1 === head;
        // Who it is for, after the subject ("coffee lovers"), is not the product: no bonus for its length.
        const audience = tokens.at(-1)!.people && i + n - 1 > head;
        origins.set(phrase, { kind: 'slice', part: p, product, start: i, end: i + n - 1, head, subjectAt });
        found.set(phrase, {
          phrase,
          coverage: round3(coverage),
          names_product: subject,
          prior: round3(
            coverage +
              (n === 2 && product && !audience && (subject || tokens[0]!.role === 'noun') ? TWO_WORDS_BONUS : 0) +
              (subject ? SUBJECT_BONUS : 0) -
              (tokens[0]!.role === 'modifier' && !subject ? MODIFIER_START_PENALTY : 0) -
              (!subject && tokens.some((t) => t.role === 'modifier' && GENERIC_MODIFIERS.has(t.word)) ? GENERIC_PENALTY : 0) -
              (n === 3 ? THREE_WORDS_PENALTY : 0),
          ),
        });
      }
    // The differentiated subject: the subject, the act it is sold as after it ("padel court booking",
    // "ev charger installation"), and the word before it that says which kind ("vegan pet food", "tiny
    // house rental"), in at most three words, the head's end kept first. It comes first: the idea's
    // differentiator is what a founder asks about; the bare subject follows it.
    if (product) {
      const subjectTokens = part.slice(subjectAt, head + 1);
      const bare = found.get(subjectTokens.map((t) => t.word).join(' '));
      const after = part[head + 1];
      // A one-word subject is searched with the act it is sold as ("sauna rental"); a two-word one is a search already.
      // So is one a participle after the phrase says is done to it ("Prescriptions delivered …": "prescription delivery");
      // not one by which it is sold or made ("mugs sold online", "portraits painted"), which says nothing of the need.
      const participle = chunks[p]!.participle;
      const participleAct =
        participle && !LIGHT_VERBS.has(participle) && !ACQUIRING_VERBS.has(participle) && !MAKING_VERBS.has(participle)
          ? actNouns(participle)[0]
          : undefined;
      const tail =
        after && after.role === 'noun' && !after.people && subjectTokens.length === 1 && actTail(after.word)
          ? singular(after.word)
          : !after && subjectTokens.length === 1 && participleAct && !subjectTokens[0]!.people
            ? participleAct
            : undefined;
      const left = part[subjectAt - 1];
      // An act's object takes the modifier, not the act ("vintage watch" of "vintage watch authentication"): no lead before one.
      // So is one the act follows ("photo book printing", "last-minute padel court bookings": the modifier may be the act's).
      const acts =
        subjectTokens.some((t) => t.role === 'noun' && (actTail(t.word) || /ing$/.test(t.word))) ||
        (subjectTokens.length > 1 && after?.role === 'noun' && actTail(after.word));
      // Before two words, only a plain word says which kind ("vegan pet food", "tiny house"); a hyphenated word or a
      // participle says how or where it comes ("same-day laundry pickup", "guided fishing trips"). An -ing noun there
      // is a compound of its own ("team building escape rooms").
      // Since 2026-11-29 a participle or a hyphenated word that is not generic says which kind too ("refurbished laptops",
      // "used camera gear", "sugar-free ice cream"): the generic ones ("last-minute", "same-day", "automated") are listed.
      // Before a two-word subject only where WordNet names the two as one ("sugar-free ice cream"); a hyphenated word
      // made of a participle says how it is made ("solar-powered", "chef-prepared"), as a generic part says where or when
      // ("hyper-local").
      const plainLead = (t: PhraseToken) =>
        !/ing$/.test(t.word) && (!/-|ed$/.test(t.word) || subjectTokens.length === 1 || subjectTokens[0]!.joinsNext === true);
      const leadable =
        mayLead(left, part, subjectAt) &&
        // After a plural, or opening a part after the people who use it, a word is their verb ("renters split utility
        // bills", "law firms automate client intake"): a noun before a noun is singular in English.
        !(subjectAt === 1 && chunks[p - 1]?.users) &&
        !(part[subjectAt - 2]?.role === 'noun' && /[^s]s$/.test(part[subjectAt - 2]!.word)) &&
        plainLead(left) &&
        (left.role === 'modifier' || !/ing$/.test(left.word));
      const lead = leadable && subjectTokens.length + (tail ? 1 : 0) < 3 && !acts ? left : undefined;
      const tokens = [...(lead ? [lead] : []), ...subjectTokens];
      // Before its act a noun is singular, as an English compound has it ("prescription delivery").
      const phrase = [...tokens.map((t, k) => (tail && k === tokens.length - 1 ? singular(t.word) : t.word)), ...(tail ? [tail] : [])].join(
        ' ',
      );
      if (bare && (lead || tail) && !found.has(phrase)) {
        const covered = [...tokens, ...(tail && after ? [after] : [])].reduce((a, t) => a + (weight.get(t.word) ?? 0), 0);
        origins.set(phrase, { kind: 'differentiated', part: p, product, start: subjectAt - (lead ? 1 : 0), end: head, head, subjectAt });
        found.set(phrase, {
          phrase,
          coverage: round3(covered / Math.max(total, 1e-9)),
          names_product: true,
          prior: round3(bare.prior + DIFFERENTIATED_STEP),
        });
      } else if (bare && found.has(phrase) && phrase !== bare.phrase) {
        const existing = found.get(phrase)!;
        found.set(phrase, { ...existing, names_product: true, prior: round3(Math.max(existing.prior, bare.prior + DIFFERENTIATED_STEP)) });
      }
    }
    // A two-word subject and the act it is sold as after it: the whole compound, with the word before it that says
    // which kind, in at most three words, the act left out first ("gym class booking", "tiny house rental", "luxury watch
    // authentication", "robot lawn mower" of "robot lawn mower rental", "organic baby food" of "organic baby food
    // delivery"; since 2026-11-29). It comes first: the need is the thing and its act, the kind the founder names.
    if (product) {
      const subjectTokens = part.slice(subjectAt, head + 1);
      const after = part[head + 1];
      const bare = found.get(subjectTokens.map((t) => t.word).join(' '));
      const left = part[subjectAt - 1];
      // Not a form it comes in ("booking", "delivery", "subscription", "coaching"): a search leaves those out.
      const act =
        after &&
        after.role === 'noun' &&
        !after.people &&
        // Nor an -ing word, which names the compound's activity, not what is sold ("birthday party planning").
        !/ing$/.test(after.word) &&
        !FORMAT.has(after.word) &&
        !FORMAT.has(singular(after.word)) &&
        actTail(singular(after.word))
          ? singular(after.word)
          : undefined;
      const leadOk = mayLead(left, part, subjectAt);
      if (bare && act && subjectTokens.length === 2) {
        const words = [...(leadOk ? [left!.word] : []), ...subjectTokens.map((t) => t.word), act];
        const phrase = (words.length > 3 ? words.slice(0, -1) : words).join(' ');
        const covered = [...(leadOk ? [left!] : []), ...subjectTokens, after!].reduce((a, t) => a + (weight.get(t.word) ?? 0), 0);
        origins.set(phrase, {
          kind: 'differentiated',
          part: p,
          product,
          start: subjectAt - (leadOk ? 1 : 0),
          end: head + 1,
          head,
          subjectAt,
        });
        found.set(phrase, {
          phrase,
          coverage: round3(covered / Math.max(total, 1e-9)),
          names_product: true,
          prior: round3(
            Math.max(bare.prior, ...[...found.values()].filter((c) => c.names_product).map((c) => c.prior)) + DIFFERENTIATED_STEP,
          ),
        });
      }
    }
    // The object of a verb that says the need ("digitizes old family photos", "split rent", "renting out
    // your car"): the need is the verb's act, searched after the object's noun, singular as an English
    // compound has it ("photo digitizing", "rent splitting", "car rental"); WordNet's noun of the act first.
    // Its object is the subject's noun, or the name it ends ("sign language translation"); not a lone noun its
    // modifier says the kind of ("track their billable hours": the hours are the subject).
    const verb = chunks[p]!.verb;
    // People may be the object of the need ("screen tenants": "tenant screening"), unless they use the product.
    if (product && verb && !LIGHT_VERBS.has(verb) && !(part[head]!.people && chunks[p]!.users) && !(lone && subjectAt < head)) {
      // Where the object is the product (it is acquired or made), its whole name goes with the act ("camping gear rental").
      // Not when the verb opens the idea ("Rent a projector for …"): the founder offers the act, so it is the need.
      const objectFirst = ((ACQUIRING_VERBS.has(verb) && !chunks[p]!.particle) || MAKING_VERBS.has(verb)) && !chunks[p]!.offered;
      const objectWords =
        objectFirst || chunks[p]!.modelled
          ? part.slice(subjectAt, head + 1)
          : part[head - 1]?.joinsNext
            ? part.slice(head - 1, head + 1)
            : [part[head]!];
      const object = [...objectWords.slice(0, -1).map((t) => t.word), singular(part[head]!.word)].join(' ');
      const subjectPrior = Math.max(0, ...[...found.values()].filter((c) => c.names_product).map((c) => c.prior));
      const step = (objectFirst ? -ACT_STEP : ACT_STEP) - (objectWords.length > 1 ? THREE_WORDS_PENALTY : 0);
      const coverage = round3(objectWords.reduce((a, t) => a + (weight.get(t.word) ?? 0), 0) / Math.max(total, 1e-9));
      // The first act only: a second form of it ("rental", "renting") would take a measured place from another phrase.
      actNouns(verb)
        .slice(0, 1)
        .forEach((act, k) => {
          const phrase = `${object} ${act}`;
          if (found.has(phrase) || object === act || objectWords.length > 2) return;
          origins.set(phrase, { kind: 'act', part: p, product, start: -1, end: -1, head, subjectAt });
          found.set(phrase, { phrase, coverage, names_product: true, prior: round3(subjectPrior + step - (k * ACT_STEP) / 10) });
        });
    }
    // A tool that does the verb ("App that tracks your kid's school bus", "A Chrome extension that blocks distracting
    // websites", "reminds elderly parents to take their pills"): people search the tool by its agent noun after the
    // object's noun ("school bus tracker", "website blocker", "pill reminder"), first; below the object where the verb
    // finds or makes it ("finds coupon codes": the codes are searched, "coupon code finder" next).
    if (
      product &&
      verb &&
      chunks[p]!.byTool &&
      // Whoever rents, buys or sells is a person, not a tool ("textbook seller"); so is whoever writes, reads or designs
      // ("grant application writer", "scan reader": they also misfiled the idea's category), but "maker" and "generator".
      !ACQUIRING_VERBS.has(verb) &&
      !(MAKING_VERBS.has(verb) && verb !== 'make' && verb !== 'generate') &&
      verb !== 'read' &&
      (!LIGHT_VERBS.has(verb) || AGENT_LIGHT_VERBS.has(verb)) &&
      !part[head]!.people
    ) {
      // The object's head, with the noun before it where WordNet names the two as one ("school bus tracker", "essay grader").
      const objectWords = part[head - 1]?.joinsNext ? part.slice(head - 1, head + 1) : [part[head]!];
      const object = [...objectWords.slice(0, -1).map((t) => t.word), singular(part[head]!.word)].join(' ');
      const phrase = `${object} ${agentNoun(verb)}`;
      const subjectPrior = Math.max(0, ...[...found.values()].filter((c) => c.names_product).map((c) => c.prior));
      const below = verb === 'find' || MAKING_VERBS.has(verb);
      if (!found.has(phrase)) {
        origins.set(phrase, { kind: 'act', part: p, product, start: -1, end: -1, head, subjectAt });
        found.set(phrase, {
          phrase,
          coverage: round3(objectWords.reduce((a, t) => a + (weight.get(t.word) ?? 0), 0) / Math.max(total, 1e-9)),
          names_product: true,
          prior: round3(subjectPrior + (below ? -ACT_STEP : 2 * ACT_STEP)),
        });
      }
    }
    // A subject of one noun, and what it is for after it ("Recruitment platform for nurses", "Translation
    // service for legal documents", "Telehealth for pets"): a search puts the one before the other, singular
    // ("nurse recruitment", "document translation", "pet telehealth"). An act's object when WordNet names the
    // subject a verb's act and they are many (first); otherwise a kind of it (next to it: "bookkeeping for artists").
    const forPart = chunks[p + 1];
    // "AI" before the subject says how it is made, not what it is of: "AI bookkeeping for Etsy sellers" is bookkeeping for them.
    const madeBy = lone && TRANSPARENT_ALONE.has(part[head - 1]!.word);
    if (product && ((subjectAt === head && !lone) || madeBy) && forPart?.afterFor && !forPart.users && !chunks[p]!.verb) {
      const forTokens = forPart.tokens;
      // People named by what they sell on or use ("Etsy sellers", "Shopify stores"): that name says whose it is ("etsy bookkeeping").
      const people = forTokens.at(-1)!;
      const named = forTokens.at(-2);
      // An acronym opening it is what it is about ("for SAT prep": SAT tutoring).
      const forHead = forTokens[0]!.acronym
        ? forTokens[0]!
        : people.people && named?.role === 'noun' && !named.people && !named.classifier
          ? named
          : people;
      const subjectPrior = Math.max(0, ...[...found.values()].filter((c) => c.names_product).map((c) => c.prior));
      const actOf =
        (isActNoun(part[head]!.word) && /s$/.test(people.word)) ||
        (forHead.acronym && (isActNoun(part[head]!.word) || /ing$/.test(part[head]!.word)));
      const phrase = `${singular(forHead.word)} ${part[head]!.word}`;
      if (forHead.role === 'noun' && !found.has(phrase) && forTokens.length <= 3) {
        origins.set(phrase, { kind: 'audience', part: p, product, start: -1, end: -1, head, subjectAt });
        found.set(phrase, {
          phrase,
          coverage: round3(((weight.get(part[head]!.word) ?? 0) + (weight.get(forHead.word) ?? 0)) / Math.max(total, 1e-9)),
          names_product: true,
          prior: round3(subjectPrior + (actOf ? ACT_STEP : -ACT_STEP)),
        });
      }
    }
    // A subject of one noun and its modifier ("fresh flowers") goes with the form by its noun ("flower subscription").
    const subjectWords = part.slice(lone ? head : subjectAt, head + 1);
    if (product && forms.length > 0 && subjectWords.length === 1 && !subjectWords[0]!.people) {
      // Before the form, the subject is singular, as an English compound has it ("flower subscription").
      const word = singular(subjectWords[0]!.word);
      const coverage = round3((weight.get(subjectWords[0]!.word) ?? 0) / Math.max(total, 1e-9));
      const withForm = [...forms.map((f) => [word, f]), forms.length > 1 ? [word, ...forms] : []].filter((w) => w.length > 1);
      for (const words of withForm) {
        const phrase = words.join(' ');
        if (found.has(phrase) || words.length > 3) continue;
        const prior = coverage + SUBJECT_BONUS + (words.length === 2 ? TWO_WORDS_BONUS : -THREE_WORDS_PENALTY);
        origins.set(phrase, { kind: 'form', part: p, product, start: -1, end: -1, head, subjectAt });
        found.set(phrase, { phrase, coverage, names_product: true, prior: round3(prior) });
      }
    }
  });
  // On a tie, the longer phrase first: it says more of the idea.
  const candidates = [...found.values()].sort((a, b) => b.prior - a.prior || b.phrase.split(' ').length - a.phrase.split(' ').length);
  return { candidates, origins };
}
