// npm run bench:evidence — does the pain and intent evidence the research
// reads from the modifier comparison (the phrase compared with its pain and
// buying phrases) agree with the related-list evidence? Two ways:
//
//   npm run bench:evidence -- FILE.jsonl   on evidence collected live by
//       `insights evidence collect` (related queries through the embed flow and
//       the modifier comparison, per phrase, on one day): the modifier
//       saturation points are fitted on one half of the phrases and agreement
//       measured on the other, beside the shipped points (the baseline, same
//       run). At least 30 usable phrases are needed to lift the experimental
//       mark on pain and intent (src/domain/scoring/evidence-fit.ts).
//   npm run bench:evidence [-- DIR]        on the only recorded answers that hold
//       related lists: the pytrends recordings in ../shared/data/google-trends-
//       recorded (or DIR). No modifier comparison was ever recorded there: its
//       reading is estimated from the recorded top lists (see
//       src/domain/scoring/evidence-agreement.ts).
//
// Ends with one JSON line.
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../src/config.js';
import { AGREEMENT_FAMILIES, evidenceRows, measureAgreement } from '../src/domain/scoring/evidence-agreement.js';
import { FIT_FAMILIES, fitEvidence, isCollectedEvidence, type CollectedEvidence } from '../src/domain/scoring/evidence-fit.js';
import { readRecordedRelated } from './lib/recorded-related.js';
import { requireDataFile } from './lib/shared-data.js';
import { printJsonLine, printTable } from './lib/report.js';

const given = process.argv[2];
if (given !== undefined && !existsSync(given)) {
  process.stderr.write(
    `bench:evidence: ${given}: no such file or folder (a JSONL file of insights evidence collect, or a folder of recordings)\n`,
  );
  process.exit(1);
}
if (given !== undefined && statSync(given).isFile()) {
  const records: CollectedEvidence[] = [];
  const unreadable: number[] = [];
  readFileSync(given, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      if (line.trim() === '') return;
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch {
        parsed = undefined;
      }
      if (isCollectedEvidence(parsed)) records.push(parsed);
      else unreadable.push(i + 1);
    });
  if (unreadable.length > 0) {
    process.stderr.write(
      `bench:evidence: ${unreadable.length} line(s) of ${given} are not records of insights evidence collect (line ${unreadable.slice(0, 5).join(', ')}${unreadable.length > 5 ? ', …' : ''}); left out\n`,
    );
  }
  if (records.length === 0) {
    process.stderr.write(`bench:evidence: ${given} holds no record of insights evidence collect\n`);
    process.exit(1);
  }
  const fit = fitEvidence(records);
  printTable(
    `Collected evidence: ${fit.phrases} phrases, ${fit.usable} with both readings (${fit.skipped.length} without: ${[...new Set(fit.skipped.map((s) => s.reason.split(':')[0]))].join('; ') || 'none'})`,
    FIT_FAMILIES.map((f) => {
      const a = fit.families[f];
      return {
        family: f,
        'fit rows': a.fit_rows,
        'check rows': a.check_rows,
        'saturation: fitted / shipped': `${a.fitted_saturation ?? '–'}${a.fitted_at_edge ? " (at the grid's end: not pinned down)" : ''} / ${a.shipped_saturation}`,
        'check mean |diff|: fitted / shipped': `${a.check_mae_fitted ?? '–'} / ${a.check_mae_shipped ?? '–'}`,
        'check spearman': a.check_spearman ?? '–',
      };
    }),
  );
  const simulated = fit.usable - fit.live;
  process.stdout.write(
    (simulated > 0
      ? `\n${simulated} of the usable phrases were collected from a simulated world (replay or synthetic): they show the method works, not that Google's numbers agree, and do not count.`
      : '') +
      (fit.enough
        ? `\n${fit.live} usable phrases from live Google: enough (${fit.required}) to lift the experimental mark, if the check half agrees; set EVIDENCE_VALIDATION.measured in src/domain/scoring/dimensions.ts and the saturation points with the figures above.\n`
        : `\n${fit.live} usable phrases from live Google, where ${fit.required} are needed: pain and intent stay experimental.\n`),
  );
  printJsonLine({
    bench: 'evidence',
    mode: 'collected',
    file: path.basename(given),
    phrases: fit.phrases,
    usable: fit.usable,
    live: fit.live,
    unreadable_lines: unreadable.length,
    required: fit.required,
    enough: fit.enough,
    families: fit.families,
  });
  process.exit(0);
}

const dir = given ?? path.resolve(PROJECT_ROOT, '../shared/data/google-trends-recorded');
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
  recordings.map((r) => ({
    phrase: r.keyword,
    recorded: r.recordedAt,
    window: r.window,
    'top listed': r.top.length,
    'rising listed': r.rising.length,
  })),
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
const drift = Math.max(
  ...AGREEMENT_FAMILIES.flatMap((f) => [
    figures.families[f].retest_abs_difference.list ?? 0,
    figures.families[f].retest_abs_difference.modifier ?? 0,
  ]),
);
process.stdout.write(
  `\n${figures.keywords.length} phrases (${figures.keywords.join(', ')}), recorded on ${figures.days.length} days (${figures.days.join(', ')}), for the window(s) ${figures.windows.join(', ')}. ` +
    `A reading moves by at most ${drift} on average between days for the same phrase, so the days repeat one comparison rather than add new ones: ` +
    `the sample holds ${(figures.keywords.length * (figures.keywords.length - 1)) / 2} independent pair(s) of phrases per family.\n`,
);
printJsonLine({
  bench: 'evidence',
  recordings: figures.recordings,
  exchanges,
  differing,
  keywords: figures.keywords,
  days: figures.days,
  families: figures.families,
});
