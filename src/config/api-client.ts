// The client section: where a running service's API is, for commands that talk to one over HTTP
// (`insights mcp`, docs/mcp.md). Read by no server process.
import { EnvReader } from './env-reader.js';

export interface ApiClientConfig {
  /** INSIGHTS_URL: the service's base URL (its API is under /api); unset: such commands say to set it. */
  readonly url: string | undefined;
  /** INSIGHTS_KEY: the API key those commands send as a bearer token. Never logged. */
  readonly key: string | undefined;
}

export function loadApiClientSection(read: EnvReader): ApiClientConfig {
  const url = read.url('INSIGHTS_URL', ['http:', 'https:'])?.replace(/\/+$/, '');
  const key = read.text('INSIGHTS_KEY');
  return Object.freeze({ url, key });
}
