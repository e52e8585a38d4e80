// `insights research IDEA --dry-run`: what a run would make of an idea, with
// no provider asked and neither Redis nor Postgres needed (both point at
// closed ports here): the candidate phrases by prior, what step 4 measures,
// the category from the idea alone and the requests the steps would make.
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';

// Nothing listens on port 1: a dry run that touched Redis or Postgres would fail.
const env = { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none', REDIS_URL: 'redis://127.0.0.1:1', TRENDS_PROVIDER: 'google' };

interface DryRunJson {
  candidates: Array<{ phrase: string; prior: number }>;
  measure: string[];
  primary_by_prior: string;
  category: { category: string; matched: string[] };
  requests: Array<{ step: string; kind: string; terms: string[]; same_as_step?: number }>;
  request_kinds: Record<string, number>;
}

async function dry(idea: string, ...more: string[]): Promise<DryRunJson> {
  const result = await runCli(['research', idea, '--dry-run', '--json', ...more], env);
  expect(result.code, result.stderr).toBe(0);
  // One JSON object, nothing else on stdout.
  return JSON.parse(result.stdout) as DryRunJson;
}

describe('insights research --dry-run', { timeout: 120_000 }, () => {
  it('prints the candidates best first, the four step 4 measures, the category and the requests, asking no one', async () => {
    const d = await dry('App that finds last-minute padel court bookings', '--geo', 'US');
    expect(d.candidates[0]).toMatchObject({ phrase: 'padel court' });
    const priors = d.candidates.map((c) => c.prior);
    expect(priors).toEqual([...priors].sort((a, b) => b - a));
    expect(d.candidates.map((c) => c.phrase)).not.toContain('finds last');
    expect(d.measure).toEqual(d.candidates.slice(0, 4).map((c) => c.phrase));
    expect(d.primary_by_prior).toBe('padel court');
    expect(typeof d.category.category).toBe('string');
    expect(Array.isArray(d.category.matched)).toBe(true);
    // Step 4's one comparison: the four and the anchor.
    expect(d.requests).toContainEqual(
      expect.objectContaining({ step: 'choose_primary', kind: 'interestOverTime', terms: [...d.measure, 'weather'] }),
    );
    expect(d.requests.find((r) => r.step === 'autocomplete_phrases')).toMatchObject({ kind: 'autocomplete', terms: ['padel court'] });
    // A request two steps share is one request (steps 11-12 ask step 4's comparison again).
    expect(d.requests.find((r) => r.step === 'compare_anchor')?.same_as_step).toBe(4);
    expect(Object.values(d.request_kinds).reduce((a, b) => a + b, 0)).toBeLessThan(d.requests.length);
  });

  it('strips markup and keeps an operator keyword first, unmeasured', async () => {
    const d = await dry('<script>alert(1)</script> Meal prep delivery for athletes');
    expect(d.candidates.some((c) => /script|alert/.test(c.phrase))).toBe(false);
    expect(d.primary_by_prior).toBe('meal prep');
    const hinted = await dry('Meal prep delivery for athletes', '--keyword', 'Meal Prep Service');
    expect(hinted.primary_by_prior).toBe('meal prep service');
    expect(hinted.measure).toEqual([]);
  });

  it('researches the product, not the audience after "for" (a founder\'s trial, 2026-11-28)', async () => {
    const coffee = await dry('Subscription box for coffee lovers');
    expect(coffee.primary_by_prior).toBe('coffee subscription');
    expect(coffee.measure).toEqual(expect.arrayContaining(['coffee subscription', 'coffee box']));
    expect((await dry('Subscription box for vegan pet food')).primary_by_prior).toBe('vegan pet food');
    expect((await dry('Marketplace for renting camping gear between neighbours')).primary_by_prior).toBe('camping gear');
  });

  it('prints a readable table without --json', async () => {
    const result = await runCli(['research', 'Online piano lessons for kids', '--dry-run'], env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/phrase\s+prior\s+covers/);
    expect(result.stdout).toContain('primary by prior: "piano lessons"');
    expect(result.stdout).toMatch(/requests the run would make: \d+/);
  });

  it('refuses bad input with a clear message and a non-zero exit', async () => {
    const empty = await runCli(['research', '   ', '--dry-run', '--json'], env);
    expect(empty.code).not.toBe(0);
    expect(empty.stderr).toMatch(/the idea is empty/);
    expect(empty.stdout).toBe('');
    const stopwords = await runCli(['research', 'the and of', '--dry-run'], env);
    expect(stopwords.code).not.toBe(0);
    expect(stopwords.stderr).toMatch(/no search phrase/);
    const market = await runCli(['research', 'Dog walking', '--dry-run', '--geo', 'USA'], env);
    expect(market.code).not.toBe(0);
    expect(market.stderr).toMatch(/not a market/);
  });
});
