// The primary phrase against a labelled set: the quick-start catalogue's ideas
// and 32 held-in ideas, each with the phrase (or phrases) a person would search
// to find such a product. Popularity is measured in the synthetic world (the
// quick start's), so this measures the coverage rule and how well it holds up
// against popularity it cannot foresee; docs/research.md publishes the figures.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { choosePrimary, measuredPhrases, phraseCandidates } from '../../src/domain/research/phrase-choice.js';
import { SyntheticTrendsProvider } from '../../src/trends/synthetic.provider.js';

const rows = readFileSync(new URL('../fixtures/research/primary-phrases.tsv', import.meta.url), 'utf8')
  .split('\n')
  .filter((l) => l && !l.startsWith('#'))
  .map((l) => {
    const [set, idea, expected] = l.split('\t');
    return { set: set!, idea: idea!, expected: expected!.split(' | ') };
  });

const world = new SyntheticTrendsProvider(() => new Date('2026-11-27T00:00:00Z'));
async function measuredChoice(idea: string) {
  const candidates = phraseCandidates(idea, []);
  const asked = measuredPhrases(candidates);
  const answer = await world.fetch({ kind: 'interestOverTime', keywords: [...asked, 'weather'], timeframe: '12m', geo: '' });
  if (answer.kind !== 'interestOverTime') throw new Error('expected interest over time');
  const means = Object.fromEntries(
    asked.map((p, i) => [p, answer.points.reduce((s, pt) => s + (pt.values[i] ?? 0), 0) / answer.points.length]),
  );
  return choosePrimary(candidates, asked.length > 1 ? means : null).primary;
}

/** What runs chose before: the first two content words of the idea (its first bigram, which autocomplete usually knew). */
function firstBigram(idea: string): string {
  const stop = new Set('a an and app for the of to with in on by from using that platform service tool marketplace'.split(' '));
  const words = idea
    .toLowerCase()
    .replace(/\([^)]*\)/g, ' ')
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 1 && !stop.has(w));
  return words.length > 1 ? `${words[0]} ${words[1]}` : (words[0] ?? '');
}

describe('the primary phrase on a labelled set of ideas', () => {
  it('hits the expected phrase on at least 70% of the held-in ideas and all of the quick-start ones', async () => {
    const results: Array<(typeof rows)[number] & { chosen: string; hit: boolean; prior: boolean; before: boolean }> = [];
    for (const row of rows) {
      const chosen = await measuredChoice(row.idea);
      const unmeasured = choosePrimary(phraseCandidates(row.idea, []), null).primary;
      results.push({
        ...row,
        chosen,
        hit: row.expected.includes(chosen),
        prior: row.expected.includes(unmeasured),
        before: row.expected.includes(firstBigram(row.idea)),
      });
    }
    const rate = (set: string, key: 'hit' | 'prior' | 'before') => {
      const of = results.filter((r) => r.set === set);
      return { hits: of.filter((r) => r[key]).length, of: of.length };
    };
    const summary = {
      held_in: rate('held-in', 'hit'),
      quick_start: rate('quick-start', 'hit'),
      held_in_unmeasured: rate('held-in', 'prior'),
      held_in_first_bigram: rate('held-in', 'before'),
      quick_start_first_bigram: rate('quick-start', 'before'),
      misses: results.filter((r) => !r.hit).map((r) => `${r.idea} → ${r.chosen} (expected ${r.expected.join(' | ')})`),
    };
    console.log(JSON.stringify(summary, null, 1));
    expect(summary.held_in.of).toBeGreaterThanOrEqual(30);
    // Measured 24 of 32 (2026-11-27) with the synthetic world's popularity, which is random per phrase.
    expect(summary.held_in.hits / summary.held_in.of).toBeGreaterThanOrEqual(0.7);
    expect(summary.held_in_unmeasured.hits / summary.held_in_unmeasured.of).toBeGreaterThanOrEqual(0.7);
    expect(summary.quick_start.hits).toBe(summary.quick_start.of);
  });
});
