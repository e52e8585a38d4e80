// Webhook secrets must be readable (we sign with them) but never stored in
// clear: AES-256-GCM with a key from WEBHOOK_ENCRYPTION_KEY, or on a single
// machine a key generated once under DATA_DIR (mode 600).
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.js';
import { open, seal } from '../domain/sealed.js';

export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('the webhook encryption key must be 32 bytes');
  }

  static fromConfig(config: Config): SecretBox {
    if (config.webhooks.encryptionKey) return new SecretBox(Buffer.from(config.webhooks.encryptionKey, 'base64'));
    const file = path.join(config.dataDir, 'webhook-encryption.key');
    if (!existsSync(file)) {
      mkdirSync(config.dataDir, { recursive: true });
      try {
        writeFileSync(file, randomBytes(32).toString('base64'), { mode: 0o600, flag: 'wx' });
      } catch (error) {
        // Another process (the web process and a worker starting together) wrote it first: use theirs.
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
    }
    return new SecretBox(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64'));
  }

  seal(plaintext: string): string {
    return `v1.${seal(this.key, plaintext).toString('base64')}`;
  }

  open(sealed: string): string {
    if (!sealed.startsWith('v1.')) throw new Error('unknown secret format');
    return open(this.key, Buffer.from(sealed.slice(3), 'base64'));
  }
}
