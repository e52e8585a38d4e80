// What breadth, pain, intent and whitespace read now that Google serves related
// lists empty: the modifier comparison, autocomplete topics, and the lists when
// there are any; and how thin evidence lowers the confidence.
import { describe, expect, it } from 'vitest';
import {
  carriesFamily,
  familyQuery,
  familyShares,
  familyStrength,
  MAX_ITEM_CHARS,
  MODIFIER_FAMILIES,
  modifierRequest,
  RESOLVED_PHRASE_MEAN,
  type FamilyShare,
} from '../../src/domain/research/modifier-evidence.js';
import { termShare, type TermShare } from '../../src/domain/research/query-signals.js';
import { topicSignals } from '../../src/domain/research/topic-signals.js';
import {
  AUTOCOMPLETE_STRENGTH,
  scoreBreadth,
  scoreIntent,
  scorePain,
  scoreWhitespace,
  SIGNAL_SATURATION,
} from '../../src/domain/scoring/dimension-scores.js';
import { DIMENSIONS, type DimensionScores } from '../../src/domain/scoring/dimensions.js';
import { combineScores } from '../../src/domain/scoring/overall.js';
import { SyntheticTrendsProvider } from '../../src/providers/synthetic/provider.js';
import type { TimelinePoint } from '../../src/domain/trends/answers.js';

const none = (why = 'not asked') => ({ unavailable: why });
const week = (i: number) => new Date(Date.UTC(2026, 0, 4) + i * 7 * 86_400_000).toISOString().slice(0, 10);
const points = (columns: number[][], opts: { partialLast?: boolean; noDataAt?: number[] } = {}): TimelinePoint[] =>
  columns[0]!.map((_, i) => ({
    date: week(i),
    values: columns.map((c) => c[i]!),
    hasData: columns.map(() => !opts.noDataAt?.includes(i)),
    isPartial: opts.partialLast === true && i === columns[0]!.length - 1,
  }));
const share = (s: number, phraseMean = 60, terms = ['how to', 'fix']): FamilyShare => ({
  family: 'pain',
  terms,
  share: s,
  family_mean: s * phraseMean,
  phrase_mean: phraseMean,
  points: 52,
  resolution: 0.5 / phraseMean,
});

describe('the modifier comparison', () => {
  it("joins the phrase and each modifier with Google's OR, most telling first", () => {
    expect(familyQuery('pizza', 'pain')).toEqual({
      family: 'pain',
      keyword: 'pizza how to + pizza fix + pizza not working + pizza problem + pizza error + pizza broken',
      terms: ['how to', 'fix', 'not working', 'problem', 'error', 'broken'],
    });
    expect(familyQuery('  Meal   Planner ', 'competition')!.keyword).toBe(
      'meal planner vs + meal planner alternative + meal planner alternatives + meal planner competitors',
    );
  });

  it(`keeps every comparison item within Google's ${MAX_ITEM_CHARS} characters, dropping the last modifiers first`, () => {
    for (const phrase of ['ai', 'pizza', 'dog walking marketplace', 'budget travel planner for university students abroad']) {
      const request = modifierRequest(phrase)!;
      expect(request.keywords[0]).toBe(phrase);
      expect(request.keywords.length).toBeLessThanOrEqual(5); // Google refuses more than five items
      for (const q of request.families) {
        expect(q.keyword.length).toBeLessThanOrEqual(MAX_ITEM_CHARS);
        expect(q.terms).toEqual(MODIFIER_FAMILIES[q.family].slice(0, q.terms.length));
      }
    }
    const long = modifierRequest('budget travel planner for university students abroad')!;
    expect(long.families.find((f) => f.family === 'pain')!.terms.length).toBeLessThan(MODIFIER_FAMILIES.pain.length);
    // A phrase with no room for even one modifier is not asked at all.
    expect(modifierRequest('x'.repeat(MAX_ITEM_CHARS))).toBeNull();
  });

  it("reads each family's share of the phrase's searches from the means over the weeks with data", () => {
    const request = modifierRequest('pizza')!;
    const phrase = [80, 100, 60, 40, 0];
    const pain = [2, 3, 1, 2, 0];
    const intent = [20, 25, 15, 10, 0];
    const competition = [0, 0, 0, 0, 0];
    // The last week is partial and the third has no data: both left out.
    const result = familyShares(request, { points: points([phrase, pain, intent, competition], { partialLast: true, noDataAt: [2] }) });
    if (!result.ok) throw new Error(result.reason);
    // phrase mean (80 + 100 + 40) / 3; pain (2 + 3 + 2) / 3
    expect(result.shares.pain).toMatchObject({
      share: Math.round((7 / 220) * 10_000) / 10_000,
      points: 3,
      phrase_mean: 73.333,
      family_mean: 2.333,
      terms: request.families[0]!.terms,
    });
    expect(result.shares.intent!.share).toBeCloseTo(55 / 220, 4);
    expect(result.shares.competition).toMatchObject({ share: 0, resolution: Math.round((0.5 / (220 / 3)) * 10_000) / 10_000 });
  });

  it('never reads a share above 1 (rounding can put a part a hair above its whole), and refuses a phrase without data', () => {
    const request = modifierRequest('pizza')!;
    const r = familyShares(request, {
      points: points([
        [1, 1],
        [2, 1],
        [0, 0],
        [0, 0],
      ]),
    });
    expect(r.ok && r.shares.pain!.share).toBe(1);
    expect(
      familyShares(request, {
        points: points([
          [0, 0],
          [0, 0],
          [0, 0],
          [0, 0],
        ]),
      }),
    ).toEqual({ ok: false, reason: expect.stringMatching(/no data for "pizza"/) });
    expect(familyShares(request, { points: [] }).ok).toBe(false);
  });

  it(`counts a reading fully when the phrase averages ${RESOLVED_PHRASE_MEAN} or more of its peak, in proportion below`, () => {
    expect(familyStrength({ phrase_mean: 70 })).toBe(1);
    expect(familyStrength({ phrase_mean: RESOLVED_PHRASE_MEAN / 2 })).toBe(0.5);
  });

  it('matches a listed query the way the comparison item counts it: the phrase and a modifier, whole words, any order', () => {
    expect(carriesFamily('how to make pizza', 'pizza', 'pain')).toBe(true);
    expect(carriesFamily('pizza near me delivery', 'pizza', 'intent')).toBe(true);
    expect(carriesFamily('delivery near me', 'pizza', 'intent')).toBe(false); // the phrase is missing
    expect(carriesFamily('pizza apps', 'pizza', 'intent')).toBe(false); // "app" is a whole word
    expect(carriesFamily('best bagel near me', 'bagel', 'intent')).toBe(true);
  });
});

