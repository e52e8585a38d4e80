// Recorded real Google Trends bodies the tests parse: the repository's copy in
// test/fixtures/google-trends-recorded (provenance and licence in its README).
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/config.js';

export const RECORDED_FIXTURES_DIR = path.join(PROJECT_ROOT, 'test/fixtures/google-trends-recorded');

export function recordedBody(collection: 'pytrends' | 'rate-limited-2025', cassette: string, filePattern: RegExp): string {
  const dir = path.join(RECORDED_FIXTURES_DIR, collection, cassette);
  const file = readdirSync(dir).find((f) => filePattern.test(f));
  if (!file) throw new Error(`no file matching ${filePattern} in ${dir} (scripts/make-data.mjs lists the bodies kept)`);
  return readFileSync(path.join(dir, file), 'utf8');
}
