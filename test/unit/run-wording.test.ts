// Issue 49: what a person reads about a run: why it failed and what to do, which failures give
// the allowance back, steps it never reached, "cannot reach Google" apart from "Google changed",
// GB suggested for UK, and counts in the step summaries in the singular when they are one.
import { describe, expect, it } from 'vitest';
import { failureKind, failureTag, givesAllowanceBack, publicFailure, publicRunAdvice } from '../../src/domain/public-error.js';
import { AccessRefusedError, MalformedResponseError, RateLimitedError, RefusedError } from '../../src/providers/contract.js';
import { failureOf } from '../../src/providers/gateway.js';
import { marketProblem } from '../../src/domain/research/market.js';
import { shownStepStatus } from '../../src/research/run.repository.js';
import { STEPS } from '../../src/research/steps.js';
import { checkVerdict, unreachableCause, type CheckedKind } from '../../src/providers/google/check.js';

const failed = (error: string, startedBy = 'api') => ({ status: 'failed', error, account_id: 'acc_1', started_by: startedBy });

describe('failures and the allowance', () => {
  it("reads a failure's kind from our wording, never from the idea's words quoted in it (an outside review found refunds for ideas saying '429')", () => {
    // As the step runner stores a failure: its kind in front, decided from the message without the idea's words.
    const stored = (detail: string, idea: string) => `${failureTag(detail, idea)}step 3 (autocomplete_phrases) failed: ${detail}`;
    const idea = 'pizza rate limit 429';
    const notRecorded = 'replay has no recording of autocomplete for "rate limit 429"; recorded keywords: pizza, bagel.';
    expect(failureKind(stored(notRecorded, idea))).toBe('notRecorded');
    expect(givesAllowanceBack(failed(stored(notRecorded, idea)))).toBe(false);
    for (const sneaky of ['pizza proxy timed out', 'sorry page ECONNREFUSED', 'TLS certificate socket hang up']) {
      const detail = `replay has no recording of interest over time for "${sneaky}"`;
      expect(failureKind(stored(detail, sneaky)), sneaky).toBe('notRecorded');
      expect(givesAllowanceBack(failed(stored(detail, sneaky))), sneaky).toBe(false);
    }
    // Google's own refusals still read as such, the idea's words aside.
    const unreachable = 'proxy 127.0.0.1:9 refused CONNECT trends.google.com:443 (502) while fetching explore for "cat water fountains"';
    expect(failureKind(stored(unreachable, 'cat water fountains'))).toBe('unreachable');
    expect(givesAllowanceBack(failed(stored(unreachable, 'cat water fountains')))).toBe(true);
    // A tag is only ours when it names a kind: an idea cannot start the stored text with one.
    expect(failureKind('[rateLimited step 3 failed: no recording')).toBe('notRecorded');
  });

  it("gives back a run the provider could not answer (unreachable, proxy, timeout, blocked), never one of the idea's own failure", () => {
    expect(givesAllowanceBack(failed('step 7 (interest_30d) failed: getaddrinfo ENOTFOUND trends.google.com'))).toBe(true);
    expect(givesAllowanceBack(failed('step 7 (interest_30d) failed: proxy p1 refused CONNECT trends.google.com:443 (403)'))).toBe(true);
    expect(givesAllowanceBack(failed('step 7 (interest_30d) failed: Google Trends did not answer within 20000 ms (via direct)'))).toBe(
      true,
    );
    expect(givesAllowanceBack(failed('step 7 (interest_30d) failed: rate limited (429) on every route'))).toBe(true);
    expect(givesAllowanceBack(failed('step 7 (interest_30d) failed: replay has no recording of interest over time'))).toBe(false);
    expect(givesAllowanceBack(failed('step 4 (choose_primary) failed: widget TIMESERIES is malformed'))).toBe(false);
    expect(givesAllowanceBack(failed('step 9 failed: TypeError: x is undefined'))).toBe(false);
    // Only a run an account submitted spent the allowance.
    expect(givesAllowanceBack(failed('getaddrinfo ENOTFOUND trends.google.com', 'cli'))).toBe(false);
    expect(givesAllowanceBack({ ...failed('getaddrinfo ENOTFOUND x'), account_id: null })).toBe(false);
    expect(givesAllowanceBack({ ...failed('getaddrinfo ENOTFOUND x'), status: 'running' })).toBe(false);
  });

  it("reads the Trends API's PERMISSION_DENIED as a refusal of access, given back, never as an unexpected error of ours", () => {
    const detail =
      'the Google Trends API refused project "p" (PERMISSION_DENIED "The caller does not have permission") for interest over time of "rooftop garden kits": the project must be on the API\'s alpha allow-list (apply at developers.google.com/search/apis/trends) and have trends.googleapis.com enabled; set TRENDS_API_PROJECT to the allow-listed project';
    // As the step runner stores it: the kind its error's class decides (failureOf), the provider that threw it.
    const known = failureOf('trends-api', new AccessRefusedError(detail));
    const stored = `${failureTag(detail, 'Rooftop garden kits', known)}step 4 (choose_primary) failed: ${detail}`;
    expect(stored).toMatch(/^\[notAllowed:trends-api\] /);
    expect(failureKind(stored)).toBe('notAllowed');
    expect(publicFailure(stored)).toBe("the Google Trends API refused this service's access (not allowed: an operator must fix it)");
    expect(publicRunAdvice({ status: 'failed', error: stored }, true)).toMatch(/^The trends provider refuses this service's access/);
    expect(givesAllowanceBack(failed(stored))).toBe(true);
    // The same words from a refusal of the request are not a refusal of access: the class decides, not the text.
    expect(failureTag(detail, 'x', failureOf('trends-api', new RefusedError(detail)))).not.toMatch(/notAllowed/);
  });

  it('takes the kind from the error class, and names the provider that failed, whatever its message says', () => {
    const stored = (error: Error, provider: string) =>
      `${failureTag(error.message, 'kombucha', failureOf(provider, error))}step 7 (interest_30d) failed: ${error.message}`;
    // DataForSEO's changed shape matches none of Google's wording: its class says what it is.
    const changed = stored(
      new MalformedResponseError('DataForSEO answered explore in a shape its docs do not describe (/tasks: x)'),
      'dataforseo',
    );
    expect(failureKind(changed)).toBe('unrecognised');
    expect(publicFailure(changed)).toBe('DataForSEO answered in a form that is not recognised');
    const paced = stored(new RateLimitedError('DataForSEO said 40202 for explore'), 'dataforseo');
    expect(publicFailure(paced)).toBe('DataForSEO kept refusing the requests (rate limited)');
    // A failure that names no provider (stored before they did, or read back from the trends queue) is Google's.
    expect(publicFailure('[timeout] step 7 (interest_30d) failed: did not answer within 20000 ms')).toBe(
      'Google Trends did not answer in time',
    );
    expect(publicFailure('step 7 (interest_30d) failed: getaddrinfo ENOTFOUND trends.google.com')).toBe(
      'Google Trends could not be reached',
    );
  });

  it('says what to do, by the kind of failure, and whether the allowance came back; nothing for a run that needs nothing', () => {
    const unreachable = 'step 3 failed: connect ECONNREFUSED 127.0.0.1:9';
    expect(failureKind(unreachable)).toBe('unreachable');
    expect(publicRunAdvice({ status: 'failed', error: unreachable }, true)).toMatch(
      /^This service could not reach Google Trends; nothing is wrong with the idea\. .* This run's research allowance was given back\.$/,
    );
    expect(publicRunAdvice({ status: 'failed', error: 'no search phrase could be extracted from "the and"' }, false)).toMatch(
      /^Describe the idea in a few plain words/,
    );
    expect(publicRunAdvice({ status: 'waiting', error: null }, false)).toMatch(/^Nothing: the run goes on by itself/);
    expect(publicRunAdvice({ status: 'succeeded', error: null }, false)).toBeNull();
    expect(publicRunAdvice({ status: 'running', error: null }, false)).toBeNull();
  });
});

describe('steps of a run that ended', () => {
  it('read "not run" once the run failed or was cancelled; pending only while it may still run them', () => {
    expect(shownStepStatus({ status: 'failed', next_step: 3 }, 3, 'failed')).toBe('failed');
    expect(shownStepStatus({ status: 'failed', next_step: 3 }, 4, undefined)).toBe('not run');
    expect(shownStepStatus({ status: 'cancelled', next_step: 5 }, 5, undefined)).toBe('not run');
    expect(shownStepStatus({ status: 'running', next_step: 5 }, 5, undefined)).toBe('running');
    expect(shownStepStatus({ status: 'running', next_step: 5 }, 6, undefined)).toBe('pending');
    expect(shownStepStatus({ status: 'queued', next_step: 1 }, 1, undefined)).toBe('pending');
  });
});

describe('insights google check: cannot reach Google is not "Google changed"', () => {
  const kind = (k: Partial<CheckedKind> & Pick<CheckedKind, 'kind' | 'outcome'>): CheckedKind => ({
    ms: 0,
    neededBy: 'research',
    broken: true,
    detail: '',
    ...k,
  });
  it('no answer to any request is unreachable, with its cause (DNS, proxy, connection, time)', () => {
    const dns = {
      kinds: [
        kind({ kind: 'home_page', outcome: 'error', detail: 'getaddrinfo ENOTFOUND trends.google.com' }),
        kind({ kind: 'explore', outcome: 'not_asked' }),
        kind({ kind: 'trending_rss', outcome: 'error', neededBy: 'discovery', detail: 'getaddrinfo ENOTFOUND trends.google.com' }),
      ],
      broken: ['home_page', 'explore', 'trending_rss'] as CheckedKind['kind'][],
    };
    const verdict = checkVerdict(dns);
    expect(verdict.verdict).toBe('unreachable');
    expect(verdict.detail).toMatch(/^the name does not resolve \(DNS\)/);
    expect(unreachableCause('proxy p1 refused CONNECT trends.google.com:443 (502)')).toBe(
      'the egress proxy refused or failed the connection',
    );
    expect(unreachableCause('connect ECONNREFUSED 127.0.0.1:9')).toBe('the connection failed');
    expect(unreachableCause('Google Trends did not answer within 100 ms (via direct)')).toBe('no answer in time');
  });
  it('an answer Google gave in another shape is "changed"; a block is "blocked"; all fine is "ok"', () => {
    const changed = {
      kinds: [kind({ kind: 'home_page', outcome: 'served', broken: false }), kind({ kind: 'multiline', outcome: 'changed_shape' })],
      broken: ['multiline'] as CheckedKind['kind'][],
    };
    expect(checkVerdict(changed).verdict).toBe('changed');
    expect(checkVerdict({ ...changed, blocked: { kind: 'sorry_302' } }).verdict).toBe('blocked');
    expect(checkVerdict({ kinds: [kind({ kind: 'home_page', outcome: 'served', broken: false })], broken: [] }).verdict).toBe('ok');
  });
});

describe('markets', () => {
  it('refuses UK suggesting GB (and EL, GR), regions included; takes GB', () => {
    expect(marketProblem('UK')).toBe(
      '"UK" is not a country code: use GB for the United Kingdom (ISO 3166-1; UK is only reserved for it, as in the .uk domain)',
    );
    expect(marketProblem('UK-ENG')).toMatch(/use GB-ENG for the United Kingdom/);
    expect(marketProblem('EL')).toMatch(/use GR for Greece/);
    expect(marketProblem('GB')).toBeNull();
    expect(marketProblem('XX')).toBe('"XX" is not a country code (ISO 3166-1, such as US, DE or BR)');
  });
});

describe('step summaries count in words', () => {
  const step = (name: string) => STEPS.find((s) => s.name === name)!;
  it('say "1 topic of 1 type", not "1 topics of 1 types"', () => {
    const summary = (step('demand_breadth').summarize as (o: unknown) => string)({
      lists: { queries: 1, topics: 1, vocabulary: 1 },
      autocomplete: { topics: 1, types: ['Company'] },
      modifiers: { registering: 1, families: 1 },
    });
    expect(summary).toBe(
      'related lists: 1 query, 1 topic, 1 distinct word; autocomplete: 1 topic of 1 type; modifiers: 1 of 1 family searched',
    );
    const many = (step('demand_breadth').summarize as (o: unknown) => string)({
      lists: { queries: 2, topics: 0, vocabulary: 5 },
      autocomplete: { topics: 3, types: ['a', 'b'] },
      modifiers: { registering: 2, families: 4 },
    });
    expect(many).toBe(
      'related lists: 2 queries, 0 topics, 5 distinct words; autocomplete: 3 topics of 2 types; modifiers: 2 of 4 families searched',
    );
  });
});
