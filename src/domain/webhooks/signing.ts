// Standard Webhooks signatures (https://www.standardwebhooks.com): receivers
// verify with any off-the-shelf library.
import { createHmac, randomBytes } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';

/** `whsec_` + base64 of 24 random bytes (the key is the decoded bytes). */
export function generateWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(24).toString('base64')}`;
}

export function isWebhookSecret(secret: string): boolean {
  return secret.startsWith(SECRET_PREFIX) && Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64').length >= 24;
}

/** `v1,<base64 HMAC-SHA256(key, "<id>.<timestamp>.<body>")>` */
export function sign(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;
}

/** During a rotation overlap both secrets sign; receivers accept any listed signature. */
export function signatureHeader(secrets: readonly string[], id: string, timestampSeconds: number, body: string): string {
  return secrets.map((s) => sign(s, id, timestampSeconds, body)).join(' ');
}
