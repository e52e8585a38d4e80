// The pure parts of the account pages: password hashes, form tokens and the usage chart.
import { SaxesParser } from 'saxes';
import { describe, expect, it } from 'vitest';
import { hashPassword, passwordProblem, verifyPassword } from '../../src/members/password.js';
import { csrfMatches, csrfTokenOf, newToken } from '../../src/members/tokens.js';
import { fillDays, renderUsageChart } from '../../src/domain/charts/usage-chart.js';

describe('passwords', () => {
  it('hash with scrypt, a salt of their own, and verify only the same password', async () => {
    const [a, b] = await Promise.all([hashPassword('correct horse battery'), hashPassword('correct horse battery')]);
    expect(a).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(a).not.toBe(b);
    expect(await verifyPassword('correct horse battery', a)).toBe(true);
    expect(await verifyPassword('correct horse batterY', a)).toBe(false);
    expect(await verifyPassword('correct horse battery', 'plain text')).toBe(false);
    expect(passwordProblem('short')).toMatch(/at least 12/);
    expect(passwordProblem('long enough now')).toBeNull();
  });
});

describe('form tokens', () => {
  it('match only the secret they were derived from, and never equal it', () => {
    const secret = newToken();
    const token = csrfTokenOf(secret);
    expect(token).not.toBe(secret);
    expect(csrfMatches(secret, token)).toBe(true);
    expect(csrfMatches(newToken(), token)).toBe(false);
    expect(csrfMatches(secret, undefined)).toBe(false);
    expect(csrfMatches(secret, [token])).toBe(false);
  });
});

describe('the usage chart', () => {
  it('draws one bar a day for 30 days (zeros included), the quota, and well-formed, titled SVG', () => {
    const days = fillDays(
      [
        { day: '2026-11-27', requests: 40 },
        { day: '2026-11-20', requests: 80 },
        { day: '2026-10-01', requests: 999 },
      ],
      '2026-11-27',
      30,
    );
    expect(days).toHaveLength(30);
    expect(days[0]!.day).toBe('2026-10-29');
    expect(days.at(-1)).toEqual({ day: '2026-11-27', requests: 40 });
    const svg = renderUsageChart(days, 100).toString();
    expect(svg.match(/<rect class="bar"/g)).toHaveLength(30);
    expect(svg).toContain('daily quota 100');
    expect(svg).toContain('<title id="usage-title">Requests per UTC day, 2026-10-29 to 2026-11-27</title>');
    expect(svg).toContain('120 requests over 30 days; the busiest day had 80.');
    const parser = new SaxesParser();
    parser.write(svg).close();
    // A quota far above the usage would flatten the bars: it is left out of the scale and the drawing.
    expect(renderUsageChart(days, 10_000).toString()).not.toContain('daily quota');
    expect(renderUsageChart(fillDays([], '2026-11-27', 30), null).toString()).toContain('0 requests over 30 days; the busiest day had 0.');
  });
});
