// The related-queries answers in the pytrends recordings
// (../shared/data/google-trends-recorded/pytrends), one per phrase and day:
// several cassettes recorded the same request minutes apart, and those copies
// count once (the number that differed from the first is reported).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { RecordedRelated } from '../../src/domain/scoring/evidence-agreement.js';
import { parseGuardedJson, parseRelated } from '../../src/providers/google/format.js';

interface Interaction {
  uri: string;
  query: Record<string, string>;
  status: { code: number };
  date?: string;
  file: string;
}

export interface RecordedRelatedSet {
  recordings: RecordedRelated[];
  /** HTTP exchanges read (copies included). */
  exchanges: number;
  /** Copies whose lists were not the same as the first one kept for that phrase and day. */
  differing: number;
}

export function readRecordedRelated(recordedDir: string): RecordedRelatedSet {
  const root = path.join(recordedDir, 'pytrends');
  if (!existsSync(root)) throw new Error(`no recordings at ${root}: is ../shared/data/google-trends-recorded there?`);
  const kept = new Map<string, RecordedRelated>();
  let exchanges = 0;
  let differing = 0;
  for (const cassette of readdirSync(root).sort()) {
    const index = path.join(root, cassette, 'index.json');
    if (!existsSync(index)) continue;
    for (const i of (JSON.parse(readFileSync(index, 'utf8')) as { interactions: Interaction[] }).interactions) {
      if (!i.uri.includes('/widgetdata/relatedsearches') || i.status.code !== 200 || !i.query.req) continue;
      const req = JSON.parse(i.query.req) as {
        keywordType?: string;
        restriction?: { time?: string; complexKeywordsRestriction?: { keyword?: Array<{ value: string }> } };
      };
      if (req.keywordType !== 'QUERY') continue; // topics carry no query text to match
      const keyword = req.restriction?.complexKeywordsRestriction?.keyword?.[0]?.value;
      if (!keyword || !i.date) continue;
      const what = `related queries for "${keyword}" in ${cassette}`;
      const list = parseRelated(parseGuardedJson(readFileSync(path.join(root, cassette, i.file), 'utf8'), what), 'relatedQueries', what);
      const recording: RecordedRelated = {
        keyword,
        recordedAt: new Date(Date.parse(i.date)).toISOString().slice(0, 10),
        window: req.restriction?.time ?? '',
        top: list.top.map((t) => ({ label: t.label, value: t.value })),
        rising: list.rising.map((t) => ({ label: t.label })),
      };
      exchanges += 1;
      const key = `${keyword}|${recording.recordedAt}`;
      const first = kept.get(key);
      if (!first) kept.set(key, recording);
      else if (JSON.stringify(first) !== JSON.stringify(recording)) differing += 1;
    }
  }
  const recordings = [...kept.values()].sort((a, b) => a.keyword.localeCompare(b.keyword) || a.recordedAt.localeCompare(b.recordedAt));
  return { recordings, exchanges, differing };
}
