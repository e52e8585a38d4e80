// An idea's category in Google's top-level tree (CATEGORIES), from what the
// research measured: Google's topic types and the related searches weigh more
// than the idea's own words. A weighted lexicon, so every decision can be read
// back as the terms that made it. How it was built and how often it is right:
// docs/categories.md.
import { CATEGORIES, type Category } from '../catalog.js';
import { nounChunks } from './noun-phrases.js';
import {
  TERMS_WITH_AND,
  tokens,
  termsInWords,
  wordNetTermsIn,
  softwareFormIn,
  ACTIVITY_VERBS,
  termsIn,
  type Term,
  type Found,
} from './category/terms.js';
import { DELIVERY, TOOLS, PEOPLE, TECHNIQUES, PLATFORM_HOSTS, BOUNDARIES } from './category/words.js';

/** What research measured about an idea, as the classifier reads it. */
export interface CategoryEvidence {
  /** The idea as typed (or a demo topic's name). */
  idea: string;
  /** The search phrases taken from the idea (step extract_phrases). */
  phrases: readonly string[];
  /** Autocomplete topics (step autocomplete_phrases); `type` is Google's topic type ("Food", "Dog breed", "Software"). */
  topics: ReadonlyArray<{ title: string; type: string }>;
  /** Related queries, top and rising (steps related_queries_top and related_queries_rising). */
  relatedQueries?: readonly string[];
  /** Related topics (steps related_topics_top and related_topics_rising), with Google's topic type when it gave one. */
  relatedTopics?: ReadonlyArray<{ label: string; type?: string }>;
  /** Freebase types of the topic ("Dish", "Ingredient"), where the data carries them (the demo's GTAB topics). */
  freebaseTypes?: readonly string[];
}

export interface CategoryChoice {
  category: Category;
  /** Google's category id (the `cat` of a Trends request); null for `uncategorized`. */
  google_id: number | null;
  /**
   * 0–1: the winner's share of all the scored evidence, damped when that
   * evidence is thin (below STRONG_EVIDENCE points: an idea word or two alone).
   */
  confidence: number;
  /** The evidence that decided, strongest first, each as `where:term` (e.g. `topic-type:dish`, `related-query:flights`). */
  matched: string[];
  /** Every category that scored, with its points. */
  scores: Partial<Record<Category, number>>;
}

/**
 * How much one matched term counts, by where it was found. What Google
 * measured (the types it gives a topic, the searches people make around it)
 * outweighs the words the idea's author chose; among those words, the head of
 * the idea's noun phrase (the thing it is about: "padel" in "padel court
 * bookings", "food" in "vegan pet food subscription box") outweighs the others,
 * and words after "for"/"with" (who it is for) count least.
 */
export const EVIDENCE_WEIGHTS = {
  head: 3,
  compound: 2,
  idea: 1,
  audience: 0.5,
  topic: 1.5,
  'topic-type': 3,
  'related-query': 2,
  'related-topic': 2,
  'related-topic-type': 3,
  freebase: 3,
} as const;
export type EvidenceSource = keyof typeof EVIDENCE_WEIGHTS;

/** A winner holding this many points (one topic type, or a few related searches) is fully confident of its share. */
export const STRONG_EVIDENCE = 6;

/**
 * The idea's terms by the part they play. The idea is cut at its boundary
 * words ("for", "with", "while", …): before the first is what the idea is,
 * after it who or what it is for. The head is the last subject term of the
 * first part that has one (English puts a compound's head last: "camping
 * gear", "pet food"), passing over a word that only names who delivers it
 * (DELIVERY: "yoga teachers"), together with the subject terms right before
 * it with no other word between ("tabletop miniatures painting", "dog
 * daycare"), so "Marketplace for used motorcycles", whose first part is only a
 * form, is about motorcycles. An idea with no subject term in the lexicon is
 * read again with WordNet's nouns (wordnet-categories.ts), and one with none
 * there either by its software form ("Remote team standup bot").
 */
