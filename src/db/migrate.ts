import { Migrator, type Migration, type MigrationProvider, type MigrationResultSet } from 'kysely';
import type { Db } from './connection.js';
import * as initial from './migrations/2026-11-22T0001-initial.js';
import * as dimensionScores from './migrations/2026-11-22T0002-dimension-scores.js';
import * as research from './migrations/2026-11-22T0003-research.js';
import * as runStartedBy from './migrations/2026-11-22T0004-run-started-by.js';
import * as webhooks from './migrations/2026-11-22T0005-webhooks.js';
import * as researchHotPaths from './migrations/2026-11-22T0006-research-hot-paths.js';
import * as interestLevel from './migrations/2026-11-23T0007-interest-level.js';
import * as researchServed from './migrations/2026-11-23T0008-research-served.js';
import * as accounts from './migrations/2026-11-23T0009-accounts.js';
import * as runDiscovery from './migrations/2026-11-24T0010-run-discovery.js';
import * as apiKeyScopes from './migrations/2026-11-24T0011-api-key-scopes.js';
import * as subscriptionIdempotency from './migrations/2026-11-24T0012-subscription-idempotency.js';
import * as webhookSends from './migrations/2026-11-26T0013-webhook-sends.js';
import * as researchOnDemand from './migrations/2026-11-27T0014-research-on-demand.js';
import * as researchOnce from './migrations/2026-11-27T0015-research-once.js';
import * as searchVolume from './migrations/2026-11-27T0016-search-volume.js';
import * as googleCategories from './migrations/2026-11-27T0017-google-categories.js';
import * as trustedAnswers from './migrations/2026-11-27T0018-trusted-answers.js';
import * as accountPages from './migrations/2026-11-27T0019-account-pages.js';
import * as millisecondTimes from './migrations/2026-11-27T0020-millisecond-times.js';
import * as provenance from './migrations/2026-11-28T0021-provenance.js';
import * as insightOwners from './migrations/2026-11-28T0022-insight-owners.js';
import * as people from './migrations/2026-11-28T0023-people.js';
import * as allowanceRefunds from './migrations/2026-11-28T0024-allowance-refunds.js';
import * as stepsByName from './migrations/2026-11-28T0025-steps-by-name.js';
import * as runTrace from './migrations/2026-11-28T0026-run-trace.js';

// Migrations are listed explicitly (not read from a folder) so that the built
// output, the tests and a bundled deploy all see exactly the same list.
const MIGRATIONS: Record<string, Migration> = {
  '2026-11-22T0001-initial': initial,
  '2026-11-22T0002-dimension-scores': dimensionScores,
  '2026-11-22T0003-research': research,
  '2026-11-22T0004-run-started-by': runStartedBy,
  '2026-11-22T0005-webhooks': webhooks,
  '2026-11-22T0006-research-hot-paths': researchHotPaths,
  '2026-11-23T0007-interest-level': interestLevel,
  '2026-11-23T0008-research-served': researchServed,
  '2026-11-23T0009-accounts': accounts,
  '2026-11-24T0010-run-discovery': runDiscovery,
  '2026-11-24T0011-api-key-scopes': apiKeyScopes,
  '2026-11-24T0012-subscription-idempotency': subscriptionIdempotency,
  '2026-11-26T0013-webhook-sends': webhookSends,
  '2026-11-27T0014-research-on-demand': researchOnDemand,
  '2026-11-27T0015-research-once': researchOnce,
  '2026-11-27T0016-search-volume': searchVolume,
  '2026-11-27T0017-google-categories': googleCategories,
  '2026-11-27T0018-trusted-answers': trustedAnswers,
  '2026-11-27T0019-account-pages': accountPages,
  '2026-11-27T0020-millisecond-times': millisecondTimes,
  '2026-11-28T0021-provenance': provenance,
  '2026-11-28T0022-insight-owners': insightOwners,
  '2026-11-28T0023-people': people,
  '2026-11-28T0024-allowance-refunds': allowanceRefunds,
  '2026-11-28T0025-steps-by-name': stepsByName,
  '2026-11-28T0026-run-trace': runTrace,
};

const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS };

export class MigrationError extends Error {}

/** Brings the schema up to date. Idempotent; safe to run from several processes at once. */
export function migrateToLatest(db: Db): Promise<MigrationResultSet> {
  return checked(new Migrator({ db, provider }).migrateToLatest());
}

/** Brings the schema up (or down) to one named migration: how the upgrade tests rebuild the version before. */
export function migrateTo(db: Db, name: string): Promise<MigrationResultSet> {
  if (!(name in MIGRATIONS)) throw new MigrationError(`no migration is named "${name}"`);
  return checked(new Migrator({ db, provider }).migrateTo(name));
}

async function checked(running: Promise<MigrationResultSet>): Promise<MigrationResultSet> {
  const result = await running;
  if (result.error) {
    const failed = result.results?.find((r) => r.status === 'Error');
    const reason = result.error instanceof Error ? result.error.message : String(result.error);
    throw new MigrationError(`migration ${failed?.migrationName ?? '(unknown)'} failed: ${reason}`);
  }
  return result;
}
