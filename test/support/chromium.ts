// Headless Chromium for the tests that check what a person sees (the chart, the security
// headers, the report, the account pages): where it is, and the flags that keep it off the
// network (no updates, sync or background requests), written once.
import { existsSync } from 'node:fs';
import puppeteer, { type Browser } from 'puppeteer-core';

/** The Debian package's binary (CI installs it: .ci/run). */
export const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));

/** Flags for every headless run: no sandbox (root in CI), no GPU, and nothing that reaches the network by itself. */
export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
] as const;

/** A puppeteer-driven browser with those flags and bounded waits. */
export function launchChromium(): Promise<Browser> {
  if (!CHROMIUM) throw new Error('Chromium is not installed (/usr/bin/chromium): .ci/run installs the Debian package');
  return puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [...CHROMIUM_FLAGS],
    timeout: 30_000,
    protocolTimeout: 60_000,
  });
}
