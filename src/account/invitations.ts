// Inviting a person into an account: the CLI (`insights accounts invite`), the
// owners' People page and `npm start`'s development owner all come here. The link
// is printed (or shown) once; no mail is sent (SMTP is not part of this service yet).
import type { Db } from '../db/connection.js';
import type { MemberRole } from '../db/database.js';
import { inviteMember, type InviteOutcome } from './member.repository.js';
import { hashToken, newToken } from './tokens.js';

export const INVITATION_LIFETIME_MS = 72 * 3_600_000;
const EMAIL = /^[^\s@<>"']{1,64}@[^\s@<>"']{1,190}$/;

/** The address as stored (trimmed, lower case), or null when it is not one. */
export function normaliseEmail(raw: string): string | null {
  const email = raw.trim().toLowerCase();
  return EMAIL.test(email) ? email : null;
}

export interface CreatedInvitation {
  kind: 'invited';
  memberId: string;
  email: string;
  role: MemberRole;
  /** The only time the link exists in clear. */
  link: string;
  expiresAt: Date;
  created: boolean;
}

export type InvitationOutcome = CreatedInvitation | Exclude<InviteOutcome, { kind: 'invited' }>;

export const invitationLink = (baseUrl: string, token: string): string => `${baseUrl.replace(/\/$/, '')}/account/invite/${token}`;

/** A new one-time link, or why none was made (see InviteOutcome). `reset`: the operators' explicit password reset of a member. */
export async function createInvitation(
  db: Db,
  input: { accountId: string; email: string; role: MemberRole; reset?: boolean },
  baseUrl: string,
  now = new Date(),
): Promise<InvitationOutcome> {
  const token = newToken();
  const expiresAt = new Date(now.getTime() + INVITATION_LIFETIME_MS);
  const outcome = await inviteMember(db, { ...input, tokenHash: hashToken(token), expiresAt });
  if (outcome.kind !== 'invited') return outcome;
  return {
    kind: 'invited',
    memberId: outcome.memberId,
    email: input.email,
    role: outcome.role,
    link: invitationLink(baseUrl, token),
    expiresAt,
    created: outcome.created,
  };
}
