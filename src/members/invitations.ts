// Inviting a person into an account (issue 48: an address is held only by whoever reads its mail). The link is
// mailed to the address and shown to nobody else: not to the owner who invites from the People page, not in the
// CLI's output. Only an operator without SMTP may ask for it (`insights accounts invite --print-link`), and
// `npm start` prints its own development owner's link, as it prints the development key.
import type { Db } from '../db/connection.js';
import type { MemberRole } from '../db/database.js';
import { checkEmailAddress } from '../domain/email-address.js';
import type { Mailer } from '../mail/mailer.js';
import { dropInvitation, inviteToAccount, type InvitationCaps, type InviteOutcome } from './member.repository.js';
import { hashToken, newToken } from './tokens.js';

export const INVITATION_LIFETIME_MS = 72 * 3_600_000;
/** What owners may send from the People page (docs/account-pages.md, "Limits"); operators are not held by them. */
export const INVITATION_CAPS: InvitationCaps = Object.freeze({ perDay: 20, pending: 50 });

/** The address as stored (trimmed, lower case), or null when it is not one we accept (domain/email-address.ts says why). */
export function normaliseEmail(raw: string): string | null {
  const checked = checkEmailAddress(raw);
  return checked.ok ? checked.email : null;
}

export const invitationLink = (baseUrl: string, token: string): string => `${baseUrl.replace(/\/$/, '')}/account/invite/${token}`;

/** How the link leaves: mailed to the address, or handed to the operator who made it (CLI --print-link, npm start). */
export type Delivery = { mailer: Mailer } | { printTo: 'operator' };

export type InvitationOutcome =
  | { kind: 'mailed'; invitationId: string; role: MemberRole; reset: boolean; expiresAt: Date }
  | { kind: 'printed'; invitationId: string; role: MemberRole; reset: boolean; expiresAt: Date; link: string }
  /** The mail server refused or could not be reached: the invitation was dropped. */
  | { kind: 'not-sent'; reason: string }
  | Exclude<InviteOutcome, { kind: 'invited' }>;

export interface InvitationInput {
  accountId: string;
  accountName: string;
  email: string;
  role: MemberRole;
  /** The member inviting from the People page (capped); null: an operator. */
  invitedBy: { memberId: string; email: string } | null;
  /** The operators' explicit password reset of a member. */
  reset?: boolean;
}

export async function createInvitation(
  db: Db,
  input: InvitationInput,
  baseUrl: string,
  delivery: Delivery,
  now = new Date(),
): Promise<InvitationOutcome> {
  const token = newToken();
  const expiresAt = new Date(now.getTime() + INVITATION_LIFETIME_MS);
  const outcome = await inviteToAccount(db, {
    accountId: input.accountId,
    email: input.email,
    role: input.role,
    tokenHash: hashToken(token),
    expiresAt,
    invitedBy: input.invitedBy?.memberId ?? null,
    ...(input.reset ? { reset: true } : {}),
    ...(input.invitedBy ? { caps: INVITATION_CAPS } : {}),
  });
  if (outcome.kind !== 'invited') return outcome;
  const link = invitationLink(baseUrl, token);
  const made = { invitationId: outcome.invitationId, role: outcome.role, reset: outcome.reset, expiresAt };
  if ('printTo' in delivery) return { kind: 'printed', ...made, link };
  try {
    await delivery.mailer.send({
      to: input.email,
      ...invitationMail({ ...input, role: outcome.role, reset: outcome.reset, link, expiresAt }),
    });
  } catch (error) {
    await dropInvitation(db, outcome.invitationId);
    return { kind: 'not-sent', reason: error instanceof Error ? error.message : String(error) };
  }
  return { kind: 'mailed', ...made };
}

/** The mail: who asks, for which account, the link and until when; what to do when it was not expected. */
export function invitationMail(input: {
  accountName: string;
  role: MemberRole;
  invitedBy: { email: string } | null;
  reset: boolean;
  link: string;
  expiresAt: Date;
}): { subject: string; text: string } {
  const until = input.expiresAt.toISOString().replace('T', ' ').slice(0, 16) + ' UTC';
  if (input.reset) {
    return {
      subject: `Set a new password for ${input.accountName} on Startup Insights`,
      text: `The operators of Startup Insights made you a link to set a new password (it ends every session you have):\n\n${input.link}\n\nIt works once, until ${until}. If you did not ask for it, ignore this mail.\n`,
    };
  }
  const who = input.invitedBy
    ? `${input.invitedBy.email}, an owner of the account "${input.accountName}",`
    : `The operators of Startup Insights`;
  return {
    subject: `You are invited to ${input.accountName} on Startup Insights`,
    text: `${who} invited you to join "${input.accountName}" as ${input.role === 'owner' ? 'an owner' : 'a member'}.\n\nOpen this link to accept (and, if you have no password with us yet, to set one):\n\n${input.link}\n\nIt works once, until ${until}. If you did not expect it, ignore this mail: nothing happens unless the link is used.\n`,
  };
}
