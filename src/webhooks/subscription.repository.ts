import { sql, type Selectable } from 'kysely';
import type { Db } from '../db/connection.js';
import type { WebhookSubscriptionsTable } from '../db/database.js';
import { newId } from '../domain/ids.js';
import type { SubscriptionCriteria } from '../domain/webhooks/matching.js';
import { generateWebhookSecret } from '../domain/webhooks/signing.js';
import type { SecretBox } from './secret-box.js';

export type SubscriptionRow = Selectable<WebhookSubscriptionsTable>;

export interface NewSubscription {
  url: string;
  minScore: number | null;
  categories: string[];
  sources: string[];
  keywords: string[];
  eventTypes: string[];
  /** The account it belongs to: its deliveries are held while the account is suspended. */
  accountId?: string | null;
}

/** Returns the id and the secret in clear: the only time it is shown. */
export async function createSubscription(db: Db, box: SecretBox, input: NewSubscription): Promise<{ id: string; secret: string }> {
  const id = newId('subscription');
  const secret = generateWebhookSecret();
  await db
    .insertInto('webhook_subscriptions')
    .values({
      id,
      url: input.url,
      secret_encrypted: box.seal(secret),
      min_score: input.minScore,
      categories: JSON.stringify(input.categories),
      sources: JSON.stringify(input.sources),
      keywords: JSON.stringify(input.keywords.map((k) => k.toLowerCase())),
      event_types: JSON.stringify(input.eventTypes),
      state: 'enabled',
      account_id: input.accountId ?? null,
    })
    .execute();
  return { id, secret };
}

export const findSubscription = (db: Db, id: string) => db.selectFrom('webhook_subscriptions').selectAll().where('id', '=', id).executeTakeFirst();

export const listSubscriptions = (db: Db) => db.selectFrom('webhook_subscriptions').selectAll().orderBy('created_at').execute();

export async function enabledCriteria(db: Db): Promise<SubscriptionCriteria[]> {
  const rows = await db
    .selectFrom('webhook_subscriptions')
    .select(['id', 'min_score', 'categories', 'sources', 'keywords', 'event_types'])
    .where('state', '=', 'enabled')
    .execute();
  return rows.map((r) => ({ id: r.id, minScore: r.min_score, categories: r.categories, sources: r.sources, keywords: r.keywords, eventTypes: r.event_types }));
}

export async function setSubscriptionState(db: Db, id: string, state: 'enabled' | 'disabled', reason: string | null): Promise<boolean> {
  const r = await db
    .updateTable('webhook_subscriptions')
    .set({ state, disabled_reason: reason, updated_at: sql<Date>`now()`, ...(state === 'enabled' ? { failing_since: null } : {}) })
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export async function removeSubscription(db: Db, id: string): Promise<boolean> {
  const r = await db.deleteFrom('webhook_subscriptions').where('id', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

/** New secret now; the old one keeps signing until the overlap ends. Returns the new secret in clear. */
export async function rotateSecret(db: Db, box: SecretBox, id: string, overlapHours: number): Promise<string | undefined> {
  const row = await findSubscription(db, id);
  if (!row) return undefined;
  const secret = generateWebhookSecret();
  await db
    .updateTable('webhook_subscriptions')
    .set({
      secret_encrypted: box.seal(secret),
      previous_secret_encrypted: row.secret_encrypted,
      previous_secret_expires_at: new Date(Date.now() + overlapHours * 3_600_000),
      updated_at: sql<Date>`now()`,
    })
    .where('id', '=', id)
    .execute();
  return secret;
}

/** The secrets that sign now: the current one, and the previous one during its overlap. */
export function signingSecrets(
  box: SecretBox,
  row: Pick<SubscriptionRow, 'secret_encrypted' | 'previous_secret_encrypted' | 'previous_secret_expires_at'>,
  now = new Date(),
): string[] {
  const secrets = [box.open(row.secret_encrypted)];
  if (row.previous_secret_encrypted && row.previous_secret_expires_at && row.previous_secret_expires_at > now) {
    secrets.push(box.open(row.previous_secret_encrypted));
  }
  return secrets;
}

/** A subscription's failure streak: started now (kept if already running), or ended by a delivery that got through. */
export async function setFailingSince(db: Db, id: string, failing: boolean): Promise<void> {
  await db
    .updateTable('webhook_subscriptions')
    .set({ failing_since: failing ? sql<Date>`coalesce(failing_since, now())` : null })
    .where('id', '=', id)
    .execute();
}

/** The score thresholds of these subscriptions (null: none). */
export async function minScoresOf(db: Db, ids: readonly string[]): Promise<Array<{ id: string; minScore: number | null }>> {
  if (ids.length === 0) return [];
  const rows = await db.selectFrom('webhook_subscriptions').select(['id', 'min_score']).where('id', 'in', ids).execute();
  return rows.map((r) => ({ id: r.id, minScore: r.min_score }));
}
