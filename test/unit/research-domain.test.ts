import { describe, expect, it } from 'vitest';
import { lastWindowRescaled } from '../../src/demo/demo-seed.js';
import { classifyCategory } from '../../src/domain/research/category.js';
import { normalizeIdea, validateIdea } from '../../src/domain/research/idea.js';
import { ideaParts, phraseCandidates } from '../../src/domain/research/phrase-choice.js';
import { brandShare, COMPETITION_TERMS, INTENT_TERMS, PAIN_TERMS, termShare } from '../../src/domain/research/query-signals.js';
import { autocorrelation, cleanSeries, trajectory, volatility } from '../../src/domain/research/series-analysis.js';
import { geographicReach, mapAgainstAnchor, placesFromMap } from '../../src/domain/research/geography.js';
import { scoreDemand, scoreIntent, scorePain, scoreReach, scoreWhitespace } from '../../src/domain/scoring/dimension-scores.js';
import { forecast } from '../../src/domain/forecast/forecaster.js';
import { parseComparedGeo, parseGuardedJson, parseRelated } from '../../src/providers/google/format.js';
import { recordedBody } from '../support/recorded.js';
import { anyRealSeries, itWithSharedData, realSeries } from '../support/shared-data.js';

const pizzaRelated = () => {
  const body = recordedBody('pytrends', 'test_related_queries_result_top__f6b2d0c230', /02_GET_trends_api_widgetdata_relatedsearches/);
  const list = parseRelated(parseGuardedJson(body, 'pizza'), 'relatedQueries', 'pizza');
  return [...new Set([...list.top, ...list.rising].map((i) => i.label))];
};

describe('ideas', () => {
  it('validates input with a reason', () => {
    expect(validateIdea('')).toMatch(/empty/);
    expect(validateIdea('  ')).toMatch(/empty/);
    expect(validateIdea('?!.,')).toMatch(/no letters/);
    expect(validateIdea('a'.repeat(501))).toMatch(/500/);
    expect(validateIdea('AI meal planner')).toBeNull();
  });

  it('normalises so that the same idea gets the same key', () => {
    expect(normalizeIdea('  AI   Meal-Planner for Diabétics! ').key).toBe(normalizeIdea('ai meal planner for diabetics').key);
  });

  it('extracts short search phrases within the parts of the idea, operator hints first', () => {
    const idea = 'An AI meal planner app for people with diabetes';
    // "people" stands for anybody: nobody searches it (primary-phrase.test.ts).
    // "AI" before a noun says which kind (a candidate with it), alone it is no phrase.
    expect(phraseCandidates(idea, []).map((c) => c.phrase)).toEqual([
      'meal planner',
      'ai meal planner',
      'meal',
      'planner',
      'ai meal',
      'diabetes',
    ]);
    expect(phraseCandidates(idea, ['Diabetic meal plan'])[0]).toMatchObject({ phrase: 'diabetic meal plan', hint: true });
    // Punctuation and asides end a part; hyphenated words stay whole.
    expect(ideaParts('Meal-planner, for diabetics (beta)').map((p) => p.map((t) => t.word))).toEqual([['meal-planner'], ['diabetics']]);
  });

  it('classifies by whole words of the lexicon and says which terms decided (test/unit/category.test.ts measures it)', () => {
    const idea = (text: string) => classifyCategory({ idea: text, phrases: [], topics: [] });
    expect(idea('Budget app for freelance designers')).toMatchObject({ category: 'finance', google_id: 7, matched: ['head:budget'] });
    expect(idea('AI chatbot for dentists')).toMatchObject({ category: 'health', google_id: 45 });
    expect(idea('pizza')).toMatchObject({ category: 'food-drink', google_id: 71 });
    expect(idea('quantum flux').category).toBe('uncategorized');
    // "email" must not match "ai".
    expect(idea('email newsletter tool').scores['computers-electronics']).toBeUndefined();
  });
});

