import type { Command } from 'commander';
import { announceKeyChange } from '../../api-keys/api-key-cache.js';
import {
  createApiKey,
  createKeyForAccount,
  findApiKey,
  listApiKeys,
  revokeApiKey,
  rotateApiKey,
  type CreatedApiKey,
} from '../../api-keys/api-key.repository.js';
import { findAccount } from '../../accounts/account.repository.js';
import { DURATION_FORMAT, parseDuration } from '../../domain/duration.js';
import { API_KEY_SCOPES, DEFAULT_API_KEY_SCOPES, isApiKeyScope, type ApiKeyScope } from '../../domain/api-key.js';
import { isId } from '../../domain/ids.js';
import { PLAN_VALUES, PLANS } from '../../domain/quota.js';
import type { CliContext } from '../context.js';
import { describeCommand } from '../command-index.js';
import { withResources } from '../resources.js';
import { print, printJson, table, UsageError } from '../output.js';
import { checkName, checkPlan, keyStatus, requireAccount } from '../account-arguments.js';

function durationOption(name: string, raw: string | undefined, fallback?: string): number | undefined {
  const text = raw ?? fallback;
  if (text === undefined) return undefined;
  const ms = parseDuration(text);
  if (ms === null) throw new UsageError(`${name} must be ${DURATION_FORMAT} (got "${text.slice(0, 20)}")`);
  return ms;
}

const collect = (value: string, previous: string[]) => [...previous, value];

function checkScopes(raw: string[]): ApiKeyScope[] {
  if (raw.length === 0) return [...DEFAULT_API_KEY_SCOPES];
  for (const scope of raw) {
    if (!isApiKeyScope(scope)) throw new UsageError(`--scope must be one of ${API_KEY_SCOPES.join(', ')} (got "${scope.slice(0, 40)}")`);
  }
  return [...new Set(raw as ApiKeyScope[])];
}

function printCreated(created: CreatedApiKey, json: boolean | undefined, what: string): void {
  if (json) {
    printJson({
      id: created.id,
      key: created.key,
      account_id: created.accountId,
      plan: created.plan,
      expires_at: created.expiresAt?.toISOString() ?? null,
      scopes: created.scopes,
    });
    return;
  }
  const limit = PLANS[created.plan].dailyLimit;
  print(
    `${what} ${created.id} in account ${created.accountId} (${created.plan}: ${limit === null ? 'unlimited' : `${limit} requests`} per UTC day for the account)`,
  );
  print(`Scopes: ${created.scopes.join(', ')}`);
  if (created.expiresAt) print(`Expires at ${created.expiresAt.toISOString()}`);
  print(`Key: ${created.key}`);
  print('Store it now: it is shown only once and kept only as a hash.');
}

