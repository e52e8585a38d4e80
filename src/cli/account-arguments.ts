// Arguments the account and key commands (and webhooks') read alike: a name, a
// plan, an existing account, and how a key's state is shown.
import { findAccount, type AccountRow } from '../accounts/account.repository.js';
import { isId } from '../domain/ids.js';
import { isPlan, PLAN_VALUES, type Plan } from '../domain/quota.js';
import { controlCharacterProblem } from '../domain/text.js';
import type { Resources } from '../runtime/resources.js';
import { UsageError } from './output.js';

export function checkName(raw: string): string {
  const name = raw.trim();
  if (name === '' || name.length > 200) throw new UsageError('--name must be 1–200 characters');
  const control = controlCharacterProblem(name);
  if (control) throw new UsageError(`--name ${control}`);
  return name;
}

export function checkPlan(raw: string): Plan {
  if (!isPlan(raw)) throw new UsageError(`--plan must be one of ${PLAN_VALUES.join(', ')} (got "${raw.slice(0, 40)}")`);
  return raw;
}

/** The account, or a usage error naming where to find the right id. */
export async function requireAccount(resources: Resources, id: string): Promise<AccountRow> {
  const account = isId('account', id) ? await findAccount(resources.db, id) : undefined;
  if (!account) throw new UsageError(`No account has the id "${id.slice(0, 64)}" (see: insights accounts list)`);
  return account;
}

export function keyStatus(k: { revoked_at: Date | null; expires_at: Date | null }, now = Date.now()): string {
  if (k.revoked_at) return 'revoked';
  if (k.expires_at && k.expires_at.getTime() <= now) return 'expired';
  return 'active';
}
