// Which purpose the HTTPS exchanges of a trends job serve (research, or the
// background refresh and discovery), so /metrics can count Google's requests
// per research run and per refreshed insight. The trends job knows it from its
// priority (TRENDS_PRIORITY); the exchanges are made deep inside the Google
// client, which should not have to carry it: the job runs them in this context.
import { AsyncLocalStorage } from 'node:async_hooks';

export type SpendPurpose = 'research' | 'background' | 'other';

const current = new AsyncLocalStorage<SpendPurpose>();

/** Runs `work` with its Google exchanges counted under `purpose`. */
export const spendingFor = <T>(purpose: SpendPurpose, work: () => Promise<T>): Promise<T> => current.run(purpose, work);

/** The purpose of the exchange being made now; `other` outside a trends job (`insights google check`, a bench's own probe). */
export const currentSpendPurpose = (): SpendPurpose => current.getStore() ?? 'other';
