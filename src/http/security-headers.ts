// Security headers on every answer (helmet), with a Content-Security-Policy per
// area: the API's answers are data, never a page, so they may load and run
// nothing and be framed by nobody; the docs page (Swagger UI) and the queue
// dashboard (Bull Board, whose buttons obliterate, empty and clean queues, and
// which a browser may remember a Basic login for) run their own scripts and
// styles, from this origin only, and may not be framed either, so no other site
// can overlay them and trick an operator into a click. Both pages are loaded in
// headless Chromium under these policies by test/integration/security-headers.test.ts.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import helmet from 'helmet';

type Directives = Record<string, string[]>;

const NOTHING: Directives = {
  'default-src': ["'none'"],
  'base-uri': ["'none'"],
  'form-action': ["'none'"],
  'frame-ancestors': ["'none'"],
};

/** A page of this origin's own scripts and styles. Inline styles: both UIs set style attributes. */
const PAGE: Directives = {
  'default-src': ["'self'"],
  'script-src': ["'self'"],
  'script-src-attr': ["'none'"],
  'style-src': ["'self'", "'unsafe-inline'"],
  'img-src': ["'self'", 'data:'],
  'font-src': ["'self'", 'data:'],
  'connect-src': ["'self'"],
  'object-src': ["'none'"],
  'base-uri': ["'self'"],
  'form-action': ["'self'"],
  'frame-ancestors': ["'none'"],
};

/** Bull Board's page links its fonts from Google Fonts: allowed there, and only there. */
const DASHBOARD: Directives = {
  ...PAGE,
  'style-src': [...PAGE['style-src']!, 'https://fonts.googleapis.com'],
  'font-src': [...PAGE['font-src']!, 'https://fonts.gstatic.com'],
};

/** The account pages: server-rendered forms and an inline SVG, one same-origin stylesheet, no script at all. */
const ACCOUNT: Directives = {
  'default-src': ["'none'"],
  'style-src': ["'self'"],
  'img-src': ["'self'"],
  'form-action': ["'self'"],
  'base-uri': ["'none'"],
  'frame-ancestors': ["'none'"],
};

const policy = (directives: Directives) => ({ contentSecurityPolicy: { useDefaults: false, directives } });

/** The area a route belongs to: its own policy, or the API's. */
export const AREAS: ReadonlyArray<{ prefix: string; directives: Directives }> = [
  { prefix: '/docs', directives: PAGE },
  { prefix: '/admin', directives: DASHBOARD },
  { prefix: '/account', directives: ACCOUNT },
];

type Headers = Readonly<Record<string, string>>;

/**
 * The headers helmet sets for a policy, read once by running its middleware on
 * a response that only records them. Helmet's Fastify plugin built the whole
 * middleware again on every request (about 8 µs each, a twentieth of a cached
 * API answer's CPU); the headers never change, so they are computed here once.
 */
function headersOf(directives: Directives): Headers {
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader: (name: string, value: unknown) => {
      headers[name.toLowerCase()] = String(value);
    },
    removeHeader: (name: string) => {
      delete headers[name.toLowerCase()];
    },
  };
  helmet({
    ...policy(directives),
    // Nobody frames anything here (frame-ancestors 'none' says it to browsers that read CSP).
    xFrameOptions: { action: 'deny' },
  })({} as IncomingMessage, recorder as unknown as ServerResponse, (error?: unknown) => {
    if (error) throw error;
  });
  return headers;
}

/**
 * The security headers of an API answer; also sent by the answers that come
 * before any hook runs: Node's parser errors (client-connections.ts) and the
 * router's (a broken percent-encoding, a path parameter past its length; app.ts).
 */
export const API_ERROR_HEADERS: Headers = headersOf(NOTHING);

const AREA_HEADERS = AREAS.map((area) => ({ prefix: area.prefix, headers: headersOf(area.directives) }));

/** A route's headers by where it is; a request that matched no route gets the API's. */
function headersFor(routeUrl: string | undefined): Headers {
  if (routeUrl === undefined) return API_ERROR_HEADERS;
  return AREA_HEADERS.find((a) => routeUrl === a.prefix || routeUrl.startsWith(`${a.prefix}/`))?.headers ?? API_ERROR_HEADERS;
}

export async function registerSecurityHeaders(app: FastifyInstance): Promise<void> {
  // First of every hook, so every answer a later hook or handler sends has them.
  app.addHook('onRequest', async (request, reply) => {
    reply.headers(headersFor(request.routeOptions.url));
  });
}
