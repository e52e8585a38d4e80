// The addresses people are invited at (domain/email-address.ts): a look-alike of someone's address is refused, with the reason.
import { describe, expect, it } from 'vitest';
import { checkEmailAddress } from '../../src/domain/email-address.js';

describe('checkEmailAddress', () => {
  it('keeps a plain address, trimmed and lower case', () => {
    expect(checkEmailAddress('  Ada.Lovelace+x@Example.COM ')).toEqual({ ok: true, email: 'ada.lovelace+x@example.com' });
    expect(checkEmailAddress('dev@localhost')).toEqual({ ok: true, email: 'dev@localhost' });
    expect(checkEmailAddress('a@xn--bcher-kva.example')).toEqual({ ok: true, email: 'a@xn--bcher-kva.example' });
  });

  it.each([
    ['ada\u200b@example.com', /invisible or control character \(U\+200B at position 4\)/],
    ['\ufeffada@example.com', /invisible or control character \(U\+FEFF/],
    ['ada@exa\u200dmple.com', /invisible or control character \(U\+200D/],
    ['ada@example.com\u202e', /invisible or control character \(U\+202E/],
    ['ada\u0007@example.com', /invisible or control character \(U\+0007/],
    ['\uff41da@example.com', /U\+FF41 "ａ" is "a"; full-width/],
    ['ada@ex\uff41mple.com', /U\+FF41/],
    ['ada\u00a0x@example.com', /U\+00A0/],
    ['\ufb01le@example.com', /U\+FB01 "ﬁ" is "fi"/],
    ['ad\u0430@example.com', /outside ASCII \(U\+0430 "а"\)/],
    ['josé@example.com', /outside ASCII \(U\+00E9/],
    ['ada@bücher.example', /outside ASCII/],
  ])('refuses %j', (address, reason) => {
    const checked = checkEmailAddress(address);
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.problem).toMatch(reason);
  });

  it.each([
    '',
    'ada',
    '@example.com',
    'ada@',
    'a b@example.com',
    'ada@exa mple.com',
    'ada@-example.com',
    'a..b@example.com',
    `${'a'.repeat(65)}@example.com`,
  ])('refuses the malformed %j', (address) =>
    expect(checkEmailAddress(address)).toEqual({ ok: false, problem: 'Give an email address such as ada@example.com.' }),
  );
});
