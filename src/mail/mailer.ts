// Mail out of the service: an invitation's one-time link goes to the address it was made for and nowhere else
// (issue 48: an address is held only by whoever reads its mail). nodemailer speaks SMTP for us (STARTTLS,
// smtps://, AUTH, dot-stuffing, header encoding): a protocol not to write by hand. SMTP_URL is the operator's.
import nodemailer from 'nodemailer';
import type { MailConfig } from '../config.js';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  /** Resolves once the SMTP server accepted the message; rejects (with the server's reason) when it did not. */
  send(message: MailMessage): Promise<void>;
  close(): void;
}

export interface MailSettings {
  /** smtp://[user:pass@]host:port (STARTTLS when offered) or smtps://…:465; credentials percent-encoded. */
  url: string;
  /** The From: header, e.g. "Startup Insights <insights@example.com>". */
  from: string;
}

/** A bound on every SMTP exchange: a page waits for the server's answer, never for long. */
const SMTP_TIMEOUT_MS = 10_000;
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

export function smtpMailer(settings: MailSettings): Mailer {
  const host = new URL(settings.url).hostname;
  const transport = nodemailer.createTransport({
    url: settings.url,
    // The link is a secret: plain smtp:// beyond this machine must upgrade with STARTTLS, or nothing is sent.
    requireTLS: !LOOPBACK.has(host),
    connectionTimeout: SMTP_TIMEOUT_MS,
    greetingTimeout: SMTP_TIMEOUT_MS,
    socketTimeout: SMTP_TIMEOUT_MS,
  });
  return {
    async send(message) {
      // Base64 keeps a long link on one unbroken line for any reader (quoted-printable would fold it).
      await transport.sendMail({
        from: settings.from,
        to: message.to,
        subject: message.subject,
        text: message.text,
        textEncoding: 'base64',
      });
    },
    close: () => transport.close(),
  };
}

/** The operator's mailer (SMTP_URL, MAIL_FROM), or undefined when none is configured. */
export function mailerFromConfig(mail: MailConfig): Mailer | undefined {
  return mail.smtpUrl === undefined ? undefined : smtpMailer({ url: mail.smtpUrl, from: mail.from });
}
