// What an API client is told about a research run that failed. The stored error
// is for operators (the logs, `insights runs show`): it may name an egress
// proxy's address and quote what Google sent. A client gets one of a few fixed
// sentences chosen by the kind of failure; nothing of the stored text is
// repeated, so whatever an upstream puts in its answer stays with operators.

export const PUBLIC_FAILURES = {
  rateLimited: 'Google Trends kept refusing the requests (rate limited)',
  timeout: 'Google Trends did not answer in time',
  unreachable: 'Google Trends could not be reached',
  unrecognised: 'Google Trends answered in a form that is not recognised',
  notRecorded: 'the recorded Google Trends answers have none for this request',
  noPhrase: 'no search phrase could be extracted from the idea',
  unexpected: 'an unexpected error',
} as const;

// The first that matches names the failure: read from our own messages' wording, never shown.
const KINDS: ReadonlyArray<readonly [RegExp, keyof typeof PUBLIC_FAILURES]> = [
  [/rate limit|"sorry" page|\b429\b/i, 'rateLimited'],
  [/did not answer within|timed? ?out|ETIMEDOUT/i, 'timeout'],
  [/\bproxy\b|ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|socket hang up|certificate|TLS/i, 'unreachable'],
  [/malformed|not its JSON|no widgets|widget|answered more than|explore answer has no/i, 'unrecognised'],
  [/no recording/i, 'notRecorded'],
  [/no search phrase could be extracted/i, 'noPhrase'],
];

/** The failure, as a client may read it. */
export function publicFailure(internal: string): string {
  for (const [pattern, kind] of KINDS) if (pattern.test(internal)) return PUBLIC_FAILURES[kind];
  return PUBLIC_FAILURES.unexpected;
}

/** A run's error for clients: which step failed, and how, in words of our own. */
export function publicRunError(internal: string | null, step: { number: number; name: string } | null): string | null {
  if (internal === null) return null;
  const what = publicFailure(internal);
  return step ? `step ${step.number} (${step.name}) failed: ${what}` : `the run failed: ${what}`;
}

/**
 * Why a run waits, for clients: the one reason research writes ("waiting for
 * Google Trends (<the request, in the idea's own words>)", or DataForSEO), else
 * just "waiting". What follows " — " is for the operator (a paid provider's
 * account problem) and is never shown.
 */
export function publicWaitingReason(internal: string | null): string | null {
  if (internal === null) return null;
  const shown = internal.split(' — ')[0]!;
  return /^waiting for (Google Trends|DataForSEO) \((interest|related|autocomplete|daily|trending|explore|monthly)/.test(shown)
    ? shown
    : 'waiting';
}