describe('autocomplete topics', () => {
  it('counts topics, their distinct types, and the ones whose type names a business', () => {
    const signals = topicSignals([
      { title: 'Pizza', type: 'Dish' },
      { title: 'Pizza Hut', type: 'Restaurant chain' },
      { title: 'Pizza dough', type: 'Food' },
      { title: 'history of pizza', type: 'Food' },
      { title: 'Pizza Planet', type: 'Mobile app' },
    ]);
    expect(signals).toEqual({
      topics: 5,
      types: ['Dish', 'Restaurant chain', 'Food', 'Mobile app'],
      brand_topics: 2,
      brand_examples: ['Pizza Hut (Restaurant chain)', 'Pizza Planet (Mobile app)'],
    });
    // "Application" names a business; "Apple" (a fruit's type word) does not contain "app".
    expect(topicSignals([{ title: 'x', type: 'Apple cultivar' }]).brand_topics).toBe(0);
  });
});

describe('pain and intent', () => {
  it('score the modifier reading alone against its saturation, with its evidence and sources', () => {
    const pain = scorePain({ modifiers: share(0.04, 60), lists: none('Google served them empty') });
    expect(pain.score).toBeCloseTo(0.04 / SIGNAL_SATURATION.pain.modifiers, 3);
    expect(pain.strength).toBe(1);
    expect(pain.evidence).toMatchObject({
      sources: 'modifier comparison',
      modifier_share: 0.04,
      modifier_terms: 'how to | fix',
      not_read: 'related queries: Google served them empty',
    });
    expect(pain.explanation).toMatch(/^4% of searches for the phrase carry a problem word \(how to, fix\)\.$/);
    expect(scoreIntent({ modifiers: { ...share(0.5), family: 'intent' }, lists: none() }).score).toBe(1);
  });

  it('combine the two readings, weighted by strength, when Google lists related queries too', () => {
    const lists = termShare(['pizza how to', 'pizza hut', 'pizza near me', 'dominos'], ['how to']);
    const both = scorePain({ modifiers: share(0.02, 60), lists });
    // modifier 0.02 / 0.1 = 0.2 and lists 0.25 / 0.25 = 1, both at strength 1
    expect(both.score).toBeCloseTo(0.6, 3);
    expect(both.evidence).toMatchObject({ sources: 'modifier comparison + related queries', list_matched: 1, list_total: 4 });
    expect(both.evidence.not_read).toBeUndefined();
    // A phrase Google's rounding resolves coarsely counts less, in the score and in the confidence.
    const coarse = scorePain({ modifiers: share(0.02, RESOLVED_PHRASE_MEAN / 2), lists });
    expect(coarse.score).toBeCloseTo((0.2 * 0.5 + 1 * 1) / 1.5, 3);
    expect(coarse.strength).toBe(1);
    expect(scorePain({ modifiers: share(0.02, RESOLVED_PHRASE_MEAN / 2), lists: none() }).strength).toBe(0.5);
  });

  it('say below what share a zero reading is, rather than claim none', () => {
    expect(scorePain({ modifiers: share(0, 50), lists: none() }).explanation).toMatch(/^Under 1% of searches/);
  });

  it('have no score, with every reason, when there is nothing to read', () => {
    const result = scorePain({ modifiers: none('replay has no recording of it'), lists: none('Google served them empty') });
    expect(result.score).toBeNull();
    expect(result.explanation).toMatch(/modifier comparison: replay has no recording of it; related queries: Google served them empty/);
    expect(scoreIntent({ modifiers: none(), lists: termShare([], ['best']) }).explanation).toMatch(/Google listed none/);
    expect(scoreIntent(null).score).toBeNull();
  });
});

