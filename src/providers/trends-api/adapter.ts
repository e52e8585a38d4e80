// The Trends API is asked directly, with its pace, day's answers and quota in Redis: the
// gateway DataForSEO's answers go through (../paid-gateway.ts), counting data points where
// DataForSEO counts dollars. The service account is signed in on the first request.
import { ProviderAccountError } from '../contract.js';
import type { TrendsRequest, TrendsResponse } from '../../domain/trends/answers.js';
import { PaidTrendsGateway } from '../paid-gateway.js';
import type { GatewayFactory } from '../gateway-factory.js';
import { serviceAccountFrom } from './auth.js';
import { TrendsApiClient } from './client.js';
import { trendsApi, type TrendsApiSection } from './profile.js';
import { TrendsApiProvider } from './provider.js';

/** The most terms one question asks (a comparison of the phrase, three others and the anchor): one operation each. */
const TERMS_PER_QUESTION = 5;

export const createGateway: GatewayFactory<TrendsApiSection> = ({ settings, redis, keys, logger, purpose }) => {
  const { credentialsFile, apiUrl, tokenUrl, requestTimeoutMs, pollMs, requestsPerMinute, retryMs } = settings;
  if (!credentialsFile) throw new Error('trends-api is named but GOOGLE_APPLICATION_CREDENTIALS is not set');
  if (!redis || !keys) throw new Error('the trends-api provider needs Redis (its pace, day answers and quota count)');
  // Read and signed in once, when first asked; a key that cannot be read is an account problem each request reports.
  let provider: Promise<TrendsApiProvider> | undefined;
  const signedIn = () =>
    (provider ??= serviceAccountFrom(credentialsFile, tokenUrl).then((account) => {
      const project = settings.project ?? account.project;
      if (!project)
        throw new ProviderAccountError(
          'no project to send as X-Goog-User-Project: set TRENDS_API_PROJECT to the allow-listed project (the key names none)',
          'configuration',
        );
      return new TrendsApiProvider(new TrendsApiClient({ apiUrl, project, requestTimeoutMs, pollMs }, account));
    })).catch((error: unknown) => {
      provider = undefined;
      throw error;
    });
  return new PaidTrendsGateway({
    provider: {
      name: trendsApi.name,
      fetch: async (request: TrendsRequest): Promise<TrendsResponse> => (await signedIn()).fetch(request),
    },
    redis,
    keys,
    pace: { explore: requestsPerMinute, searchVolume: requestsPerMinute },
    logger,
    purpose,
    retryMs,
    scope: `${apiUrl}|${credentialsFile}|${settings.project ?? ''}`,
    askingMs: requestTimeoutMs * TERMS_PER_QUESTION + 5_000,
    source: trendsApi.publicName,
  });
};
