// Names that the API, the database and the pipeline share. Each lives here
// once; everything else imports it.
import { DIMENSIONS, type Dimension } from './scoring/dimensions.js';

/** Where an insight came from. `demo` and `synthetic` are never real research. */
export const SOURCES = {
  research: 'research',
  discovery: 'discovery',
  demo: 'demo',
  synthetic: 'synthetic',
} as const;
export type Source = (typeof SOURCES)[keyof typeof SOURCES];
export const SOURCE_VALUES = Object.values(SOURCES) as Source[];

export const SOURCE_DESCRIPTIONS: Record<Source, string> = {
  research: 'A 40-step research run enqueued by an operator',
  discovery: 'A research run started by daily discovery from Google daily trends',
  demo: 'Demo data: recorded US Google Trends windows (GTAB anchor bank) named by their topic; only momentum can be scored from a bare series',
  synthetic: 'A simulated world: the demo research on first start, load tests and benchmarks; never real Google data',
};

export const CATEGORIES = {
  'ai-ml': 'AI and machine learning',
  devtools: 'Developer tools',
  fintech: 'Finance and payments',
  health: 'Health and fitness',
  education: 'Education',
  ecommerce: 'E-commerce and retail',
  marketing: 'Marketing and sales',
  productivity: 'Productivity and work',
  'food-drink': 'Food and drink',
  travel: 'Travel and mobility',
  'home-living': 'Home and living',
  entertainment: 'Media and entertainment',
  climate: 'Climate and energy',
  security: 'Security and privacy',
  'real-estate': 'Real estate',
  uncategorized: 'Not classified (no readable keyword, e.g. a bare topic id)',
} as const;
export type Category = keyof typeof CATEGORIES;
export const CATEGORY_VALUES = Object.keys(CATEGORIES) as Category[];

export const INSIGHT_STATUSES = { active: 'active', archived: 'archived' } as const;
export type InsightStatus = (typeof INSIGHT_STATUSES)[keyof typeof INSIGHT_STATUSES];

/**
 * Sort orders of GET /api/insights: the overall score, the dates, and each
 * dimension's score (high first, unscored last). Each is served by an index
 * (migrations 0001 and 0008).
 */
export const INSIGHT_SORTS = ['score', 'newest', 'oldest', ...DIMENSIONS] as const;
export type InsightSort = (typeof INSIGHT_SORTS)[number];

export const isDimensionSort = (sort: InsightSort): sort is Dimension => (DIMENSIONS as readonly string[]).includes(sort);
