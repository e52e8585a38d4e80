// Issue 50: adding a provider touches its folder and one registry line. Code outside src/providers/
// that compares with a provider's name ("=== 'google'") holds a provider's detail where the next
// provider's author will not look: it asks the registry (a profile field, seriesProviderOf) instead.
// The config wiring (src/config.ts, src/config/) reads each provider's settings by name by design.
// KNOWN lists what is left, each with its reason: the test fails on a new one, and on a fixed one
// still listed (docs/internals.md, "Issue 50's Done-when, audited").
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROVIDER_NAMES } from '../../src/providers/registry.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const EXEMPT = [/^src\/providers\//, /^src\/config\.ts$/, /^src\/config\//];

/** Left for now, file: comparisons, and why. */
const KNOWN: Record<string, number> = {
  // Replay's coverage is read where the services are built (the composition root, being reworked apart).
  'src/runtime/services.ts': 1,
  // `insights google check` on a schedule only when Google is configured: Google's check hook, not a profile field yet.
  'src/runtime/schedules.ts': 1,
  // The evidence command asks Google's check when Google is configured: the same hook.
  'src/cli/commands/evidence.command.ts': 1,
  // Which evidence rows were asked of live Google: the evidence records carry a provider name, no profile.
  'src/domain/scoring/evidence-fit.ts': 1,
};

function sources(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const file = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sources(file);
    return entry.name.endsWith('.ts') ? [file] : [];
  });
}

/** Comparisons with a name in quotes: `=== 'x'`, `'x' !==`, `.includes('x')`, `case 'x':`. */
export function comparisonsWithNames(text: string, names: readonly string[]): number {
  const name = names.map((n) => n.replace(/[-]/g, '\\-')).join('|');
  const quoted = `['"\`](?:${name})['"\`]`;
  const pattern = new RegExp(`[!=]==?\\s*${quoted}|${quoted}\\s*[!=]==?|\\.includes\\(\\s*${quoted}\\s*\\)|\\bcase\\s+${quoted}`, 'g');
  return text.match(pattern)?.length ?? 0;
}

describe("providers' names outside src/providers/", () => {
  it('finds a comparison with a name, and not a name merely mentioned', () => {
    expect(comparisonsWithNames(`if (p === 'google') x();`, PROVIDER_NAMES)).toBe(1);
    expect(comparisonsWithNames(`if ("dataforseo" !== p) x();`, PROVIDER_NAMES)).toBe(1);
    expect(comparisonsWithNames(`list.includes('trends-api')`, PROVIDER_NAMES)).toBe(1);
    expect(comparisonsWithNames(`switch (p) { case 'replay': }`, PROVIDER_NAMES)).toBe(1);
    expect(comparisonsWithNames(`profileOf('synthetic'); // 'google'`, PROVIDER_NAMES)).toBe(0);
    expect(comparisonsWithNames(`if (p === 'googled') x();`, PROVIDER_NAMES)).toBe(0);
  });

  it('are compared with nowhere but the registry, the providers and the config wiring (and the files KNOWN lists)', () => {
    const found: Record<string, number> = {};
    for (const file of [...sources('src'), ...sources('jobs')]) {
      if (EXEMPT.some((pattern) => pattern.test(file))) continue;
      const n = comparisonsWithNames(readFileSync(path.join(ROOT, file), 'utf8'), PROVIDER_NAMES);
      if (n > 0) found[file] = n;
    }
    expect(found).toEqual(KNOWN);
  });
});