export function registerKeyCommands(program: Command, context: () => CliContext): void {
  const keys = program.command('keys').description(describeCommand('keys'));

  keys
    .command('create')
    .description('Create an API key in an account (--account), or in an account of its own (--plan), and print it once')
    .requiredOption('--name <name>', 'who or what the key is for')
    .option('--account <account-id>', 'the account the key belongs to (acc_…; see insights accounts list)')
    .option('--plan <plan>', `shorthand without --account: a new account of its own on this plan (${PLAN_VALUES.join('|')})`)
    .option('--expires-in <duration>', `the key stops working after this long (${DURATION_FORMAT})`)
    .option(
      '--scope <scope>',
      `what the key may do (repeatable): ${API_KEY_SCOPES.join(', ')}; default ${DEFAULT_API_KEY_SCOPES.join(', ')}`,
      collect,
      [],
    )
    .option('--json', 'print {"id","key","account_id","plan","expires_at","scopes"}')
    .action(async (options: { name: string; account?: string; plan?: string; expiresIn?: string; scope: string[]; json?: boolean }) => {
      const name = checkName(options.name);
      const scopes = checkScopes(options.scope);
      if (options.account !== undefined && options.plan !== undefined) {
        throw new UsageError('--plan belongs to the account: give --account alone (change its plan with insights accounts set-plan)');
      }
      if (options.account === undefined && options.plan === undefined)
        throw new UsageError('give --account ACC_ID, or --plan PLAN for a key with an account of its own');
      const plan = options.plan === undefined ? undefined : checkPlan(options.plan);
      const lifetime = durationOption('--expires-in', options.expiresIn);
      if (lifetime === 0) throw new UsageError('--expires-in must be longer than 0');
      const expiresAt = lifetime === undefined ? null : new Date(Date.now() + lifetime);
      await withResources(context, async (resources) => {
        const created = plan
          ? await createApiKey(resources.db, name, plan, expiresAt, scopes)
          : await createKeyForAccount(resources.db, await requireAccount(resources, options.account!), name, expiresAt, scopes);
        printCreated(created, options.json, 'Created');
      });
    });

  keys
    .command('list')
    .description('List API keys: id, name, prefix, created, last used, expires, status (never the keys themselves)')
    .option('--account <account-id>', "only this account's keys")
    .option('--json', 'print JSON lines')
    .action(async (options: { account?: string; json?: boolean }) => {
      await withResources(context, async (resources) => {
        if (options.account !== undefined) await requireAccount(resources, options.account);
        const rows = await listApiKeys(resources.db, options.account);
        const view = rows.map((r) => ({
          id: r.id,
          account: r.account_id,
          name: r.name,
          plan: r.plan,
          key: `${r.display_prefix}…`,
          created: r.created_at.toISOString(),
          last_used: r.last_used_at ? r.last_used_at.toISOString() : null,
          expires: r.expires_at ? r.expires_at.toISOString() : null,
          scopes: r.scopes.join(','),
          status: keyStatus(r),
          replaced_by: r.replaced_by,
        }));
        if (options.json) view.forEach((v) => printJson(v));
        else print(view.length === 0 ? 'No keys.' : table(view));
      });
    });

  keys
    .command('revoke')
    .description('Revoke an API key; requests with it get 401 at once')
    .argument('<id>', 'the key id (key_…)')
    .action(async (id: string) => {
      await withResources(context, async (resources) => {
        const row = isId('apiKey', id) ? await revokeApiKey(resources.db, id) : undefined;
        if (!row) throw new UsageError(`No API key has the id "${id.slice(0, 64)}" (see: insights keys list)`);
        await announceKeyChange(resources.redis, resources.redisKeys.apiKeyChangesChannel, row.id);
        print(`Revoked ${row.id} (${row.name}) at ${row.revoked_at?.toISOString()}`);
      });
    });

  keys
    .command('rotate')
    .description('A new key in the same account, shown once; the old one keeps working until the overlap ends, then stops')
    .argument('<id>', 'the key id (key_…)')
    .option('--overlap <duration>', `how long the old key keeps working (${DURATION_FORMAT})`, '24h')
    .option('--json', 'print {"id","key","account_id","plan","expires_at","scopes","replaces","old_key_stops_at"}')
    .action(async (id: string, options: { overlap: string; json?: boolean }) => {
      const overlap = durationOption('--overlap', options.overlap)!;
      await withResources(context, async (resources) => {
        const old = isId('apiKey', id) ? await findApiKey(resources.db, id) : undefined;
        if (!old) throw new UsageError(`No API key has the id "${id.slice(0, 64)}" (see: insights keys list)`);
        if (old.revoked_at)
          throw new UsageError(
            `${old.id} was revoked at ${old.revoked_at.toISOString()}: a revoked key cannot be rotated (create a new one: insights keys create --account ${old.account_id} --name NAME)`,
          );
        if (old.expires_at && old.expires_at.getTime() <= Date.now())
          throw new UsageError(
            `${old.id} expired at ${old.expires_at.toISOString()}: create a new key instead (insights keys create --account ${old.account_id} --name NAME)`,
          );
        const account = (await findAccount(resources.db, old.account_id))!;
        const stopsAt = new Date(Math.min(Date.now() + overlap, old.expires_at?.getTime() ?? Infinity));
        const created = await rotateApiKey(resources.db, old, account.plan, stopsAt);
        // Every web process drops the old key's cached entry, so its new expiry bites on time.
        await announceKeyChange(resources.redis, resources.redisKeys.apiKeyChangesChannel, old.id);
        if (options.json) {
          printJson({
            id: created.id,
            key: created.key,
            account_id: created.accountId,
            plan: created.plan,
            expires_at: null,
            scopes: created.scopes,
            replaces: old.id,
            old_key_stops_at: stopsAt.toISOString(),
          });
          return;
        }
        printCreated(created, false, 'Rotated: created');
        print(`${old.id} keeps working until ${stopsAt.toISOString()}, then stops. Both count against the account.`);
      });
    });
}
