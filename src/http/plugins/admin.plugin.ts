// The operator's pages, both behind ADMIN_TOKEN and both off without it: the
// queue dashboard (Bull Board, with retry and remove) and /metrics.
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import type { Queue } from 'bullmq';
import type { FastifyInstance } from 'fastify';
import { isAdmin, registry } from '../../observability/metrics.js';
import { problem, sendProblem } from '../problem.js';
import { controlCharacterRefusal } from './input-hygiene.plugin.js';

export interface AdminOptions {
  adminToken?: string;
  /** Queues for the dashboard; the web process opens them. */
  queues?: Queue[];
}

export async function adminPlugin(app: FastifyInstance, { adminToken, queues }: AdminOptions): Promise<void> {
  if (!adminToken) return;
  if (queues && queues.length > 0) {
    const board = new FastifyAdapter();
    board.setBasePath('/admin/queues');
    createBullBoard({ queues: queues.map((q) => new BullMQAdapter(q)), serverAdapter: board });
    await app.register(async (admin) => {
      admin.addHook('onRequest', async (request, reply) => {
        if (!isAdmin(request.headers.authorization, adminToken)) {
          reply.header('www-authenticate', 'Basic realm="admin"');
          return sendProblem(
            reply,
            problem('adminUnauthorized', 'The queue dashboard needs ADMIN_TOKEN (HTTP Basic with it as password, or Bearer).'),
          );
        }
        // Bull Board's own error handler answers what a hook throws with a 500,
        // so input hygiene's refusal is sent here instead of thrown.
        const refusal = controlCharacterRefusal(request);
        if (refusal) return sendProblem(reply, refusal.body);
      });
      await admin.register(board.registerPlugin(), { prefix: '/admin/queues' });
    });
  }
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (!isAdmin(request.headers.authorization, adminToken)) {
      reply.header('www-authenticate', 'Basic realm="admin", Bearer');
      return sendProblem(reply, problem('adminUnauthorized', 'The metrics need ADMIN_TOKEN (Bearer, or Basic with it as password).'));
    }
    reply.header('content-type', registry.contentType);
    return registry.metrics();
  });
}
