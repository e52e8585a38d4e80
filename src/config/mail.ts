// The mail section: where invitations are sent from.
import { EnvReader } from './env-reader.js';
import type { WebConfig } from './web.js';

export interface MailConfig {
  /** SMTP_URL: where invitations are mailed (smtp://host:port, smtps://host:465, credentials in the URL); unset: no mail, and owners cannot invite. */
  readonly smtpUrl: string | undefined;
  /** MAIL_FROM: the From: of invitations. */
  readonly from: string;
}

export function loadMailSection(read: EnvReader, web: WebConfig): MailConfig {
  const smtpUrl = read.url('SMTP_URL', ['smtp:', 'smtps:']);
  let host = 'localhost';
  try {
    host = new URL(web.publicBaseUrl).hostname.replace(/^\[|\]$/g, '');
  } catch {
    // PUBLIC_BASE_URL's own problem is reported already.
  }
  const from = read.text('MAIL_FROM') ?? `Startup Insights <no-reply@${host}>`;
  read.check(
    !/[\r\n]/.test(from) && /^[^<>@]*<[^<>@\s]+@[^<>@\s]+>$|^[^<>@\s]+@[^<>@\s]+$/.test(from),
    `MAIL_FROM must be an address, or a name and <address>, e.g. "Startup Insights <insights@example.com>" (got "${from.slice(0, 80)}")`,
  );
  return Object.freeze({ smtpUrl, from });
}
