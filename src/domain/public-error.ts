// What an API client is told about a research run that failed. The stored error
// is for operators (the logs, `insights runs show`): it may name an egress
// proxy's address and quote what the provider sent. A client gets one of a few fixed
// sentences chosen by the kind of failure, naming the provider that failed by its
// profile's `publicName`; nothing of the stored text is repeated, so whatever an
// upstream puts in its answer stays with operators.
import { findProfile, PROVIDERS, UNNAMED_PROVIDER } from '../providers/registry.js';

/** Each kind's sentence, about the provider that failed (its profile's publicName: "Google Trends", "DataForSEO"). */
export const PUBLIC_FAILURES = {
  rateLimited: (provider: string) => `${provider} kept refusing the requests (rate limited)`,
  timeout: (provider: string) => `${provider} did not answer in time`,
  unreachable: (provider: string) => `${provider} could not be reached`,
  unrecognised: (provider: string) => `${provider} answered in a form that is not recognised`,
  // Only the replay provider has recordings: its own words.
  notRecorded: () => 'the recorded Google Trends answers have none for this request',
  noPhrase: () => 'no search phrase could be extracted from the idea',
  notAllowed: (provider: string) => `${provider} refused this service's access (not allowed: an operator must fix it)`,
  unexpected: () => 'an unexpected error',
} as const;

// For failures whose error class does not decide their kind (the provider's errors, classified where they
// are thrown: providers/gateway.ts, failureOf): the text of a trends job's failure read back from the queue,
// a provider outage (a timeout or an unreachable host, told apart only by its wording), an error of ours.
// The first that matches names the failure: read from our own messages' wording, never shown.
const KINDS: ReadonlyArray<readonly [RegExp, FailureKind]> = [
  [/rate limit|"sorry" page|\b429\b/i, 'rateLimited'],
  [/did not answer within|timed? ?out|ETIMEDOUT/i, 'timeout'],
  [
    /cannot reach|\bproxy\b|ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|socket hang up|certificate|TLS/i,
    'unreachable',
  ],
  [/malformed|not its JSON|no widgets|widget|answered more than|explore answer has no/i, 'unrecognised'],
  [/no recording/i, 'notRecorded'],
  [/no search phrase could be extracted/i, 'noPhrase'],
];

export type FailureKind = keyof typeof PUBLIC_FAILURES;

const KIND_NAMES = Object.keys(PUBLIC_FAILURES) as FailureKind[];
/** A stored error that starts with its kind, and the provider that failed: `[unreachable:google] step 3 (…) failed: …` (failureTag). */
const TAGGED = new RegExp(`^\\[(${KIND_NAMES.join('|')})(?::([a-z0-9-]+))?\\] `);

/** What the code that caught a failure knows of it from its error's class: its kind when the class decides it, and the provider that threw it. */
export interface KnownFailure {
  kind?: FailureKind;
  provider?: string;
}

function kindOfText(text: string): FailureKind {
  for (const [pattern, kind] of KINDS) if (pattern.test(text)) return kind;
  return 'unexpected';
}

/**
 * The tag a failure's stored text starts with (`[unreachable:google] `): its kind, decided when it
 * happened, and the provider that failed when known. The kind is the error class's when that decides
 * it (`known`); otherwise it is read from the wording. Our messages quote the request ("no recording
 * of autocomplete for \"rate limit\""), so the idea's own words are taken out before the wording is
 * read: an idea that says "429" or "proxy timed out" cannot make its failure look like Google's,
 * which would give its allowance back and tell every account Google is blocked. Where a real
 * failure's wording shares a word with the idea, the kind errs towards "unexpected" (charged, never
 * refunded).
 */
export function failureTag(message: string, idea: string, known: KnownFailure = {}): string {
  const words = [...new Set(idea.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])];
  let text = message;
  for (const word of words) text = text.replace(new RegExp(`(?<![\\p{L}\\p{N}])${word}(?![\\p{L}\\p{N}])`, 'giu'), ' ');
  return `[${known.kind ?? kindOfText(text)}${known.provider ? `:${known.provider}` : ''}] `;
}

/** The kind of a failure: its tag (failureTag), or for an untagged one (stored before 2026-11-28) read from its text. */
export function failureKind(internal: string): FailureKind {
  const tagged = TAGGED.exec(internal);
  return tagged ? (tagged[1] as FailureKind) : kindOfText(internal);
}

