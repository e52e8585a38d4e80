// Security headers on every answer (helmet), with a Content-Security-Policy per
// area: the API's answers are data, never a page, so they may load and run
// nothing and be framed by nobody; the docs page (Swagger UI) and the queue
// dashboard (Bull Board, whose buttons obliterate, empty and clean queues, and
// which a browser may remember a Basic login for) run their own scripts and
// styles, from this origin only, and may not be framed either, so no other site
// can overlay them and trick an operator into a click. Both pages are loaded in
// headless Chromium under these policies by test/integration/security-headers.test.ts.
import helmet from '@fastify/helmet';
import type { FastifyInstance, RouteOptions } from 'fastify';

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

const policy = (directives: Directives) => ({ contentSecurityPolicy: { useDefaults: false, directives } });

/** The area a route belongs to: its own policy, or the API's. */
export const AREAS: ReadonlyArray<{ prefix: string; directives: Directives }> = [
  { prefix: '/docs', directives: PAGE },
  { prefix: '/admin', directives: DASHBOARD },
];

/**
 * The security headers of an API answer, for the answers sent before helmet's
 * hooks can run: Node's parser errors (client-connections.ts) and the router's
 * (a broken percent-encoding, a path parameter past its length; app.ts).
 */
export const API_ERROR_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': Object.entries(NOTHING)
    .map(([name, values]) => `${name} ${values.join(' ')}`)
    .join('; '),
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'same-origin',
};

export async function registerSecurityHeaders(app: FastifyInstance): Promise<void> {
  // Before helmet's own onRoute hook, which reads the route's `helmet` option; routes that
  // plugins add (Swagger UI, Bull Board) get theirs by where they are.
  app.addHook('onRoute', (route: RouteOptions & { helmet?: unknown }) => {
    const area = AREAS.find((a) => route.url === a.prefix || route.url.startsWith(`${a.prefix}/`));
    if (area && route.helmet === undefined) route.helmet = policy(area.directives);
  });
  await app.register(helmet, {
    global: true,
    ...policy(NOTHING),
    // Nobody frames anything here (frame-ancestors 'none' says it to browsers that read CSP).
    xFrameOptions: { action: 'deny' },
  });
}
