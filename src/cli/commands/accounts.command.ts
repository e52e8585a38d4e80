import type { Command } from 'commander';
import { announceKeyChange } from '../../api-keys/api-key-cache.js';
import { listApiKeys } from '../../api-keys/api-key.repository.js';
import { createAccount, listAccounts, setAccountPlan, setAccountStatus, type AccountRow } from '../../accounts/account.repository.js';
import { defineQuotaCommands, QuotaStore } from '../../accounts/quota.store.js';
import { accountUsage } from '../../accounts/account-usage.js';
import { PLAN_VALUES, PLANS, utcDay, type Plan } from '../../domain/quota.js';
import type { Resources } from '../../runtime/resources.js';
import { releaseHeldDeliveries } from '../../runtime/held-deliveries.js';
import { checkName, checkPlan, keyStatus, requireAccount } from '../account-arguments.js';
import type { CliContext } from '../context.js';
import { describeCommand } from '../command-index.js';
import { print, printJson, table, UsageError } from '../output.js';
import { withResources } from '../resources.js';
import { createInvitation, normaliseEmail } from '../../account/invitations.js';

const describePlan = (plan: Plan) => {
  const limit = PLANS[plan].dailyLimit;
  return `${plan}: ${limit === null ? 'unlimited' : `${limit} requests`} per UTC day`;
};

const accountView = (a: AccountRow) => ({
  id: a.id,
  name: a.name,
  plan: a.plan,
  status: a.status,
  created: a.created_at.toISOString(),
});

function quotaOf(resources: Resources): QuotaStore {
  defineQuotaCommands(resources.redis);
  return new QuotaStore(resources.redis, resources.redisKeys, resources.db, () => {});
}