describe('breadth', () => {
  const ac = topicSignals([
    { title: 'a', type: 'Topic' },
    { title: 'b', type: 'Company' },
    { title: 'c', type: 'Software' },
  ]);
  it('reads autocomplete alone as thin evidence (half strength)', () => {
    const b = scoreBreadth({ lists: none('Google served them empty'), autocomplete: ac, modifiers: none('replay has no recording of it') });
    expect(b.score).toBeCloseTo(0.5 * (3 / 5) + 0.5 * (3 / 4), 3);
    expect(b.strength).toBe(AUTOCOMPLETE_STRENGTH);
    expect(b.evidence).toMatchObject({ sources: 'autocomplete', autocomplete_topics: 3, topic_types: 'Topic | Company | Software' });
  });

  it('adds the share of modifier families searched at all, and the lists when there are any', () => {
    const b = scoreBreadth({ lists: none(), autocomplete: ac, modifiers: { registering: 2, families: 3, phrase_mean: 60 } });
    const acScore = 0.5 * (3 / 5) + 0.5 * (3 / 4);
    expect(b.score).toBeCloseTo((acScore * 0.5 + (2 / 3) * 1) / 1.5, 3);
    expect(b.strength).toBe(1);
    const withLists = scoreBreadth({ lists: { queries: 38, topics: 24, vocabulary: 47 }, autocomplete: none(), modifiers: none() });
    expect(withLists).toMatchObject({ score: 1, strength: 1, evidence: { sources: 'related lists', related_queries: 38 } });
    expect(scoreBreadth({ lists: none(), autocomplete: topicSignals([]), modifiers: none() }).score).toBeNull();
  });
});

describe('whitespace', () => {
  const brands: TermShare = termShare(['pizza hut', 'dominos pizza', 'pizza near me', 'pizza dough'], ['hut', 'dominos']);
  it('is 1 − the stronger of comparison and brand pressure', () => {
    const ac = topicSignals([
      { title: 'Pizza', type: 'Dish' },
      { title: 'Pizza Hut', type: 'Restaurant chain' },
    ]);
    const w = scoreWhitespace({
      comparisons: { modifiers: { ...share(0.01), family: 'competition' }, lists: none() },
      brands: { autocomplete: ac, lists: none() },
    });
    const comparison = 0.01 / SIGNAL_SATURATION.competition.modifiers; // 0.2
    const brand = Math.min(1, 0.5 / 0.4); // 1 of 2 topics names a business
    // The stronger pressure decides: a space crowded by brands is crowded whatever the comparisons say.
    expect(w.score).toBeCloseTo(1 - Math.max(comparison, brand), 3);
    expect(w.strength).toBeCloseTo((1 + AUTOCOMPLETE_STRENGTH) / 2, 3);
    expect(w.evidence).toMatchObject({ sources: 'modifier comparison + autocomplete', brand_topics: 1, autocomplete_topics: 2 });
    expect(w.explanation).toMatch(/1 of 2 autocomplete topics name a business \(Pizza Hut \(Restaurant chain\)\): a crowded space\.$/);
  });

  it('with one half unread, is 1 − the other half, at half strength', () => {
    const w = scoreWhitespace({ comparisons: { modifiers: none(), lists: none() }, brands: { autocomplete: none(), lists: brands } });
    expect(w.score).toBeCloseTo(1 - Math.min(1, 0.5 / 0.4), 3);
    expect(w.strength).toBe(0.5);
    expect(
      scoreWhitespace({ comparisons: { modifiers: none(), lists: none() }, brands: { autocomplete: none(), lists: none() } }).score,
    ).toBeNull();
  });
});

