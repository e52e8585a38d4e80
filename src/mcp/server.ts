// The Startup Insights MCP server (the official TypeScript SDK): its tools and resources over an API
// caller. The web process serves it at /mcp (src/http/mcp/mcp.plugin.ts), `insights mcp` over stdio
// (src/cli/commands/mcp.command.ts); docs/mcp.md says how an assistant adds either.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ApiCaller } from './api-caller.js';
import { settleProtocolErrors } from './protocol-errors.js';
import { registerInsightResources } from './resources.js';
import { registerInsightTools } from './tools.js';

export const MCP_SERVER_NAME = 'startup-insights';
/** The version of this server's tools and resources (what they take and answer), not of the API beneath them. */
export const MCP_SERVER_VERSION = '1.0.0';

const INSTRUCTIONS =
  'Startup Insights researches startup ideas against Google search-interest data. Search the catalogue (search_insights) ' +
  'before researching (research_idea spends the daily research allowance). Always say what an insight rests on: its ' +
  'provenance is live, recorded (real answers from the past) or simulated (synthetic data, never real). Every call is ' +
  "one request of the account's daily quota (get_usage shows it).";

/** The SDK's server, with its JSON-RPC errors as the specifications define them (protocol-errors.ts), whichever transport. */
class InsightsMcpServer extends McpServer {
  override async connect(transport: Transport): Promise<void> {
    const connecting = super.connect(transport);
    settleProtocolErrors(transport);
    await connecting;
  }
}

export function createInsightsMcpServer(api: ApiCaller): McpServer {
  const server = new InsightsMcpServer({ name: MCP_SERVER_NAME, version: MCP_SERVER_VERSION }, { instructions: INSTRUCTIONS });
  registerInsightTools(server, api);
  registerInsightResources(server, api);
  return server;
}
