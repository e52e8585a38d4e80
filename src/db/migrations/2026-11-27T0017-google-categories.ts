// Categories follow Google's top-level category tree (issue 39, docs/categories.md):
// each old slug moves to the Google category that holds its subject, in the
// insights and in the webhook subscriptions' criteria (a list that named two
// old slugs of one new category names it once). The map is written out here,
// frozen in time, not imported. Insights keep their updated_at: their research
// did not change, only the category's name. `down` cannot split a Google
// category back into the old ones: it maps each to one old slug, and a
// category the old list did not have to `uncategorized`.
import { sql, type Kysely } from 'kysely';

const OLD_TO_NEW: ReadonlyArray<readonly [string, string]> = [
  ['ai-ml', 'computers-electronics'],
  ['devtools', 'computers-electronics'],
  ['fintech', 'finance'],
  ['education', 'jobs-education'],
  ['ecommerce', 'shopping'],
  ['marketing', 'business-industrial'],
  ['productivity', 'computers-electronics'],
  ['home-living', 'home-garden'],
  ['entertainment', 'arts-entertainment'],
  ['climate', 'business-industrial'],
  ['security', 'computers-electronics'],
];

const NEW_TO_OLD: ReadonlyArray<readonly [string, string]> = [
  ['computers-electronics', 'devtools'],
  ['finance', 'fintech'],
  ['jobs-education', 'education'],
  ['shopping', 'ecommerce'],
  ['business-industrial', 'marketing'],
  ['home-garden', 'home-living'],
  ['arts-entertainment', 'entertainment'],
];
/** Every slug of the old list: on the way down, any other category becomes `uncategorized`. */
const OLD_SLUGS = [...new Set(OLD_TO_NEW.map(([old]) => old)), 'health', 'food-drink', 'travel', 'real-estate', 'uncategorized'];

async function remap(db: Kysely<any>, pairs: ReadonlyArray<readonly [string, string]>, keep?: readonly string[]): Promise<void> {
  const map = sql`(values ${sql.join(pairs.map(([from, to]) => sql`(${from}, ${to})`))}) as m(from_slug, to_slug)`;
  await sql`update insights set category = m.to_slug from ${map} where insights.category = m.from_slug`.execute(db);
  if (keep) await sql`update insights set category = 'uncategorized' where category <> all(${sql.val(keep)}::text[])`.execute(db);
  const renamed = keep
    ? sql`case when coalesce(m.to_slug, c.value) = any(${sql.val(keep)}::text[]) then coalesce(m.to_slug, c.value) else 'uncategorized' end`
    : sql`coalesce(m.to_slug, c.value)`;
  await sql`
    update webhook_subscriptions as s
    set categories = (
      select coalesce(jsonb_agg(distinct ${renamed}), '[]'::jsonb)
      from jsonb_array_elements_text(s.categories) as c(value) left join ${map} on m.from_slug = c.value
    ),
    updated_at = now()
    where exists (
      select 1 from jsonb_array_elements_text(s.categories) as c(value) left join ${map} on m.from_slug = c.value
      where ${renamed} <> c.value
    )
  `.execute(db);
}

export async function up(db: Kysely<any>): Promise<void> {
  await remap(db, OLD_TO_NEW);
}

export async function down(db: Kysely<any>): Promise<void> {
  await remap(db, NEW_TO_OLD, OLD_SLUGS);
}
