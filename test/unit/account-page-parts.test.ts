// The account pages' own small parts: the inline SVG lines (sparkline.ts) that must carry a title and nothing a page's policy would block.
import { describe, expect, it } from 'vitest';
import { multiline, sparkline } from '../../src/http/pages/sparkline.js';

describe('sparkline', () => {
  it('draws 0–100 bottom up on its box, titled with the first and last day, escaped', () => {
    const svg = String(
      sparkline(
        [
          { date: '2026-10-01', value: 0 },
          { date: '2026-10-02', value: 100 },
        ],
        'A <b> & "c"',
      ),
    );
    expect(svg).toContain('points="2,26 118,2"');
    expect(svg).toContain('<title>A &lt;b&gt; &amp; &quot;c&quot;: interest 0 on 2026-10-01, 100 on 2026-10-02 (2 days, 0–100)</title>');
    expect(svg).not.toMatch(/style=|<script/);
  });

  it('says so when there is no series, and keeps values outside 0–100 on the box', () => {
    expect(String(sparkline([], 'x'))).toBe('<span class="muted">no series</span>');
    expect(String(sparkline([{ date: '2026-10-01', value: 140 }], 'x'))).toContain('points="2,2"');
    const chart = String(multiline([{ name: 'a & b', points: [{ date: 'd', value: 50 }] }], 'caption'));
    expect(chart).toContain('<title>a &amp; b</title>');
    expect(chart).toContain('class="series series-0"');
  });
});
