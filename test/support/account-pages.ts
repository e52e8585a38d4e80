// A browser stand-in for the account pages over app.inject(): a cookie jar, the
// Origin a same-origin form carries, and the form token read from the page.
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { Writable } from 'node:stream';
import type { Logger } from 'pino';
import { loadConfig, NO_ENV_FILE } from '../../src/config.js';
import { buildProgramFor } from '../../src/cli/program.js';
import type { CliContext } from '../../src/cli/context.js';
import { createLogger } from '../../src/logger.js';

export const HOST = 'pages.test';
export const ORIGIN = `http://${HOST}`;

export const csrfOf = (html: string): string => {
  const match = /name="csrf" value="([^"]+)"/.exec(html);
  if (!match) throw new Error(`no form token on the page:\n${html.slice(0, 2_000)}`);
  return match[1]!;
};

export class PageAgent {
  readonly cookies = new Map<string, string>();

  constructor(
    private readonly app: FastifyInstance,
    private readonly base: { host?: string; origin?: string; remoteAddress?: string; headers?: Record<string, string> } = {},
  ) {}

  cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  private store(res: LightMyRequestResponse): LightMyRequestResponse {
    for (const cookie of res.cookies as Array<{ name: string; value: string; maxAge?: number }>) {
      if (cookie.maxAge === 0) this.cookies.delete(cookie.name);
      else this.cookies.set(cookie.name, cookie.value);
    }
    return res;
  }

  private headers(extra: Record<string, string | undefined> = {}): Record<string, string> {
    const headers: Record<string, string> = { host: this.base.host ?? HOST, ...this.base.headers };
    if (this.cookies.size > 0) headers.cookie = this.cookieHeader();
    for (const [name, value] of Object.entries(extra)) {
      if (value === undefined) delete headers[name];
      else headers[name] = value;
    }
    return headers;
  }

  async get(url: string, extra: Record<string, string | undefined> = {}): Promise<LightMyRequestResponse> {
    return this.store(
      await this.app.inject({
        method: 'GET',
        url,
        headers: this.headers(extra),
        ...(this.base.remoteAddress ? { remoteAddress: this.base.remoteAddress } : {}),
      }),
    );
  }

  /** A form post as a browser sends it from a page of this origin (override `origin` to play another site). */
  async post(
    url: string,
    form: Record<string, string | string[]>,
    extra: Record<string, string | undefined> = {},
  ): Promise<LightMyRequestResponse> {
    const body = new URLSearchParams();
    for (const [name, value] of Object.entries(form)) for (const v of [value].flat()) body.append(name, v);
    return this.store(
      await this.app.inject({
        method: 'POST',
        url,
        payload: body.toString(),
        headers: this.headers({ 'content-type': 'application/x-www-form-urlencoded', origin: this.base.origin ?? ORIGIN, ...extra }),
        ...(this.base.remoteAddress ? { remoteAddress: this.base.remoteAddress } : {}),
      }),
    );
  }

  /**
   * As post, then, as a browser does, follows a 303 to a page of the account (POST/Redirect/GET): the page that
   * shows what the form did, with the POST's answer as `posted`.
   */
  async submit(
    url: string,
    form: Record<string, string | string[]>,
    extra: Record<string, string | undefined> = {},
  ): Promise<LightMyRequestResponse & { posted: LightMyRequestResponse }> {
    const posted = await this.post(url, form, extra);
    const location = posted.headers.location;
    if (posted.statusCode !== 303 || typeof location !== 'string' || location.startsWith('/account/sign-in'))
      return Object.assign(posted, { posted });
    return Object.assign(await this.get(location), { posted });
  }

  /** Opens an invitation link and sets the password. */
  async acceptInvitation(link: string, password: string): Promise<LightMyRequestResponse> {
    const path = new URL(link).pathname;
    const page = await this.get(path);
    if (page.statusCode !== 200) throw new Error(`the invitation page answered ${page.statusCode}: ${page.body.slice(0, 300)}`);
    return this.post(path, { csrf: csrfOf(page.body), password, confirm: password });
  }

  async signIn(email: string, password: string): Promise<LightMyRequestResponse> {
    const page = await this.get('/account/sign-in');
    return this.post('/account/sign-in', { csrf: csrfOf(page.body), email, password });
  }
}

/** Runs `insights <args>` in this process (the command's own code path, not a built copy), returning what it printed. */
export async function runCliInProcess(args: string[], env: Record<string, string>): Promise<string> {
  const config = loadConfig({ ENV_FILE: NO_ENV_FILE, LOG_LEVEL: 'warn', ...env });
  const context = (): CliContext => ({ config, logger: createLogger('warn') });
  const program = await buildProgramFor(args, context);
  const chunks: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string | Uint8Array) => {
    chunks.push(String(chunk));
    return true;
  }) as typeof process.stdout.write;
  try {
    await program.parseAsync(args, { from: 'user' });
  } finally {
    process.stdout.write = write;
  }
  return chunks.join('');
}

/** A logger whose JSON lines the test reads. */
export function recordingLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  return { logger: createLogger('info', stream), lines };
}
