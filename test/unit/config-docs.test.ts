// The configuration table in docs/operations.md is the operator's list of every
// environment variable: it must name each one src/config.ts reads, and nothing
// it does not read.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/config.js';

async function variablesRead(): Promise<Set<string>> {
  const source = await readFile(path.join(PROJECT_ROOT, 'src/config.ts'), 'utf8');
  // Every variable goes through one of the typed readers: text('X'), url('X', …), integer('X', …), cron('X', …), oneOf('X', …).
  return new Set([...source.matchAll(/\b(?:text|url|integer|cron|oneOf)\('([A-Z][A-Z0-9_]+)'/g)].map((m) => m[1]!));
}

async function variablesDocumented(): Promise<Set<string>> {
  const doc = await readFile(path.join(PROJECT_ROOT, 'docs/operations.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## Configuration'), doc.indexOf('\n## ', doc.indexOf('## Configuration') + 1));
  const firstCells = section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => line.split('|')[1]!);
  return new Set(firstCells.flatMap((cell) => [...cell.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!)));
}

describe('the configuration table', () => {
  it('lists every variable src/config.ts reads, and no other', async () => {
    const read = await variablesRead();
    const documented = await variablesDocumented();
    expect(read.size).toBeGreaterThan(40);
    expect([...read].filter((v) => !documented.has(v)).sort(), 'read but not in docs/operations.md').toEqual([]);
    expect([...documented].filter((v) => !read.has(v)).sort(), 'in docs/operations.md but never read').toEqual([]);
  });

  it('is what .env.example lists too', async () => {
    const example = await readFile(path.join(PROJECT_ROOT, '.env.example'), 'utf8');
    const listed = new Set([...example.matchAll(/^#?\s*([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]!));
    const read = await variablesRead();
    expect([...read].filter((v) => !listed.has(v)).sort(), 'read but not in .env.example').toEqual([]);
  });
});
