// A missing or wrong service-account key is said when the process starts (config/providers.ts), not found by a research run that then
// waits for it without end (outside review of issue 51, 2026-11-29: a missing file, /etc/hostname and a folder all
// started cleanly). The message names the file, never its contents.
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';

const dir = mkdtempSync(path.join(tmpdir(), 'key-at-start-'));
const file = (name: string, text: string) => {
  const p = path.join(dir, name);
  writeFileSync(p, text);
  return p;
};
const withKey = (keyFile: string) => loadConfig({ TRENDS_PROVIDER: 'trends-api', GOOGLE_APPLICATION_CREDENTIALS: keyFile });

describe('GOOGLE_APPLICATION_CREDENTIALS at start', () => {
  it('refuses a file that is missing, a folder, not JSON, or not a service account key', () => {
    expect(() => withKey(path.join(dir, 'missing.json'))).toThrow(/could not be read as a service account's JSON key: ENOENT/);
    expect(() => withKey(dir)).toThrow(/could not be read as a service account's JSON key: EISDIR/);
    expect(() => withKey(file('hostname', 'box-1\n'))).toThrow(/not JSON/);
    expect(() => withKey(file('user.json', JSON.stringify({ type: 'authorized_user', client_id: 'x' })))).toThrow(
      /is not a service account's JSON key/,
    );
  });

  it('never repeats what the file holds', () => {
    const secret = file('almost.json', JSON.stringify({ type: 'service_account', private_key: 'PLANTED-SECRET' }));
    expect(() => withKey(secret)).toThrow(/is not a service account's JSON key/);
    try {
      withKey(secret);
    } catch (error) {
      expect((error as Error).message).not.toContain('PLANTED-SECRET');
    }
  });

  const pem = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const serviceAccount = (extra: Record<string, unknown>) =>
    JSON.stringify({ type: 'service_account', client_email: 'a@p.iam.gserviceaccount.com', private_key: pem, ...extra });

  it('accepts a service account key that can sign and names its project', () => {
    const key = file('sa.json', serviceAccount({ project_id: 'trends-allowed' }));
    expect(withKey(key).providerSettings['trends-api'].credentialsFile).toBe(key);
  });

  it('refuses a private key that cannot sign (research would otherwise wait on it without end), never echoing it', () => {
    const key = file(
      'bad-pem.json',
      serviceAccount({ project_id: 'p', private_key: '-----BEGIN PRIVATE KEY-----\nSECRETMARK\n-----END PRIVATE KEY-----\n' }),
    );
    expect(() => withKey(key)).toThrow(/holds a private_key that is not a PEM private key/);
    try {
      withKey(key);
    } catch (error) {
      expect((error as Error).message).not.toContain('SECRETMARK');
    }
  });

  it('refuses a key that names no project when TRENDS_API_PROJECT is not set, and takes TRENDS_API_PROJECT for it', () => {
    const key = file('no-project.json', serviceAccount({}));
    expect(() => withKey(key)).toThrow(/no project to send as X-Goog-User-Project: set TRENDS_API_PROJECT/);
    expect(() =>
      loadConfig({ TRENDS_PROVIDER: 'trends-api', GOOGLE_APPLICATION_CREDENTIALS: key, TRENDS_API_PROJECT: 'trends-allowed' }),
    ).not.toThrow();
  });

  it('reads no file when trends-api is not in TRENDS_PROVIDER', () => {
    expect(() => loadConfig({ GOOGLE_APPLICATION_CREDENTIALS: path.join(dir, 'missing.json') })).not.toThrow();
  });
});