function ideaTerms(idea: string): Array<[EvidenceSource, Term]> {
  const parts: string[][] = [[]];
  const words = tokens(idea.replace(/\([^)]*\)/g, ' '));
  // "and" inside a lexicon term ("bed and breakfast") joins, not divides.
  const joins = (i: number) => TERMS_WITH_AND.some((t) => t.tokens.every((w, k) => words[i - t.tokens.indexOf('and') + k] === w));
  // The boundary word before each part ("" before the first).
  const before: string[] = [''];
  words.forEach((word, i) => {
    if (BOUNDARIES.has(word) && !(word === 'and' && joins(i))) {
      parts.push([]);
      before.push(word);
    } else parts[parts.length - 1]!.push(word);
  });
  let found = parts.map(termsInWords);
  // The verb after "to" names the activity (ACTIVITY_VERBS), where the lexicon found nothing at that word.
  found = found.map((terms, i) => {
    const activity = i > 0 && before[i] === 'to' && !terms.some((f) => f.start === 0) ? ACTIVITY_VERBS.get(parts[i]![0] ?? '') : undefined;
    return activity ? [{ term: activity, start: 0, end: 1 }, ...terms] : terms;
  });
  // A platform brand is the model of an "X for Y" idea when it ends the first part and "for" follows ("Shopify for
  // restaurants"); anywhere else the idea is software for that platform, and the brand is a subject.
  const asModel = (f: Found, part: number) => part === 0 && f.end === parts[0]!.length && words[f.end] === 'for';
  const platforms = new Set(
    found.flatMap((terms, part) => terms.filter((f) => PLATFORM_HOSTS.has(f.term.term) && !asModel(f, part)).map((f) => f.term.term)),
  );
  const subject = (f: Found) => !f.term.modifier && (!TECHNIQUES.has(f.term.term) || platforms.has(f.term.term));
  // A part whose only subjects are delivery words ("insulin price comparison") is read with WordNet too.
  const firstWithSubject = found.findIndex((terms) => terms.some((f) => subject(f) && !DELIVERY.has(f.term.term)));
  if (firstWithSubject !== 0) {
    // WordNet reads the parts before the first one the lexicon knows a subject in (all of them when none):
    // "App that identifies mushrooms from photos" is about mushrooms, not photos.
    const nouns = new Set(
      nounChunks(idea)
        .flatMap((c) => c.tokens)
        .filter((t) => t.role === 'noun')
        .flatMap((t) => tokens(t.word)),
    );
    const byOrder = (a: Found, b: Found) => a.start - b.start;
    const before = firstWithSubject === -1 ? parts.length : firstWithSubject;
    const fromWordNet = parts.map((words, i) => (i < before ? wordNetTermsIn(words, found[i]!, nouns) : []));
    if (fromWordNet.some((terms) => terms.length > 0)) found = found.map((terms, i) => [...terms, ...fromWordNet[i]!].sort(byOrder));
    else if (!found.some((terms) => terms.some((f) => !f.term.modifier)))
      found = found.map((terms, i) => [...terms, ...softwareFormIn(parts[i]!, parts.flat())].sort(byOrder));
  }
  const technique = (f: Found) => !f.term.modifier;
  const about = found.some((terms) => terms.some(subject)) ? subject : technique;
  const main = Math.max(
    0,
    found.findIndex((terms) => terms.some(about)),
  );
  const subjects = found[main]!.filter(about);
  const heads = subjects.filter((f) => !DELIVERY.has(f.term.term));
  let head = (heads.length > 0 ? heads : subjects).at(-1);
  // A head that only names people served ("teaches kids to swim") or who delivers ("Drone inspection service for
  // solar farms") gives way to the subject the first later part names: that is what the idea is about.
  if (head && (PEOPLE.has(head.term.term) || (DELIVERY.has(head.term.term) && !TOOLS.has(head.term.term)))) {
    const later = found
      .slice(main + 1)
      .map((terms) => terms.filter((f) => about(f) && !PEOPLE.has(f.term.term) && !DELIVERY.has(f.term.term)))
      .find((terms) => terms.length > 0);
    if (later) head = later.at(-1);
  }
  const compound = new Set<Found>();
  for (let k = subjects.indexOf(head!) - 1; k >= 0 && subjects[k]!.end === subjects[k + 1]!.start; k--) compound.add(subjects[k]!);
  // Made for animals, it is a pet product, whatever it is ("Fitness tracker for dogs"): the animal is the head.
  // So is a product that names the animal it serves in the same part ("Smart collar that monitors a cat's health",
  // "Dog treat bakery"), unless the animal is only allowed in ("dog-friendly hotel finder").
  const animal = (f: Found) => f.term.category === 'pets-animals' && f.term.weight >= 2 && !f.term.modifier;
  const friendly = (f: Found, part: number) => parts[part]![f.end] === 'friendly';
  const forAnimals =
    found
      .slice(main + 1)
      .flat()
      .find(animal) ?? found[main]!.find((f) => animal(f) && f !== head && !friendly(f, main));
  if (forAnimals && head && head.term.category !== 'pets-animals') {
    compound.add(head);
    head = forAnimals;
  }
  const role = (f: Found, part: number): EvidenceSource =>
    f === head ? 'head' : compound.has(f) ? 'compound' : part <= main || f.term.modifier ? 'idea' : 'audience';
  return found.flatMap((terms, i) => terms.map((f): [EvidenceSource, Term] => [role(f, i), f.term]));
}

/** The idea's own words, in whatever part they play: one kind of evidence, not measured by Google. */
const IDEA_SOURCES: ReadonlySet<EvidenceSource> = new Set(['head', 'compound', 'idea', 'audience']);

