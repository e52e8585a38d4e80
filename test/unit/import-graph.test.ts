// The floors and the import circles (docs/internals.md), checked over the real tree by `npm run lint`; the
// fixture graphs show the check finds each kind of slip.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { floorOf, importCycles, readImportGraph, specifiersOf, upwardImports, type ImportGraph } from '../../scripts/import-graph.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const graph = (edges: Record<string, string[]>): ImportGraph => new Map(Object.entries(edges));

describe('the import graph of src/ and jobs/', () => {
  const tree = readImportGraph(root);

  it('has no import circle', () => {
    expect(tree.size).toBeGreaterThan(100);
    expect(importCycles(tree)).toEqual([]);
  });

  it('has no import that climbs a floor, and every file is on one', () => {
    expect(upwardImports(tree).map((v) => `${v.file} ${v.message}`)).toEqual([]);
  });
});

describe('the check', () => {
  it('finds a circle through a type-only import, and a file that imports itself', () => {
    expect(specifiersOf('a.ts', "import type { B } from './b.js';\nexport type A = import('./c.js').C;")).toEqual(['./b.js', './c.js']);
    const cycles = importCycles(
      graph({
        'src/domain/a.ts': ['src/domain/b.ts'],
        'src/domain/b.ts': ['src/domain/c.ts'],
        'src/domain/c.ts': ['src/domain/a.ts'],
        'src/domain/d.ts': ['src/domain/a.ts', 'src/domain/d.ts'],
        'src/domain/e.ts': [],
      }),
    );
    expect(cycles).toEqual([['src/domain/a.ts', 'src/domain/b.ts', 'src/domain/c.ts'], ['src/domain/d.ts']]);
  });

  it('refuses an upward import and a file on no floor, and lets a floor import its own and those below', () => {
    const violations = upwardImports(
      graph({
        'src/domain/score.ts': ['src/research/steps.ts'],
        'src/research/steps.ts': ['src/domain/score.ts', 'src/research/step-queue.ts', 'src/redis/client.ts'],
        'src/research/step-queue.ts': [],
        'src/redis/client.ts': [],
        'src/elsewhere/thing.ts': [],
      }),
    );
    expect(violations.map((v) => v.file)).toEqual(['src/domain/score.ts', 'src/elsewhere/thing.ts']);
    expect(violations[0]!.message).toContain('imports src/research/steps.ts (work), a floor above it');
  });

  it('places a file by the longest path that names it', () => {
    expect(floorOf('src/queue/job-catalogue.ts')).toBeLessThan(floorOf('src/queue/fair-share.ts')!);
    expect(floorOf('src/config.ts')).toBe(floorOf('src/config/database.ts'));
    expect(floorOf('src/domain/scoring/overall.ts')).toBe(0);
    expect(floorOf('bench/api.bench.ts')).toBeNull();
  });
});
