// The insight an /api/insights/:id route is about, or the 404 every such route
// answers: also for another account's private insight (whether it exists is
// not the asker's to learn).
import type { Db } from '../../../db/connection.js';
import { isId } from '../../../domain/ids.js';
import { findInsight, visibleInsightId, type InsightRow } from '../../../insights/insight.repository.js';
import { problem, ProblemError } from '../../problem.js';

/**
 * The same check for a route that needs only the insight's id (its series, its
 * forecast): the row's JSON columns (dimensions, related lists, geography,
 * search volume) are not read, let alone parsed.
 */
export async function requireVisibleInsightId(db: Db, id: string, viewer: { accountId: string }): Promise<string> {
  const found = isId('insight', id) ? await visibleInsightId(db, id, viewer.accountId) : undefined;
  if (!found) throw new ProblemError(problem('notFound', `No insight has the id "${id.slice(0, 64)}".`));
  return found;
}

export async function requireInsight(db: Db, id: string, viewer: { accountId: string }): Promise<InsightRow> {
  // Ids that cannot exist are answered without a query.
  const row = isId('insight', id) ? await findInsight(db, id, { accountId: viewer.accountId }) : undefined;
  if (!row) throw new ProblemError(problem('notFound', `No insight has the id "${id.slice(0, 64)}".`));
  return row;
}