const round2 = (x: number) => Math.round(x * 100) / 100;

/**
 * The category of an idea in Google's top-level tree, from the evidence its
 * research measured. Each lexicon term found counts once per kind of evidence
 * (its weight × EVIDENCE_WEIGHTS of where it was found); a category that only
 * modifiers point to scores nothing; the category with the most points wins; a
 * tie goes to the category with more measured (non-idea) points, then to the
 * first in CATEGORIES. No term found: `uncategorized`.
 */
export function classifyCategory(e: CategoryEvidence): CategoryChoice {
  const found: Array<[EvidenceSource, Term]> = [
    ...ideaTerms(e.idea),
    // The phrases are the idea's own words: they add only terms the idea did not already have.
    ...e.phrases.flatMap((p) => termsIn(p).map((t): [EvidenceSource, Term] => ['idea', t])),
    ...e.topics.flatMap((t) => termsIn(t.title).map((term): [EvidenceSource, Term] => ['topic', term])),
    ...e.topics.flatMap((t) => termsIn(t.type).map((term): [EvidenceSource, Term] => ['topic-type', term])),
    ...(e.relatedQueries ?? []).flatMap((q) => termsIn(q).map((t): [EvidenceSource, Term] => ['related-query', t])),
    ...(e.relatedTopics ?? []).flatMap((r) => termsIn(r.label).map((t): [EvidenceSource, Term] => ['related-topic', t])),
    ...(e.relatedTopics ?? []).flatMap((r) => termsIn(r.type ?? '').map((t): [EvidenceSource, Term] => ['related-topic-type', t])),
    ...(e.freebaseTypes ?? []).flatMap((f) => termsIn(f).map((t): [EvidenceSource, Term] => ['freebase', t])),
  ];
  // One term counts once per kind of evidence: twenty related queries saying "dog" are one "dog";
  // the idea's words (head, idea, audience) are one kind.
  const counted = new Map<string, { term: Term; source: EvidenceSource; points: number }>();
  for (const [source, term] of found) {
    const kind = IDEA_SOURCES.has(source) ? 'idea' : source;
    const key = `${kind}\u0000${term.category}\u0000${term.term}`;
    if (!counted.has(key)) counted.set(key, { term, source, points: term.weight * EVIDENCE_WEIGHTS[source] });
  }
  const decided = new Set([...counted.values()].filter((c) => !c.term.modifier).map((c) => c.term.category));
  const scores: Partial<Record<Category, number>> = {};
  const measured: Partial<Record<Category, number>> = {};
  for (const { term, source, points } of counted.values()) {
    if (!decided.has(term.category)) continue;
    scores[term.category] = (scores[term.category] ?? 0) + points;
    if (!IDEA_SOURCES.has(source)) measured[term.category] = (measured[term.category] ?? 0) + points;
  }
  const order = Object.keys(CATEGORIES) as Category[];
  const ranked = (Object.keys(scores) as Category[]).sort(
    (a, b) => scores[b]! - scores[a]! || (measured[b] ?? 0) - (measured[a] ?? 0) || order.indexOf(a) - order.indexOf(b),
  );
  const winner = ranked[0];
  const rounded = Object.fromEntries(ranked.map((c) => [c, round2(scores[c]!)])) as Partial<Record<Category, number>>;
  if (!winner) return { category: 'uncategorized', google_id: null, confidence: 0, matched: [], scores: {} };
  const best = scores[winner]!;
  const total = Object.values(scores).reduce((a, b) => a + b, 0);
  const matched = [...counted.values()]
    .filter((c) => c.term.category === winner)
    .sort((a, b) => b.points - a.points || a.source.localeCompare(b.source) || a.term.term.localeCompare(b.term.term))
    .map((c) => `${c.source}:${c.term.term}`);
  return {
    category: winner,
    google_id: CATEGORIES[winner].google_id,
    confidence: round2((best / total) * Math.min(1, best / STRONG_EVIDENCE)),
    matched,
    scores: rounded,
  };
}

/**
 * Below this confidence classify_category's category is a guess (an idea word or two, no
 * head term, or a close second), and step aggregate files the insight by the related
 * lists instead.
 */
export const FIRM_CONFIDENCE = 0.5;

/**
 * The insight's category: classify_category's choice, made from the idea's own meaning,
 * unless it was `uncategorized` or below FIRM_CONFIDENCE; then the choice made
 * with the related lists (`measured`, asked for only then). The related lists
 * are searches around the primary phrase, so they can drift from the idea
 * ("vegan pet food" → "vegan food"); they fill a gap, they do not overrule.
 */
export function insightCategory(first: CategoryChoice, measured: () => CategoryChoice): CategoryChoice {
  return first.category !== 'uncategorized' && first.confidence >= FIRM_CONFIDENCE ? first : measured();
}