/** The failure, as a client may read it: its kind's sentence about the provider that failed. */
export function publicFailure(internal: string): string {
  // A failure that names no provider is Google's: stored before failures named theirs, or read back from the trends queue.
  const named = TAGGED.exec(internal)?.[2];
  const provider = (named ? findProfile(named) : undefined) ?? UNNAMED_PROVIDER;
  return PUBLIC_FAILURES[failureKind(internal)](provider.publicName);
}

/**
 * Failures of the provider, not of the idea: Google (or the proxy in front of
 * it) could not be reached, or refused the requests. A run that ends so gave
 * its submitter nothing through no fault of theirs, so it gives its run of the
 * allowance back (run-outcome.ts). Every other failure still costs: the idea
 * could not be researched as asked, and asking again the same way fails again.
 */
export const REFUNDED_FAILURES: ReadonlySet<FailureKind> = new Set<FailureKind>(['rateLimited', 'timeout', 'unreachable', 'notAllowed']);

/** What the submitter can do about a failure of this kind, in a sentence. */
export const FAILURE_ADVICE: Readonly<Record<FailureKind, string>> = {
  rateLimited:
    "Google is refusing this service's requests for now; nothing is wrong with the idea. Submit it again later (an hour or more).",
  timeout: 'Google Trends was too slow to answer; nothing is wrong with the idea. Submit it again later.',
  unreachable: 'This service could not reach Google Trends; nothing is wrong with the idea. Submit it again later.',
  unrecognised:
    'Google answered in a form this service does not read yet; the failure is logged for the operator. Submitting again will likely fail the same way until it is fixed.',
  notRecorded:
    'This service answers from recorded Google Trends data, and none was recorded for this idea and market: submit one of the recorded phrases and markets instead.',
  noPhrase:
    'Describe the idea in a few plain words naming the product or the need (e.g. "meal planner for busy parents") and submit it again.',
  notAllowed:
    "The trends provider refuses this service's access (its project is not allowed); nothing is wrong with the idea. The operator is told by the logs; submit it again once they have fixed the access.",
  unexpected: 'The error is on our side and is logged; submit the idea again, and if it fails again, tell the operator the run id.',
};

/** What to do while a run waits, for clients. */
const WAITING_ADVICE = 'Nothing: the run goes on by itself as soon as the provider answers, and waiting costs nothing more.';

/**
 * Whether a failed run gives its run of the allowance back: one an account submitted (API or
 * pages: started_by "api", the only runs that spend the allowance) that failed through the provider.
 */
export function givesAllowanceBack(run: { status: string; error: string | null; account_id: string | null; started_by: string }): boolean {
  return (
    run.status === 'failed' &&
    run.error !== null &&
    run.account_id !== null &&
    run.started_by === 'api' &&
    REFUNDED_FAILURES.has(failureKind(run.error))
  );
}

/**
 * What to do about a run, for clients: about its failure (and whether its run of the allowance
 * was given back), or while it waits; null for a run that needs nothing of them.
 */
export function publicRunAdvice(run: { status: string; error: string | null }, refunded: boolean): string | null {
  if (run.status === 'waiting') return WAITING_ADVICE;
  if (run.status !== 'failed' || run.error === null) return null;
  const advice = FAILURE_ADVICE[failureKind(run.error)];
  return refunded ? `${advice} This run's research allowance was given back.` : advice;
}

/** A run's error for clients: which step failed, and how, in words of our own. */
export function publicRunError(internal: string | null, step: { number: number; name: string } | null): string | null {
  if (internal === null) return null;
  const what = publicFailure(internal);
  return step ? `step ${step.number} (${step.name}) failed: ${what}` : `the run failed: ${what}`;
}

/** A waiting reason research writes: "waiting for <a provider's publicName> (<the request>…". */
const WAITED_FOR = new RegExp(
  `^waiting for (${PROVIDERS.map((p) => p.publicName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')}) \\((interest|related|autocomplete|daily|trending|explore|monthly)`,
);

/**
 * Why a run waits, for clients: the one reason research writes ("waiting for
 * Google Trends (<the request, in the idea's own words>)", or DataForSEO, or the Google Trends API), else
 * just "waiting". What follows " — " is for the operator (a paid provider's
 * account problem) and is never shown.
 */
export function publicWaitingReason(internal: string | null): string | null {
  if (internal === null) return null;
  const shown = internal.split(' — ')[0]!;
  return WAITED_FOR.test(shown) ? shown : 'waiting';
}