describe('confidence', () => {
  it('counts each scored dimension by the strength of its evidence', () => {
    const dims = Object.fromEntries(
      DIMENSIONS.map((d) => [d, { score: 0.5, evidence: {}, explanation: '' }]),
    ) as unknown as DimensionScores;
    expect(combineScores(dims, 1).confidence).toBe(1);
    dims.breadth = { ...dims.breadth, strength: 0.5 }; // weight 0.10
    dims.pain = { ...dims.pain, strength: 0 }; // weight 0.075 (experimental: half of 0.15)
    // (0.85 − 0.05 − 0.075) / 0.85 of the total weight is carried.
    expect(combineScores(dims, 1)).toEqual({ score: 0.5, confidence: 0.853, scoredDimensions: 8 });
    expect(combineScores(dims, 0.5).confidence).toBe(0.426);
  });
});

describe("the synthetic provider answers like today's Google", () => {
  const synthetic = new SyntheticTrendsProvider(() => new Date(Date.UTC(2026, 10, 24)));

  it("serves the explore page's related lists empty, related queries asked on their own (the embed flow) listed, and related topics empty", async () => {
    const explore = await synthetic.fetch({
      kind: 'explore',
      keywords: ['meal planner'],
      timeframe: '12m',
      geo: '',
      parts: ['relatedQueries', 'relatedTopics'],
    });
    expect(explore).toMatchObject({
      relatedQueries: { top: [], rising: [], outcome: 'empty' },
      relatedTopics: { top: [], rising: [], outcome: 'empty' },
    });
    const queries = await synthetic.fetch({ kind: 'relatedQueries', keyword: 'meal planner', timeframe: '12m', geo: '' });
    if (queries.kind !== 'relatedQueries') throw new Error(queries.kind);
    expect(queries.outcome).toBe('served');
    expect(queries.top.length).toBeGreaterThan(2);
    expect(queries.top[0]).toMatchObject({ value: 100 });
    expect(queries.top.every((i) => i.label.startsWith('meal planner '))).toBe(true);
    expect(await synthetic.fetch({ kind: 'relatedTopics', keyword: 'meal planner', timeframe: '12m', geo: '' })).toMatchObject({
      top: [],
      rising: [],
      outcome: 'empty',
    });
  });

  it('answers a modifier comparison: each OR item is the sum of its terms, each a small part of the phrase', async () => {
    const request = modifierRequest('meal planner')!;
    const answer = await synthetic.fetch({ kind: 'interestOverTime', keywords: request.keywords, timeframe: '12m', geo: '' });
    if (answer.kind !== 'interestOverTime') throw new Error(answer.kind);
    const result = familyShares(request, answer);
    if (!result.ok) throw new Error(result.reason);
    for (const f of Object.values(result.shares)) {
      expect(f.share).toBeGreaterThan(0);
      expect(f.share).toBeLessThan(0.3);
    }
    // The phrase on its own is what it was before (its shape does not depend on what it is compared with).
    // (Alone: beside "weather", searched far more, it would be a few coarse integers.)
    const alone = await synthetic.fetch({ kind: 'interestOverTime', keywords: ['meal planner'], timeframe: '12m', geo: '' });
    if (alone.kind !== 'interestOverTime') throw new Error(alone.kind);
    const ratio = (a: typeof answer) => a.points[10]!.values[0]! / Math.max(1, a.points[20]!.values[0]!);
    expect(ratio(answer)).toBeCloseTo(ratio(alone), 1);
  });

  it('autocompletes a term to itself first, and to a few more topics of assorted types', async () => {
    const answer = await synthetic.fetch({ kind: 'autocomplete', term: 'dog walking' });
    if (answer.kind !== 'autocomplete') throw new Error(answer.kind);
    expect(answer.topics[0]).toMatchObject({ title: 'dog walking', type: 'Topic' });
    expect(answer.topics.length).toBeLessThanOrEqual(5);
  });
});
