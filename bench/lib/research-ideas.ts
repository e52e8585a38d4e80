// Startup ideas the research benchmarks submit (bench:google, bench:providers): the same
// list for both, so their figures are of the same kind of run.
const IDEAS = [
  'Meal planning app for busy parents',
  'Standing desk rental for startups',
  'Sourdough starter subscription box',
  'AI bookkeeping for freelancers',
  'Dog walking marketplace for apartments',
  'Language exchange app for travellers',
  'Solar panel cleaning robots',
  'Home espresso machine repair',
  'Sleep tracking ring for athletes',
  'Budget travel planner for students',
  'Plant care reminders for beginners',
  'Remote hiring platform for designers',
  'Vintage furniture restoration service',
  'Kids coding club online',
  'Electric bike subscription',
  'Meal kit for diabetics',
];

/** `n` ideas from the list, numbered past its end so each is a run of its own. */
export function researchIdeas(n: number): string[] {
  return Array.from({ length: n }, (_, i) => IDEAS[i % IDEAS.length]! + (i >= IDEAS.length ? ` ${Math.floor(i / IDEAS.length) + 1}` : ''));
}

/** Probes until `ok`, every 200 ms, or throws naming the bench and what it waited for once `timeoutMs` has passed. */
export async function waitFor<T>(
  bench: string,
  probe: () => Promise<T>,
  ok: (v: T) => boolean,
  timeoutMs: number,
  what: string,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`${bench}: timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
