import type { Config } from '../config.js';
import { migrateToLatest } from '../db/migrate.js';
import type { Resources } from './resources.js';

/** The release phase: everything a deploy must do once before web and workers start. Idempotent. */
export async function release(resources: Resources, _config: Config): Promise<string> {
  const result = await migrateToLatest(resources.db);
  const applied = result.results?.filter((r) => r.status === 'Success').length ?? 0;
  return `Migrations: ${applied === 0 ? 'up to date' : `${applied} applied`}.`;
}
