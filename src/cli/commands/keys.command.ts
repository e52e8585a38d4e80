import type { Command } from 'commander';
import { announceRevocation } from '../../api-keys/api-key-cache.js';
import { createApiKey, listApiKeys, revokeApiKey } from '../../api-keys/api-key.repository.js';
import { isPlan, PLAN_VALUES, PLANS } from '../../domain/quota.js';
import { controlCharacterProblem } from '../../domain/text.js';
import type { CliContext } from '../main.js';
import { withResources } from '../resources.js';
import { print, printJson, table, UsageError } from '../output.js';

export function registerKeyCommands(program: Command, context: () => CliContext): void {
  const keys = program.command('keys').description('Manage API keys (shown once, stored only as a hash)');

  keys
    .command('create')
    .description('Create an API key and print it once')
    .requiredOption('--name <name>', 'who or what the key is for')
    .requiredOption('--plan <plan>', `daily quota plan: ${PLAN_VALUES.join('|')}`)
    .option('--json', 'print {"id","key","plan"}')
    .action(async (options: { name: string; plan: string; json?: boolean }) => {
      const name = options.name.trim();
      if (name === '' || name.length > 200) throw new UsageError('--name must be 1–200 characters');
      const control = controlCharacterProblem(name);
      if (control) throw new UsageError(`--name ${control}`);
      const plan = options.plan;
      if (!isPlan(plan)) throw new UsageError(`--plan must be one of ${PLAN_VALUES.join(', ')} (got "${plan}")`);
      await withResources(context, async (resources) => {
        const created = await createApiKey(resources.db, name, plan);
        if (options.json) {
          printJson({ id: created.id, key: created.key, plan: created.plan });
        } else {
          const limit = PLANS[created.plan].dailyLimit;
          print(`Created ${created.id} (${created.plan}: ${limit === null ? 'unlimited' : `${limit} requests`} per UTC day)`);
          print(`Key: ${created.key}`);
          print('Store it now: it is shown only once and kept only as a hash.');
        }
      });
    });

  keys
    .command('list')
    .description('List API keys (never the keys themselves)')
    .option('--json', 'print JSON lines')
    .action(async (options: { json?: boolean }) => {
      await withResources(context, async (resources) => {
        const rows = await listApiKeys(resources.db);
        const view = rows.map((r) => ({
          id: r.id,
          name: r.name,
          plan: r.plan,
          key: `${r.display_prefix}…`,
          created: r.created_at.toISOString(),
          revoked: r.revoked_at ? r.revoked_at.toISOString() : null,
        }));
        if (options.json) view.forEach((v) => printJson(v));
        else print(table(view));
      });
    });

  keys
    .command('revoke')
    .description('Revoke an API key; requests with it get 401 at once')
    .argument('<id>', 'the key id (key_…)')
    .action(async (id: string) => {
      await withResources(context, async (resources) => {
        const row = await revokeApiKey(resources.db, id);
        if (!row) throw new UsageError(`No API key has the id "${id}" (see: insights keys list)`);
        await announceRevocation(resources.redis, resources.redisKeys.apiKeyRevokedChannel, row.id);
        print(`Revoked ${row.id} (${row.name}) at ${row.revoked_at?.toISOString()}`);
      });
    });
}
