// Names that the API, the database and the pipeline share. Each lives here
// once; everything else imports it.
import { DIMENSIONS, type Dimension } from './scoring/dimensions.js';

/** Where an insight came from. `recorded-series` and `synthetic` are never live research (`demo` until 2026-11-28). */
export const SOURCES = {
  research: 'research',
  discovery: 'discovery',
  recordedSeries: 'recorded-series',
  synthetic: 'synthetic',
} as const;
export type Source = (typeof SOURCES)[keyof typeof SOURCES];
export const SOURCE_VALUES = Object.values(SOURCES) as Source[];

export const SOURCE_DESCRIPTIONS: Record<Source, string> = {
  research: 'A 40-step research run enqueued by an operator',
  discovery: 'A research run started by daily discovery from Google daily trends',
  'recorded-series':
    "The quick start's recorded real series: US Google Trends interest in named topics from 2020-04-28 to 2020-07-26 (GTAB anchor bank); only momentum can be scored from a bare series",
  synthetic: "A simulated world: the quick start's startup ideas, load tests and benchmarks; never real Google data",
};

/**
 * Google's top-level category tree, as Google Trends files searches under it:
 * each slug with Google's numeric id (the `cat` parameter of a Trends request)
 * and name, as https://trends.google.com/trends/api/explore/pickers/category
 * lists them (docs/categories.md says where that was checked). `uncategorized`
 * is ours: no evidence matched any category.
 */
export const CATEGORIES = {
  'arts-entertainment': { google_id: 3, name: 'Arts & Entertainment' },
  'autos-vehicles': { google_id: 47, name: 'Autos & Vehicles' },
  'beauty-fitness': { google_id: 44, name: 'Beauty & Fitness' },
  'books-literature': { google_id: 22, name: 'Books & Literature' },
  'business-industrial': { google_id: 12, name: 'Business & Industrial' },
  'computers-electronics': { google_id: 5, name: 'Computers & Electronics' },
  finance: { google_id: 7, name: 'Finance' },
  'food-drink': { google_id: 71, name: 'Food & Drink' },
  games: { google_id: 8, name: 'Games' },
  health: { google_id: 45, name: 'Health' },
  'hobbies-leisure': { google_id: 65, name: 'Hobbies & Leisure' },
  'home-garden': { google_id: 11, name: 'Home & Garden' },
  'internet-telecom': { google_id: 13, name: 'Internet & Telecom' },
  'jobs-education': { google_id: 958, name: 'Jobs & Education' },
  'law-government': { google_id: 19, name: 'Law & Government' },
  news: { google_id: 16, name: 'News' },
  'online-communities': { google_id: 299, name: 'Online Communities' },
  'people-society': { google_id: 14, name: 'People & Society' },
  'pets-animals': { google_id: 66, name: 'Pets & Animals' },
  'real-estate': { google_id: 29, name: 'Real Estate' },
  reference: { google_id: 533, name: 'Reference' },
  science: { google_id: 174, name: 'Science' },
  shopping: { google_id: 18, name: 'Shopping' },
  sports: { google_id: 20, name: 'Sports' },
  travel: { google_id: 67, name: 'Travel' },
  uncategorized: { google_id: null, name: 'Not classified: no evidence matched any category' },
} as const satisfies Record<string, { google_id: number | null; name: string }>;
export type Category = keyof typeof CATEGORIES;
export const CATEGORY_VALUES = Object.keys(CATEGORIES) as Category[];

/**
 * The slugs used before the categories followed Google's tree (until
 * 2026-11-27), each with the category its insights and subscriptions were moved
 * to (migration 2026-11-27T0017-google-categories). The API refuses them and
 * names the new slug: several old slugs became one category, so an alias would
 * quietly widen a filter.
 */
export const RETIRED_CATEGORIES: Readonly<Record<string, Category>> = {
  'ai-ml': 'computers-electronics',
  devtools: 'computers-electronics',
  fintech: 'finance',
  education: 'jobs-education',
  ecommerce: 'shopping',
  marketing: 'business-industrial',
  productivity: 'computers-electronics',
  'home-living': 'home-garden',
  entertainment: 'arts-entertainment',
  climate: 'business-industrial',
  security: 'computers-electronics',
};

/** Why a retired category slug is refused, naming its replacement; undefined for any other value. */
export function retiredCategoryReason(value: string): string | undefined {
  if (!Object.hasOwn(RETIRED_CATEGORIES, value)) return undefined;
  const replacement = RETIRED_CATEGORIES[value]!;
  const { google_id, name } = CATEGORIES[replacement];
  return `has a retired value "${value}": categories follow Google's category tree since 2026-11-27; use "${replacement}" (Google category ${google_id}, ${name})`;
}

export const INSIGHT_STATUSES = { active: 'active', archived: 'archived' } as const;
export type InsightStatus = (typeof INSIGHT_STATUSES)[keyof typeof INSIGHT_STATUSES];

/**
 * Sort orders of GET /api/insights: `score` (the default: complete insights
 * first, each by overall × confidence, domain/scoring/overall.ts rankScore),
 * `overall` (the overall score alone, however thin its evidence), the dates, and
 * each dimension's score (high first, unscored last). Each is served by an index
 * (migrations 0001, 0008 and 0018).
 */
export const INSIGHT_SORTS = ['score', 'overall', 'newest', 'oldest', ...DIMENSIONS] as const;
export type InsightSort = (typeof INSIGHT_SORTS)[number];

export const isDimensionSort = (sort: InsightSort): sort is Dimension => (DIMENSIONS as readonly string[]).includes(sort);
