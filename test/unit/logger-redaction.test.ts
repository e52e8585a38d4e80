// Secrets never reach a log line, whatever object carries them: API keys and webhook secrets, and Google's cookies
// and the Trends API's credentials (outside review of issue 51 asked for these as a safeguard; none is logged today).
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';

function logged(fields: Record<string, unknown>): string {
  let out = '';
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      out += chunk.toString();
      done();
    },
  });
  createLogger('info', sink).info(fields, 'a line');
  return out;
}

describe('log redaction', () => {
  it.each([
    ['apiKey', { apiKey: 'SECRET-1' }],
    ['a nested secret', { subscription: { secret: 'SECRET-1' } }],
    ['a cookie', { cookie: 'NID=SECRET-1' }],
    ['a consent cookie', { route: { consentCookie: 'SOCS=SECRET-1' } }],
    ["a service account's private key", { key: { private_key: 'SECRET-1' } }],
    ['an access token', { token: { access_token: 'SECRET-1' } }],
  ])('hides %s', (_what, fields) => {
    const line = logged(fields);
    expect(line).toContain('a line');
    expect(line).not.toContain('SECRET-1');
  });
});
