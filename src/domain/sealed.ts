// AES-256-GCM sealing, written once for the two things the service seals: webhook secrets
// (SecretBox, a key from the configuration) and what waits in Redis for an account page's next
// view (the flash, a key derived from the session's cookie).
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** The nonce, the full tag and the ciphertext, in that order. */
export function seal(key: Buffer, plaintext: string): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]);
}

/** What seal sealed with this key; throws when it was sealed with another key, tampered with or cut. */
export function open(key: Buffer, sealed: Buffer): string {
  if (sealed.length < IV_BYTES + TAG_BYTES) throw new Error('too short to hold its nonce and a full authentication tag');
  // The tag length is fixed: GCM would otherwise accept a tag cut to 4 bytes, which a forger can guess.
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
  decipher.setAuthTag(sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return Buffer.concat([decipher.update(sealed.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
}
