// Recorded real Google Trends exchanges (../shared/data/google-trends-recorded), read in place.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { RECORDED_DIR } from './shared-data.js';

export function recordedBody(collection: 'pytrends' | 'rate-limited-2025', cassette: string, filePattern: RegExp): string {
  const dir = path.join(RECORDED_DIR, collection, cassette);
  const file = readdirSync(dir).find((f) => filePattern.test(f));
  if (!file) throw new Error(`no file matching ${filePattern} in ${dir}`);
  return readFileSync(path.join(dir, file), 'utf8');
}
