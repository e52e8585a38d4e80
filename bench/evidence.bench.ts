// npm run bench:evidence — does the pain and intent evidence the research now
// reads (the phrase compared with its pain and buying phrases) agree with the
// related-list evidence it replaces (the baseline, read from the same
// recordings in the same run)? On the only answers that hold related lists:
// the pytrends recordings in ../shared/data/google-trends-recorded (or the
// folder given as the first argument). No modifier comparison was ever
// recorded: its reading is estimated from the recorded top lists (see
// src/domain/scoring/evidence-agreement.ts). Ends with one JSON line.
import path from 'node:path';
import { PROJECT_ROOT } from '../src/config.js';
import { AGREEMENT_FAMILIES, evidenceRows, measureAgreement } from '../src/domain/scoring/evidence-agreement.js';
import { readRecordedRelated } from './lib/recorded-related.js';
import { requireDataFile } from './lib/shared-data.js';
import { printJsonLine, printTable } from './lib/report.js';

const dir = process.argv[2] ?? path.resolve(PROJECT_ROOT, '../shared/data/google-trends-recorded');
// Every recorded exchange is needed: the repository carries only what a replay of "pizza" reads.
requireDataFile('evidence', path.join(dir, 'pytrends'), 'pass the folder of the recordings as the first argument');
const { recordings, exchanges, differing } = readRecordedRelated(dir);
if (recordings.length === 0) {
  process.stderr.write(`bench:evidence: no recorded related queries under ${dir}\n`);
  process.exit(1);
}
const figures = measureAgreement(recordings);

printTable(
  `Recorded related-query answers: ${exchanges} exchanges, ${recordings.length} distinct (phrase, day); ${differing} copies differed from the one kept`,
  recordings.map((r) => ({ phrase: r.keyword, recorded: r.recordedAt, window: r.window, 'top listed': r.top.length, 'rising listed': r.rising.length })),
);
printTable(
  'Per recording: the related-list reading (baseline) and the modifier reading estimated from the top list',
  evidenceRows(recordings).map((r) => ({
    family: r.family,
    phrase: r.keyword,
    recorded: r.recorded_at,
    'list share': r.list_share,
    'list score': r.list_score,
    'volume share': r.volume_share,
    'modifier score': r.modifier_score,
  })),
);
printTable(
  'Agreement (modifier reading vs related-list reading)',
  AGREEMENT_FAMILIES.map((f) => {
    const a = figures.families[f];
    return {
      family: f,
      rows: a.rows,
      'both 0': a.both_zero,
      'mean |diff|': a.mean_abs_difference,
      spearman: a.rank_correlation ?? 'n/a (a reading is constant)',
      'same order': `${a.keyword_order.same} of ${a.keyword_order.pairs} pairs (${a.keyword_order.opposite} opposite, ${a.keyword_order.tied} tied)`,
      'retest |diff| list / modifier': `${a.retest_abs_difference.list ?? '–'} / ${a.retest_abs_difference.modifier ?? '–'}`,
    };
  }),
);
const drift = Math.max(...AGREEMENT_FAMILIES.flatMap((f) => [figures.families[f].retest_abs_difference.list ?? 0, figures.families[f].retest_abs_difference.modifier ?? 0]));
process.stdout.write(
  `\n${figures.keywords.length} phrases (${figures.keywords.join(', ')}), recorded on ${figures.days.length} days (${figures.days.join(', ')}), for the window(s) ${figures.windows.join(', ')}. ` +
    `A reading moves by at most ${drift} on average between days for the same phrase, so the days repeat one comparison rather than add new ones: ` +
    `the sample holds ${figures.keywords.length * (figures.keywords.length - 1) / 2} independent pair(s) of phrases per family.\n`,
);
printJsonLine({ bench: 'evidence', recordings: figures.recordings, exchanges, differing, keywords: figures.keywords, days: figures.days, families: figures.families });
