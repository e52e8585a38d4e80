// The account pages' own small parts: the verdict rule they show until the report's own lands (verdict.ts), and the
// inline SVG lines (sparkline.ts) that must carry a title and nothing a page's policy would block.
import { describe, expect, it } from 'vitest';
import { verdictFor } from '../../src/http/pages/verdict.js';
import { multiline, sparkline } from '../../src/http/pages/sparkline.js';

const all = (score: number | null) =>
  ({
    demand: score,
    momentum: score,
    durability: score,
    reach: score,
    breadth: score,
    pain: score,
    intent: score,
    whitespace: score,
  }) as const;

describe('verdictFor', () => {
  it('is promising at 0.6 and confidence 0.5, weak below 0.4, mixed between', () => {
    expect(verdictFor({ overall_score: 0.6, confidence: 0.5, dimension_scores: all(0.6) }).label).toBe('promising');
    expect(verdictFor({ overall_score: 0.59, confidence: 0.9, dimension_scores: all(0.59) }).label).toBe('mixed');
    // A high score on thin evidence is not promising.
    expect(verdictFor({ overall_score: 0.9, confidence: 0.49, dimension_scores: all(0.9) }).label).toBe('mixed');
    expect(verdictFor({ overall_score: 0.39, confidence: 0.9, dimension_scores: all(0.39) }).label).toBe('weak');
  });

  it('names the strongest dimension as the reason and the weakest (or thin evidence) as the risk', () => {
    const v = verdictFor({ overall_score: 0.7, confidence: 0.8, dimension_scores: { ...all(0.6), pain: 0.95, whitespace: 0.1 } });
    expect(v.reason).toBe('Pain is its strongest dimension (95 of 100)');
    expect(v.risk).toBe('whitespace is its weakest dimension (10 of 100)');
    const thin = verdictFor({ overall_score: 0.7, confidence: 0.3, dimension_scores: { ...all(0.7), reach: null, breadth: null } });
    expect(thin.risk).toBe('the evidence is thin (confidence 30 of 100, 2 of 8 dimensions unscored)');
    expect(verdictFor({ overall_score: 0, confidence: 0, dimension_scores: all(null) }).reason).toBe('No dimension could be scored');
  });
});

describe('sparkline', () => {
  it('draws 0–100 bottom up on its box, titled with the first and last day, escaped', () => {
    const svg = sparkline(
      [
        { date: '2026-10-01', value: 0 },
        { date: '2026-10-02', value: 100 },
      ],
      'A <b> & "c"',
    );
    expect(svg).toContain('points="2,26 118,2"');
    expect(svg).toContain('<title>A &lt;b&gt; &amp; &quot;c&quot;: interest 0 on 2026-10-01, 100 on 2026-10-02 (2 days, 0–100)</title>');
    expect(svg).not.toMatch(/style=|<script/);
  });

  it('says so when there is no series, and keeps values outside 0–100 on the box', () => {
    expect(sparkline([], 'x')).toBe('<span class="muted">no series</span>');
    expect(sparkline([{ date: '2026-10-01', value: 140 }], 'x')).toContain('points="2,2"');
    const chart = multiline([{ name: 'a & b', points: [{ date: 'd', value: 50 }] }], 'caption');
    expect(chart).toContain('<title>a &amp; b</title>');
    expect(chart).toContain('class="series series-0"');
  });
});
