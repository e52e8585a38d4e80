// Builds the repository's own small copy of real data from the full sets that
// sit beside it (../shared/data), so a clone needs nothing from outside:
//
//   data/trends-series/           the demo's series: the 48 topics `npm start` loads, their last 90 days
//   data/google-trends-recorded/  the recorded answers `TRENDS_PROVIDER=replay insights research pizza` reads
//   test/fixtures/google-trends-recorded/  the recorded bodies the tests parse
//
// Run after `npm run build`: node scripts/make-data.mjs [SHARED_DATA_DIR]
// Provenance and licences: data/README.md. Re-running gives the same files.
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chooseDemoSeries, DEFAULT_DEMO_COUNT, readKeywordNames, readSeriesCsv, topicOf } from '../dist/src/demo/demo-seed.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const USAGE = 'usage: node scripts/make-data.mjs [SHARED_DATA_DIR]   (after npm run build; default ../shared/data)';
if (process.argv[2] === '--help' || process.argv[2] === '-h') {
  console.log(USAGE);
  process.exit(0);
}
if (process.argv[2]?.startsWith('-') || process.argv.length > 3) {
  console.error(`make-data: unknown arguments ${process.argv.slice(2).join(' ')}\n${USAGE}`);
  process.exit(2);
}
const shared = path.resolve(process.argv[2] ?? path.join(root, '../shared/data'));

// --- the demo's series -------------------------------------------------------
// The demo shows each topic's last 30 days and fits its forecast on the last 90
// (src/demo/demo-seed.ts), so those 90 days are all it reads.
const DEMO_DAYS = 90;
const seriesFrom = path.join(shared, 'trends-series');
const seriesTo = path.join(root, 'data/trends-series');
const all = await readSeriesCsv(seriesFrom);
const names = await readKeywordNames(seriesFrom);
const chosen = new Set(chooseDemoSeries(all, DEFAULT_DEMO_COUNT, names));
// The two data files are rewritten; the folder's README (source and licence) is written by hand.
mkdirSync(seriesTo, { recursive: true });
const csv = ['series_id,date,value'];
for (const id of [...chosen].sort()) for (const p of all.get(id).slice(-DEMO_DAYS)) csv.push(`${id},${p.date},${p.value}`);
writeFileSync(path.join(seriesTo, 'gtab-us-daily.csv'), `${csv.join('\n')}\n`);
const topics = new Set([...chosen].map(topicOf));
const nameLines = readFileSync(path.join(seriesFrom, 'keyword-names.tsv'), 'utf8').split('\n').filter(Boolean);
const keptNames = nameLines.filter((line, i) => i === 0 || topics.has(line.split('\t')[0].trim()));
writeFileSync(path.join(seriesTo, 'keyword-names.tsv'), `${keptNames.join('\n')}\n`);
console.log(`data/trends-series: ${chosen.size} series × ${DEMO_DAYS} days, ${keptNames.length - 1} names`);

// --- recorded Google Trends answers ---------------------------------------------
const recordedFrom = path.join(shared, 'google-trends-recorded');

// What a replay research of "pizza" reads (found by tracing the files the replay
// provider opens during `TRENDS_PROVIDER=replay insights research pizza --wait`;
// test/integration/quick-start.test.ts runs that command on this copy).
const REPLAY = {
  test_suggestions__5327811ae3: ['02_GET_trends_api_autocomplete_pizza_200.json.txt'],
  test_interest_over_time__52e446fcdd: ['03_GET_trends_api_widgetdata_multiline_200.json.txt'],
  test_interest_over_time_multiple_regions__1ba164b058: ['03_GET_trends_api_widgetdata_multiline_200.json.txt'],
  test_related_queries_result_keys__022e5a92f6: ['02_GET_trends_api_widgetdata_relatedsearches_200.json.txt'],
  test_related_topics_result_keys__022e5a92f6: ['02_GET_trends_api_widgetdata_relatedsearches_200.json.txt'],
  test_interest_by_region__8c15afc64a: ['03_GET_trends_api_widgetdata_comparedgeo_200.json.txt'],
  test_interest_by_region_city_resolution__022e5a92f6: ['02_GET_trends_api_widgetdata_comparedgeo_200.json.txt'],
};
const replayTo = path.join(root, 'data/google-trends-recorded');
rmSync(path.join(replayTo, 'pytrends'), { recursive: true, force: true });
for (const [cassette, files] of Object.entries(REPLAY)) {
  const from = path.join(recordedFrom, 'pytrends', cassette);
  const to = path.join(replayTo, 'pytrends', cassette);
  mkdirSync(to, { recursive: true });
  for (const file of files) copyFileSync(path.join(from, file), path.join(to, file));
  // The replay provider finds recordings through index.json: keep only the
  // interactions whose bodies are here, and say that the file was changed.
  const index = JSON.parse(readFileSync(path.join(from, 'index.json'), 'utf8'));
  const trimmed = {
    modified:
      'Trimmed for Startup Insights: only the interactions whose bodies are in this folder are listed (see data/google-trends-recorded/README.md).',
    ...index,
    interactions: index.interactions.filter((i) => files.includes(i.file)),
  };
  if (trimmed.interactions.length !== files.length) throw new Error(`${cassette}: index.json does not list ${files.join(', ')}`);
  writeFileSync(path.join(to, 'index.json'), `${JSON.stringify(trimmed, null, 1)}\n`);
}
console.log(`data/google-trends-recorded: ${Object.values(REPLAY).flat().length} answers from ${Object.keys(REPLAY).length} cassettes`);