describe('query signals on real related queries for "pizza" (recorded from Google)', () => {
  it('finds intent and brands, little pain', () => {
    const queries = pizzaRelated();
    expect(queries.length).toBeGreaterThan(20);
    const intent = termShare(queries, INTENT_TERMS);
    expect(intent.examples.join(' ')).toMatch(/near me/);
    const pain = termShare(queries, PAIN_TERMS);
    expect(pain.share).toBeLessThan(intent.share);
    const brands = brandShare('pizza', queries);
    expect(brands.examples).toEqual(expect.arrayContaining(['pizza hut']));
    const comparisons = termShare(queries, COMPETITION_TERMS);
    // Read from the lists alone (replay of a recording, or Google listing them again), the scores
    // follow the related-list formulas.
    const none = { unavailable: 'not asked' };
    expect(scoreIntent({ modifiers: none, lists: intent }).score).toBeCloseTo(Math.min(1, intent.share / 0.33), 3);
    expect(scorePain({ modifiers: none, lists: pain }).score).toBeCloseTo(Math.min(1, pain.share / 0.25), 3);
    const whitespace = scoreWhitespace({
      comparisons: { modifiers: none, lists: comparisons },
      brands: { autocomplete: none, lists: brands },
    }).score!;
    expect(whitespace).toBeLessThan(1);
    expect(whitespace).toBeCloseTo(1 - Math.max(Math.min(1, comparisons.share / 0.25), Math.min(1, brands.share / 0.4)), 3);
  });

  it('counts "pizza hut" as a brand, not "pizza delivery" or "pizza places"', () => {
    expect(brandShare('pizza', ['pizza hut', 'pizza delivery', 'pizza places', 'dominos pizza']).examples).toEqual([
      'pizza hut',
      'dominos pizza',
    ]);
  });

  it('counts no modifier word as a brand: "how" of "how to", "alternative", "free", "beginners"', () => {
    const modifiers = [
      'meal planner how to',
      'meal planner alternative',
      'meal planner free',
      'meal planner for beginners',
      'how to meal plan',
    ];
    expect(brandShare('meal planner', modifiers).matched).toBe(0);
    expect(brandShare('meal planner', ['mealime vs meal planner']).matched).toBe(1);
  });

  it('matches whole words only', () => {
    expect(termShare(['apple pie', 'snapple'], ['app']).matched).toBe(0);
    expect(termShare(['pizza app', 'best pizza'], INTENT_TERMS).matched).toBe(2);
  });
});

describe('series analytics on real GTAB series', () => {
  itWithSharedData('computes trajectory, seasonality and volatility for every series without error, within range', async () => {
    let counted = 0;
    for (const points of (await realSeries()).values()) {
      const values = points.map((p) => p.value);
      const t = trajectory(values);
      if (t) expect(['rising', 'stable', 'recovering', 'declining', 'peaked']).toContain(t.trajectory);
      const acf = autocorrelation(values, 7);
      if (acf !== null) expect(Math.abs(acf)).toBeLessThanOrEqual(1);
      const v = volatility(values);
      if (v) expect(v.cv).toBeGreaterThanOrEqual(0);
      counted += 1;
    }
    expect(counted).toBe(466);
  });

  it('drops a trailing partial point and days without data', () => {
    const c = cleanSeries([
      { date: 'a', value: 1 },
      { date: 'b', value: 0, hasData: false },
      { date: 'c', value: 3, isPartial: true },
    ]);
    expect(c).toEqual({ dates: ['a'], values: [1], droppedPartial: true, missing: 1 });
  });
});

describe('reach from the recorded country map of "pizza" against "bagel"', () => {
  const map = (cassette: string) =>
    parseComparedGeo(parseGuardedJson(recordedBody('pytrends', cassette, /comparedgeo_200/), 'map'), ['pizza', 'bagel'], 'map');

  it('reads the map against the anchor only when step 12 found the two within 50× (pizza 80.4, bagel 2: 40×)', () => {
    expect(mapAgainstAnchor(80.4, 2)).toBe(true);
    expect(mapAgainstAnchor(2, 80.4)).toBe(true);
    // A niche phrase against "weather": the phrase would sit at 0–1 % everywhere.
    expect(mapAgainstAnchor(1, 90)).toBe(false);
    expect(mapAgainstAnchor(0, 50)).toBe(false);
  });

  it('turns shares into interest relative to the strongest country', () => {
    const { places, withoutData } = placesFromMap(map('test_interest_by_region_ok__f6b2d0c230'));
    expect(places).toHaveLength(35);
    expect(withoutData).toBe(250 - 35);
    const at = (code: string) => places.find((p) => p.code === code)!;
    // 100 % vs 0 % is read as 100 / 0.5 (half the rounding step): the strongest, 100.
    expect(at('NO')).toEqual({ code: 'NO', name: 'Norway', share: 100, relative: 100 });
    expect(at('US')).toMatchObject({ share: 97, relative: 16.2 }); // (97/3) / 200
    expect(at('SG')).toMatchObject({ share: 92, relative: 5.8 }); // (92/8) / 200
    expect(places.map((p) => p.relative)).toEqual([...places.map((p) => p.relative)].sort((a, b) => b - a));
  });

  it('counts the countries with at least a tenth of the top interest and scores them', () => {
    const countries = placesFromMap(map('test_interest_by_region_ok__f6b2d0c230')).places;
    const cities = placesFromMap(map('test_interest_by_region_city_resolution__f6b2d0c230')).places;
    const reach = geographicReach(countries, cities);
    // Only Singapore (5.8) and Hong Kong (94/6 → 7.8) fall under 10.
    expect(reach).toMatchObject({ countriesWithInterest: 33, countriesWithData: 35, citiesWithInterest: 7 });
    const total = countries.reduce((s, c) => s + c.relative, 0);
    expect(reach.topShare).toBeCloseTo(100 / total, 3);
    const score = scoreReach({ ...reach, comparedWith: 'bagel' });
    expect(score.score).toBeCloseTo((Math.log1p(33) / Math.log1p(40)) * (1 - 0.3 * reach.topShare), 3);
    expect(score.evidence).toMatchObject({ countries_with_interest: 33, compared_with: 'bagel' });
  });

  it("takes a one-keyword map's values as they are (Google already scales them to the strongest place)", () => {
    const own = placesFromMap({
      kind: 'interestByRegion',
      keywords: ['pizza'],
      regions: [
        { geoCode: 'US', geoName: 'United States', values: [100], hasData: [true] },
        { geoCode: 'IT', geoName: 'Italy', values: [64], hasData: [true] },
        { geoCode: 'FR', geoName: 'France', values: [7], hasData: [true] },
        { geoCode: 'AQ', geoName: 'Antarctica', values: [0], hasData: [false] },
      ],
    });
    expect(own).toEqual({
      places: [
        { code: 'US', name: 'United States', relative: 100, share: null },
        { code: 'IT', name: 'Italy', relative: 64, share: null },
        { code: 'FR', name: 'France', relative: 7, share: null },
      ],
      withoutData: 1,
    });
    // 100 / (100 + 64 + 7) = 0.585
    expect(geographicReach(own.places, own.places)).toMatchObject({
      countriesWithInterest: 2,
      countriesWithData: 3,
      topShare: 0.585,
      citiesWithInterest: 3,
    });
  });

  it('has no score without data by country, and refuses a map of more than the phrase and the anchor', () => {
    expect(
      scoreReach({
        countriesWithInterest: 0,
        countriesWithData: 0,
        topCountry: null,
        topShare: 0,
        citiesWithInterest: 0,
        comparedWith: null,
      }).score,
    ).toBeNull();
    expect(() => placesFromMap({ kind: 'interestByRegion', keywords: ['a', 'b', 'c'], regions: [] })).toThrow(/alone or with the anchor/);
  });
});

