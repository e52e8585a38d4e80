// `insights mcp`: the MCP server over stdio, for an assistant that starts it as a process (docs/mcp.md).
// It talks to a running service over its HTTP API (INSIGHTS_URL, INSIGHTS_KEY): the same tools as /mcp
// on the web process, each one request with that key. stdout carries the protocol alone; logs go to stderr.
import type { Command } from 'commander';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { fetchApi } from '../../mcp/fetch-api.js';
import { createInsightsMcpServer } from '../../mcp/server.js';
import { describeCommand } from '../command-index.js';
import type { CliContext } from '../context.js';
import { UsageError } from '../output.js';

export function registerMcpCommand(program: Command, context: () => CliContext): void {
  program
    .command('mcp')
    .description(describeCommand('mcp'))
    .action(async () => {
      const { config, logger } = context();
      const { url, key } = config.apiClient;
      if (!url || !key) {
        throw new UsageError(
          'insights mcp talks to a running service: set INSIGHTS_URL (its address, e.g. https://insights.example.com) and INSIGHTS_KEY (an API key of your account, from /account/keys).',
        );
      }
      const server = createInsightsMcpServer(fetchApi(url, key));
      const transport = new StdioServerTransport();
      const closed = new Promise<void>((resolve) => {
        transport.onclose = resolve;
        // The assistant closing our stdin is the end of the session.
        process.stdin.once('end', resolve);
      });
      await server.connect(transport);
      logger.info({ api: url }, 'MCP server on stdio');
      await closed;
      await server.close();
    });
}
