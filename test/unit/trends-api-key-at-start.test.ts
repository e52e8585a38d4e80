// A missing or wrong service-account key is said when the process starts (config/providers.ts), not found by a research run that then
// waits for it without end (outside review of issue 51, 2026-11-29: a missing file, /etc/hostname and a folder all
// started cleanly). The message names the file, never its contents.
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

  it('accepts a service account key', () => {
    const key = file('sa.json', JSON.stringify({ type: 'service_account', client_email: 'a@p.iam.gserviceaccount.com', private_key: 'k' }));
    expect(withKey(key).providerSettings['trends-api'].credentialsFile).toBe(key);
  });

  it('reads no file when trends-api is not in TRENDS_PROVIDER', () => {
    expect(() => loadConfig({ GOOGLE_APPLICATION_CREDENTIALS: path.join(dir, 'missing.json') })).not.toThrow();
  });
});
