// What the worker does with every exchange with Google: a per-kind outcome
// counter in /metrics, and a warning in the log when a kind's share of empty,
// no-data or changed answers jumps (domain/trends/google/answer-shift.ts says what
// "jumps" means).
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { registry } from '../../src/observability/metrics.js';
import { watchGoogleAnswers } from '../../src/runtime/google-answers.js';
import type { ExchangeOutcome } from '../../src/providers/google/client.js';

describe("watching Google's answers", () => {
  it("counts each exchange per kind and outcome, and warns once when a kind's share of answers without data jumps", async () => {
    const lines: Array<Record<string, unknown>> = [];
    const logs = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    const observe = watchGoogleAnswers(pino({ level: 'warn' }, logs));
    const report = (kind: 'multiline' | 'relatedsearches', outcome: ExchangeOutcome) =>
      observe({ kind, family: 'widgetdata', outcome, ms: 120, route: 'proxy-a:3128' });
    for (let i = 0; i < 60; i += 1) report('multiline', 'served');
    for (let i = 0; i < 60; i += 1) report('relatedsearches', 'empty'); // empty all along (today's related lists): no jump
    expect(lines).toEqual([]);
    for (let i = 0; i < 25; i += 1) report('multiline', i % 5 === 0 ? 'served' : 'no_data');
    const metrics = await registry.metrics();
    expect(metrics).toMatch(/google_trends_answers_total\{kind="multiline",outcome="served"\} 65/);
    expect(metrics).toMatch(/google_trends_answers_total\{kind="multiline",outcome="no_data"\} 20/);
    expect(metrics).toMatch(/google_trends_answers_total\{kind="relatedsearches",outcome="empty"\} 60/);
    expect(metrics).toMatch(/google_trends_answer_seconds_count\{kind="multiline"\} 85/);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 40, kind: 'multiline', recent: 20, baselineShare: 0 });
    expect(String(lines[0]!.msg)).toMatch(
      /^Google's answers to multiline changed: \d+ % of the last 20 were empty, without data or in an unknown shape, against 0 % of the \d+ before\..*insights google check/,
    );
  });
});
