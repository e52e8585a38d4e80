// A loopback SMTP server (smtp-server, nodemailer's own): it keeps every message it is given, and a test waits
// for the message to an address (the event it means), never on a clock. No TLS, no AUTH: loopback only.
import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
  subject: string;
  /** The text body, decoded (base64 or quoted-printable). */
  text: string;
}

export interface LoopbackSmtp {
  /** smtp://127.0.0.1:PORT, for SMTP_URL. */
  url: string;
  messages: ReceivedMail[];
  /** The next (or an already received, not yet taken) message to this address. */
  mailTo(address: string): Promise<ReceivedMail>;
  /** The one-time link in the next message to this address. */
  linkTo(address: string): Promise<string>;
  /** Refuse every message from now on (a mail server that says no). */
  refuse(refusing: boolean): void;
  close(): Promise<void>;
}

function decode(raw: string): { subject: string; text: string } {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const body = raw.slice(split + 4);
  const subject = /^Subject: (.*)$/im.exec(head)?.[1] ?? '';
  const encoding = /^Content-Transfer-Encoding: (\S+)/im.exec(head)?.[1]?.toLowerCase();
  const text =
    encoding === 'base64'
      ? Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8')
      : encoding === 'quoted-printable'
        ? body.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)))
        : body;
  return { subject, text };
}

export async function startLoopbackSmtp(): Promise<LoopbackSmtp> {
  const messages: ReceivedMail[] = [];
  const taken = new Set<ReceivedMail>();
  const waiting: Array<{ address: string; resolve: (mail: ReceivedMail) => void }> = [];
  let refusing = false;
  const deliver = (mail: ReceivedMail) => {
    messages.push(mail);
    for (const [i, w] of waiting.entries()) {
      if (mail.to.includes(w.address)) {
        waiting.splice(i, 1);
        taken.add(mail);
        w.resolve(mail);
        return;
      }
    }
  };
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (refusing) return callback(Object.assign(new Error('mailbox unavailable'), { responseCode: 550 }));
        const raw = Buffer.concat(chunks).toString('utf8');
        deliver({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
          raw,
          ...decode(raw),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  const mailTo = (address: string) => {
    const lower = address.toLowerCase();
    const ready = messages.find((m) => !taken.has(m) && m.to.includes(lower));
    if (ready) {
      taken.add(ready);
      return Promise.resolve(ready);
    }
    return new Promise<ReceivedMail>((resolve) => waiting.push({ address: lower, resolve }));
  };
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    mailTo,
    async linkTo(address) {
      const mail = await mailTo(address);
      const link = /(https?:\/\/\S+\/account\/invite\/[A-Za-z0-9_-]{43})/.exec(mail.text)?.[1];
      if (!link) throw new Error(`no invitation link in the mail to ${address}:\n${mail.text}`);
      return link;
    },
    refuse: (value) => {
      refusing = value;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