describe('demand against the anchor', () => {
  it('is 0.5 at parity and symmetric in log ratio', () => {
    expect(scoreDemand({ anchor: 'weather', phraseMean: 40, anchorMean: 40 }).score).toBe(0.5);
    const up = scoreDemand({ anchor: 'w', phraseMean: 79.5, anchorMean: 19.5 }).score!;
    const down = scoreDemand({ anchor: 'w', phraseMean: 19.5, anchorMean: 79.5 }).score!;
    expect(up + down).toBeCloseTo(1, 3);
    expect(scoreDemand(null).score).toBeNull();
  });

  it("on one scale across requests (the Trends API's searchInterest): the phrase's level against the reference, no anchor term", () => {
    const scale = { values: 'searchInterest', reference: 10 } as const;
    // The phrase at 4× the reference: 40 vs 10 on one 0–100, whatever the answer's peak.
    const at4 = scoreDemand({ anchor: null, scale, phraseMean: 100, anchorMean: 25 });
    expect(at4.score).toBeCloseTo(0.832, 2);
    expect(at4.evidence).toEqual({ basis: 'searchInterest', scale: 'searchInterest', reference: 10, phrase_level: 40, ratio: 4 });
    expect(at4.explanation).toMatch(/no anchor term asked/);
    expect(scoreDemand({ anchor: null, scale, phraseMean: 50, anchorMean: 50 }).score).toBe(0.5);
    expect(scoreDemand({ anchor: null, scale, phraseMean: 0, anchorMean: 100 }).score).toBeNull();
  });
});

describe('step-31 forecaster', () => {
  it('forecasts 7 days within 0–100 with ordered intervals, or withholds with a reason', async () => {
    let made = 0;
    const sample = [...(await anyRealSeries()).values()].slice(0, 100);
    for (const points of sample) {
      const window = lastWindowRescaled(points, 90);
      const f = forecast(
        window.map((p) => p.date),
        window.map((p) => p.value),
      );
      if (f.withheld) {
        expect(f.reason).toMatch(/zero|needs|week on week/);
        continue;
      }
      made += 1;
      expect(f.points).toHaveLength(7);
      for (const p of f.points) {
        expect(0).toBeLessThanOrEqual(p.lower_95);
        expect(p.lower_95).toBeLessThanOrEqual(p.lower_80);
        expect(p.lower_80).toBeLessThanOrEqual(p.value);
        expect(p.value).toBeLessThanOrEqual(p.upper_80);
        expect(p.upper_80).toBeLessThanOrEqual(p.upper_95);
        expect(p.upper_95).toBeLessThanOrEqual(100);
      }
    }
    expect(made).toBeGreaterThan(0.8 * sample.length);
    expect(forecast(['2026-01-01'], [5])).toMatchObject({ withheld: true, reason: expect.stringMatching(/at least 21/) });
  });
});