// The bodies the tests parse (test/support/recorded.ts): the Google client's
// parsers, the refresh's fault handling and the reach score read them.
const FIXTURES = {
  pytrends: {
    test_interest_over_time_ok__f6b2d0c230: [
      '00_GET_trends_explore_404.html',
      '01_POST_trends_api_explore_200.json.txt',
      '02_GET_trends_api_widgetdata_multiline_200.json.txt',
    ],
    test_interest_over_time_partial__022e5a92f6: ['02_GET_trends_api_widgetdata_multiline_200.json.txt'],
    test_interest_by_region_ok__f6b2d0c230: [
      '01_POST_trends_api_explore_200.json.txt',
      '02_GET_trends_api_widgetdata_comparedgeo_200.json.txt',
    ],
    test_interest_by_region_city_resolution__f6b2d0c230: [
      '01_POST_trends_api_explore_200.json.txt',
      '02_GET_trends_api_widgetdata_comparedgeo_200.json.txt',
    ],
    test_related_queries_result_rising__f6b2d0c230: [
      '01_POST_trends_api_explore_200.json.txt',
      '02_GET_trends_api_widgetdata_relatedsearches_200.json.txt',
    ],
    test_related_queries_result_top__f6b2d0c230: ['02_GET_trends_api_widgetdata_relatedsearches_200.json.txt'],
    test_related_topics_result_top__f6b2d0c230: [
      '01_POST_trends_api_explore_200.json.txt',
      '02_GET_trends_api_widgetdata_relatedsearches_200.json.txt',
    ],
    test_suggestions_ok__f6b2d0c230: ['01_GET_trends_api_autocomplete_pizza_200.json.txt'],
  },
  // What a blocked client got in 2025: the cookie page's 404, the 302 to "sorry" and its 429 page
  // (the Google client's classification and the loopback Google's pages read them).
  'rate-limited-2025': {
    test_interest_over_time_ok__18c9392ff6: [
      '00_GET_trends_explore_404.html',
      '01_POST_trends_api_explore_302.html',
      '02_GET_sorry_index_429.html',
    ],
    test_suggestions_ok__18c9392ff6: ['02_GET_sorry_index_429.html'],
    test_tokens__18c9392ff6: ['01_POST_trends_api_explore_302.html'],
    test_initial_data__18c9392ff6: ['00_GET_trends_explore_404.html'],
  },
};
const fixturesTo = path.join(root, 'test/fixtures/google-trends-recorded');
let fixtureCount = 0;
for (const [collection, cassettes] of Object.entries(FIXTURES)) {
  rmSync(path.join(fixturesTo, collection), { recursive: true, force: true });
  for (const [cassette, files] of Object.entries(cassettes)) {
    const to = path.join(fixturesTo, collection, cassette);
    mkdirSync(to, { recursive: true });
    for (const file of files) {
      copyFileSync(path.join(recordedFrom, collection, cassette, file), path.join(to, file));
      fixtureCount += 1;
    }
  }
}
console.log(`test/fixtures/google-trends-recorded: ${fixtureCount} bodies`);
