// The account's own pages (issue 40, docs/account-pages.md): sign in, Overview, Insights (issue 49), the "API Keys" tab,
// Webhooks, Research and People. Server-rendered HTML, no script, one same-origin stylesheet.
// Cookie sessions here only: nothing under /account reads an Authorization header, and nothing
// under /api reads these cookies (the API's guard knows only Bearer keys). Every change made here
// writes one audit line (pino, `audit` field; never a key, token, password or cookie).
import type { FastifyInstance } from 'fastify';
import { html } from '../../domain/html.js';
import { ICON, ICON_PATH, notice, STYLESHEET, STYLESHEET_PATH } from './layout.js';
import { insightsPages } from './insights.pages.js';
import { invitationPages } from './invitation.pages.js';
import { keysPages } from './keys.pages.js';
import { overviewPage } from './overview.pages.js';
import { pageKit, type AccountPagesOptions } from './page-kit.js';
import { peoplePages } from './people.pages.js';
import { researchPages } from './research.pages.js';
import { signInPages } from './sign-in.pages.js';
import { webhooksPage } from './webhooks.pages.js';

export type { AccountPagesOptions } from './page-kit.js';
export { ROTATION_OVERLAP_MS } from './page-kit.js';

export async function accountPages(app: FastifyInstance, options: AccountPagesOptions): Promise<void> {
  const kit = pageKit(app, options);
  const { hide } = kit;
  app.get(STYLESHEET_PATH, hide, async (_request, reply) =>
    reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=3600').send(STYLESHEET),
  );

  app.get(ICON_PATH, hide, async (_request, reply) =>
    reply.type('image/svg+xml').header('cache-control', 'public, max-age=3600').send(ICON),
  );

  signInPages(app, kit);
  invitationPages(app, kit);
  overviewPage(app, kit);
  insightsPages(app, kit);
  keysPages(app, kit);
  webhooksPage(app, kit);
  researchPages(app, kit);
  peoplePages(app, kit);

  // Any other /account address is a page too: an HTML 404, not the API's problem+json.
  app.get('/account/*', hide, async (_request, reply) =>
    kit.sendPage(reply.code(404), {
      title: 'Not found',
      body: html`${notice('error', 'There is no such account page.')}<p><a href="/account">Back to your account</a></p>`,
    }),
  );
}
