// The benchmarks that measure on real data need the full sets (466 series,
// 462 five-keyword requests), which sit beside the project's checkouts in
// ../shared/data and are not in the repository (it carries only the demo's 48
// series, too few to measure against the published figures). On a clone
// without them such a benchmark stops before measuring anything, says why and
// how to point it at the data, and still ends with its one JSON line.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/config.js';
import { printJsonLine } from './report.js';

export const SHARED_DATA = path.resolve(PROJECT_ROOT, '../shared/data');

/** Returns `file` when it exists; otherwise reports the benchmark as skipped and exits 0. */
export function requireDataFile(bench: string, file: string, howToPoint: string): string {
  if (existsSync(file)) return file;
  const reason = `needs ${file}, which is not there (the full real data sets are not in the repository; see data/README.md): ${howToPoint}`;
  process.stdout.write(`bench:${bench} skipped: ${reason}\n`);
  printJsonLine({ bench, skipped: reason });
  process.exit(0);
}