export function registerAccountCommands(program: Command, context: () => CliContext): void {
  const accounts = program.command('accounts').description(describeCommand('accounts'));

  accounts
    .command('create')
    .description('Create an account')
    .requiredOption('--name <name>', 'who the account is for')
    .requiredOption('--plan <plan>', `daily quota plan: ${PLAN_VALUES.join('|')}`)
    .option('--json', 'print the account as JSON')
    .action(async (options: { name: string; plan: string; json?: boolean }) => {
      const name = checkName(options.name);
      const plan = checkPlan(options.plan);
      await withResources(context, async (resources) => {
        const account = await createAccount(resources.db, name, plan);
        if (options.json) printJson(accountView(account));
        else
          print(
            `Created ${account.id} "${account.name}" (${describePlan(account.plan)}). Next: insights keys create --account ${account.id} --name NAME`,
          );
      });
    });

  accounts
    .command('list')
    .description('List accounts')
    .option('--json', 'print JSON lines')
    .action(async (options: { json?: boolean }) => {
      await withResources(context, async (resources) => {
        const rows = (await listAccounts(resources.db)).map((a) => ({ ...accountView(a), keys: Number(a.keys) }));
        if (options.json) rows.forEach((r) => printJson(r));
        else print(rows.length === 0 ? 'No accounts yet: insights accounts create --name NAME --plan free' : table(rows));
      });
    });

  accounts
    .command('show')
    .description("An account: its keys and today's usage")
    .argument('<account-id>', 'acc_…')
    .option('--json', 'print JSON')
    .action(async (id: string, options: { json?: boolean }) => {
      await withResources(context, async (resources) => {
        const account = await requireAccount(resources, id);
        const keys = await listApiKeys(resources.db, account.id);
        const today = await quotaOf(resources).today(account.id);
        const limit = PLANS[account.plan].dailyLimit;
        const view = {
          ...accountView(account),
          today: { day: utcDay(new Date()), used: today?.total ?? 0, limit, by_key: Object.fromEntries(today?.byKey ?? []) },
          keys: keys.map((k) => ({
            id: k.id,
            name: k.name,
            key: `${k.display_prefix}…`,
            created: k.created_at.toISOString(),
            last_used: k.last_used_at?.toISOString() ?? null,
            expires: k.expires_at?.toISOString() ?? null,
            status: keyStatus(k),
          })),
        };
        if (options.json) {
          printJson(view);
          return;
        }
        print(`${account.id} "${account.name}": ${describePlan(account.plan)}, ${account.status}`);
        print(`Today (${view.today.day}): ${view.today.used}${limit === null ? '' : ` of ${limit}`} requests`);
        print(view.keys.length === 0 ? 'No keys.' : table(view.keys.map((k) => ({ ...k, today: today?.byKey.get(k.id) ?? 0 }))));
      });
    });

  accounts
    .command('set-plan')
    .description('Change the plan: every web process applies it to the next request (within a second)')
    .argument('<account-id>', 'acc_…')
    .argument('<plan>', PLAN_VALUES.join('|'))
    .option('--json', 'print the account as JSON, with the plan it had before')
    .action(async (id: string, plan: string, options: { json?: boolean }) => {
      const newPlan = checkPlan(plan);
      await withResources(context, async (resources) => {
        const before = await requireAccount(resources, id);
        const account = (await setAccountPlan(resources.db, before.id, newPlan))!;
        await announceKeyChange(resources.redis, resources.redisKeys.apiKeyChangesChannel, account.id);
        if (options.json) printJson({ ...accountView(account), previous_plan: before.plan });
        else print(`${account.id}: ${before.plan} → ${describePlan(account.plan)}`);
      });
    });

  for (const [command, status, description] of [
    ['suspend', 'suspended', "Suspend: the account's keys get 403 at once and its webhook deliveries are held"],
    ['resume', 'active', 'Resume: keys work again and held webhook deliveries go out'],
  ] as const) {
    accounts
      .command(command)
      .description(description)
      .argument('<account-id>', 'acc_…')
      .option('--json', 'print the account as JSON (resume: with the held deliveries it released)')
      .action(async (id: string, options: { json?: boolean }) => {
        await withResources(context, async (resources) => {
          const before = await requireAccount(resources, id);
          const account = (await setAccountStatus(resources.db, before.id, status))!;
          await announceKeyChange(resources.redis, resources.redisKeys.apiKeyChangesChannel, account.id);
          const released = status === 'active' ? await releaseHeldDeliveries(resources, account.id) : 0;
          if (options.json) {
            printJson({
              ...accountView(account),
              previous_status: before.status,
              ...(status === 'active' ? { released_deliveries: released } : {}),
            });
            return;
          }
          print(
            before.status === status
              ? `${account.id} was already ${status}`
              : `${account.id} is ${status}${status === 'active' ? `; ${released} held webhook deliveries released` : ''}`,
          );
        });
      });
  }

  accounts
    .command('invite')
    .description("Invite a person to the account's pages: prints a one-time link (72 hours) to set a password; no mail is sent")
    .requiredOption('--account <account-id>', 'acc_…')
    .requiredOption('--email <address>', 'who signs in with it')
    .option('--role <role>', 'owner (manages people and every key) or member', 'member')
    .option(
      '--reset',
      'for a person who has set a password already: a link that sets a new one (their sessions end when it is used); without it such a person is refused',
    )
    .option('--json', 'print {"account_id","member_id","email","role","link","expires_at"}')
    .action(async (options: { account: string; email: string; role: string; reset?: boolean; json?: boolean }) => {
      const email = normaliseEmail(options.email);
      if (!email) throw new UsageError(`--email must be an email address (got "${options.email.slice(0, 80)}")`);
      if (options.role !== 'owner' && options.role !== 'member')
        throw new UsageError(`--role must be owner or member (got "${options.role.slice(0, 20)}")`);
      const role = options.role;
      await withResources(context, async (resources) => {
        const account = await requireAccount(resources, options.account);
        const baseUrl = context().config.web.publicBaseUrl;
        const invitation = await createInvitation(
          resources.db,
          { accountId: account.id, email, role, reset: options.reset === true },
          baseUrl,
        );
        if (invitation.kind === 'elsewhere') throw new UsageError(`${email} is a member of another account already`);
        if (invitation.kind === 'already-member')
          throw new UsageError(
            `${email} is a member of ${account.id} with a password already; to let them set a new one (a reset), add --reset`,
          );
        if (invitation.kind === 'role-differs')
          throw new UsageError(
            `${email} is ${invitation.role} of ${account.id}: inviting does not change a role (give --role ${invitation.role})`,
          );
        if (options.json) {
          printJson({
            account_id: account.id,
            member_id: invitation.memberId,
            email,
            role: invitation.role,
            link: invitation.link,
            expires_at: invitation.expiresAt.toISOString(),
          });
          return;
        }
        print(
          `Invited ${email} to ${account.id} "${account.name}" as ${invitation.role}${invitation.created ? '' : options.reset ? ' (a password reset: their sessions end when it is used)' : ' (invited before: a new link; the older ones stop working once one is used)'}.`,
        );
        print(`One-time link (until ${invitation.expiresAt.toISOString()}; shown only now):`);
        print(`  ${invitation.link}`);
      });
    });

  accounts
    .command('usage')
    .description("An account's requests per UTC day, with each key's share")
    .argument('<account-id>', 'acc_…')
    .option('--days <n>', 'how many days, today included (1–90)', '30')
    .option('--json', 'print JSON lines, one per day')
    .action(async (id: string, options: { days: string; json?: boolean }) => {
      const days = Number(options.days);
      if (!Number.isInteger(days) || days < 1 || days > 90)
        throw new UsageError(`--days must be a whole number from 1 to 90 (got "${options.days.slice(0, 20)}")`);
      await withResources(context, async (resources) => {
        const account = await requireAccount(resources, id);
        const rows = await accountUsage(resources.db, quotaOf(resources), account.id, days);
        if (options.json) {
          rows.forEach((r) => printJson(r));
          return;
        }
        print(`${account.id} "${account.name}" (${account.plan}), last ${days} days:`);
        print(
          rows.length === 0
            ? 'No requests.'
            : table(
                rows.map((r) => ({
                  day: r.day,
                  requests: r.requests,
                  keys: r.keys.map((k) => `${k.name ?? k.key_id} ${k.requests}`).join(', '),
                })),
              ),
        );
      });
    });
}
