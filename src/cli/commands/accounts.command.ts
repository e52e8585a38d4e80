import type { Command } from 'commander';
import { announceKeyChange } from '../../api-keys/api-key-cache.js';
import { listApiKeys } from '../../api-keys/api-key.repository.js';
import { createAccount, listAccounts, setAccountPlan, setAccountStatus, type AccountRow } from '../../accounts/account.repository.js';
import { accountUsage } from '../../accounts/account-usage.js';
import { PLAN_VALUES, PLANS, type Plan } from '../../domain/quota.js';
import { utcDay } from '../../domain/utc-day.js';
import { releaseHeldDeliveries } from '../../runtime/held-deliveries.js';
import { checkName, checkPlan, keyStatus, requireAccount } from '../account-arguments.js';
import type { CliContext } from '../context.js';
import { describeCommand } from '../command-index.js';
import { print, printJson, table, UsageError } from '../output.js';
import { withResources, withServices } from '../resources.js';
import { createInvitation } from '../../members/invitations.js';
import { removeFromAccount } from '../../members/member.repository.js';
import { checkEmailAddress } from '../../domain/email-address.js';

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
      await withServices(context, async ({ resources, quota }) => {
        const account = await requireAccount(resources, id);
        const keys = await listApiKeys(resources.db, account.id);
        const today = await quota.today(account.id);
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
        await withServices(context, async (services) => {
          const { resources } = services;
          const before = await requireAccount(resources, id);
          const account = (await setAccountStatus(resources.db, before.id, status))!;
          await announceKeyChange(resources.redis, resources.redisKeys.apiKeyChangesChannel, account.id);
          const released = status === 'active' ? await releaseHeldDeliveries(services, account.id) : 0;
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
    .description(
      "Invite a person to the account's pages: a one-time link (72 hours) is mailed to the address (SMTP_URL); an address that is a person already joins this account too, keeping their password",
    )
    .requiredOption('--account <account-id>', 'acc_…')
    .requiredOption('--email <address>', 'who signs in with it (ASCII; look-alike characters are refused)')
    .option('--role <role>', 'owner (manages people and every key) or member', 'member')
    .option(
      '--reset',
      'for a person of this account: a link that sets a new password (every session of theirs ends when it is used); without it such a person is refused',
    )
    .option(
      '--print-link',
      'only without SMTP_URL: print the link instead of mailing it, for you to pass on to the address yourself (refused when mail is configured)',
    )
    .option('--json', 'print {"account_id","invitation_id","email","role","reset","delivery","expires_at"} (and "link" with --print-link)')
    .action(async (options: { account: string; email: string; role: string; reset?: boolean; printLink?: boolean; json?: boolean }) => {
      const checked = checkEmailAddress(options.email);
      if (!checked.ok) throw new UsageError(`--email: ${checked.problem}`);
      const email = checked.email;
      if (options.role !== 'owner' && options.role !== 'member')
        throw new UsageError(`--role must be owner or member (got "${options.role.slice(0, 20)}")`);
      const role = options.role;
      const config = context().config;
      if (config.mail.smtpUrl !== undefined && options.printLink)
        throw new UsageError('--print-link is for a service without mail: SMTP_URL is set, so the link goes to the address only');
      if (config.mail.smtpUrl === undefined && !options.printLink)
        throw new UsageError(
          'No mail server is configured (SMTP_URL), so the invitation cannot be mailed. Set SMTP_URL, or add --print-link to print the link and pass it on to the address yourself',
        );
      await withServices(context, async ({ resources, mailer }) => {
        const account = await requireAccount(resources, options.account);
        const outcome = await createInvitation(
          resources.db,
          { accountId: account.id, accountName: account.name, email, role, invitedBy: null, reset: options.reset === true },
          config.web.publicBaseUrl,
          mailer ? { mailer } : { printTo: 'operator' },
        );
        if (outcome.kind === 'already-member')
          throw new UsageError(`${email} is a member of ${account.id} already; to let them set a new password (a reset), add --reset`);
        if (outcome.kind === 'not-sent')
          throw new Error(`The mail server did not take the invitation to ${email} (${outcome.reason}); nothing was made`);
        if (outcome.kind === 'day-cap' || outcome.kind === 'pending-cap') throw new Error(`${outcome.kind}: operators are not capped`);
        const view = {
          account_id: account.id,
          invitation_id: outcome.invitationId,
          email,
          role: outcome.role,
          reset: outcome.reset,
          delivery: outcome.kind,
          expires_at: outcome.expiresAt.toISOString(),
          ...(outcome.kind === 'printed' ? { link: outcome.link } : {}),
        };
        if (options.json) {
          printJson(view);
          return;
        }
        print(
          `Invited ${email} to ${account.id} "${account.name}" as ${outcome.role}${outcome.reset ? ' (a password reset: their sessions end when it is used)' : ''}; older unused links of this address in the account stop working.`,
        );
        if (outcome.kind === 'mailed') print(`The one-time link was mailed to ${email} (valid until ${view.expires_at}).`);
        else {
          print(`One-time link (until ${view.expires_at}; shown only now; give it to ${email} alone):`);
          print(`  ${outcome.link}`);
        }
      });
    });

  accounts
    .command('remove-person')
    .description(
      "Remove a person (or their pending invitations) from an account: their sessions of this account end at once; the account's last owner stays",
    )
    .requiredOption('--account <account-id>', 'acc_…')
    .requiredOption('--email <address>', "the person's address")
    .option('--json', 'print {"account_id","email","member_id","sessions_revoked","invitations_cancelled"}')
    .action(async (options: { account: string; email: string; json?: boolean }) => {
      const checked = checkEmailAddress(options.email);
      if (!checked.ok) throw new UsageError(`--email: ${checked.problem}`);
      await withServices(context, async ({ resources, knownDevices }) => {
        const account = await requireAccount(resources, options.account);
        const outcome = await removeFromAccount(resources.db, account.id, checked.email);
        if (outcome.kind === 'not-found') throw new UsageError(`${checked.email} is not a person of ${account.id}, nor invited to it`);
        if (outcome.kind === 'last-owner')
          throw new UsageError(`${checked.email} is the last owner of ${account.id} and stays: invite another owner first`);
        if (outcome.personId !== null) await knownDevices.forget(outcome.personId);
        if (options.json) {
          printJson({
            account_id: account.id,
            email: checked.email,
            member_id: outcome.memberId,
            sessions_revoked: outcome.sessionsRevoked,
            invitations_cancelled: outcome.invitationsCancelled,
          });
          return;
        }
        print(
          `Removed ${checked.email} from ${account.id} "${account.name}": ${outcome.sessionsRevoked} session(s) ended, ${outcome.invitationsCancelled} unused invitation(s) cancelled.`,
        );
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
      await withServices(context, async ({ resources, quota }) => {
        const account = await requireAccount(resources, id);
        const rows = await accountUsage(resources.db, quota, account.id, days);
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
