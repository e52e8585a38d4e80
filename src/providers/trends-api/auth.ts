// Signing in to the Trends API as a service account, through google-auth-library.
// Two things of the library (10.9.1, read in node_modules/google-auth-library/build/src/gtoken)
// decide how its JWT client is built here:
//   - the token request goes to https://oauth2.googleapis.com/token whatever the key's
//     token_uri says: both the POST's address (getToken.js) and the assertion's `aud`
//     (jwsSign.js) are that constant. So the client's own transporter (gaxios) rewrites
//     that one address to TRENDS_API_TOKEN_URL, and `aud` is set to the same through
//     additionalClaims (spread after the library's claims);
//   - `new JWT({ keyFile })` signs with no `iss` (the e-mail is only read from the file
//     later, after the GoogleToken was made without it). So the key file is read here and
//     the client is given `email` and `key`, which become `iss` and the signing key.
// Signing the assertion with node:crypto would need neither trick, but would re-implement the
// token's expiry and refresh, which the library already keeps right.
import { parseServiceAccountKey, projectOfKey, unreadableKey } from '../../domain/trends/trends-api/service-account-key.js';
import { readFile } from 'node:fs/promises';
import { JWT } from 'google-auth-library';
import { ProviderAccountError, ProviderUnavailableError } from '../contract.js';

export const TRENDS_SCOPE = 'https://www.googleapis.com/auth/searchtrends';
/** The token endpoint google-auth-library posts to whatever it is told (see above). */
const LIBRARY_TOKEN_URL = 'https://oauth2.googleapis.com/token';

export interface ServiceAccount {
  email: string;
  /** The project the key belongs to (its quota project when it names one). */
  project: string | undefined;
  client: JWT;
}

/** The service account of a JSON key, signed in at `tokenUrl` with the searchtrends scope. */
export async function serviceAccountFrom(credentialsFile: string, tokenUrl: string): Promise<ServiceAccount> {
  let text: string;
  try {
    text = await readFile(credentialsFile, 'utf8');
  } catch (error) {
    throw new ProviderAccountError(unreadableKey(credentialsFile, error), 'configuration');
  }
  const key = parseServiceAccountKey(credentialsFile, text);
  if ('problem' in key) throw new ProviderAccountError(key.problem, 'configuration');
  const client = new JWT({
    email: key.client_email,
    key: key.private_key,
    scopes: [TRENDS_SCOPE],
    additionalClaims: { aud: tokenUrl },
  });
  client.transporter.interceptors.request.add({
    resolved: async (options) => {
      if (options.url.href === LIBRARY_TOKEN_URL) options.url = new URL(tokenUrl);
      return options;
    },
  });
  return { email: key.client_email, project: projectOfKey(key), client };
}

/** An access token for the API, or the error that says why not (the token endpoint's answer, never the assertion). */
export async function accessToken(account: ServiceAccount): Promise<string> {
  try {
    const { token } = await account.client.getAccessToken();
    if (!token) throw new Error('the token endpoint answered without an access token');
    return token;
  } catch (error) {
    const status = (error as { status?: number; response?: { status?: number } }).response?.status ?? (error as { status?: number }).status;
    const said = error instanceof Error ? error.message : String(error);
    if (status !== undefined && status >= 400 && status < 500)
      return Promise.reject(
        new ProviderAccountError(
          `the token endpoint refused the service account ${account.email} (HTTP ${status}: ${said}): check GOOGLE_APPLICATION_CREDENTIALS (a current key of that account) and TRENDS_API_TOKEN_URL`,
          'credentials',
        ),
      );
    return Promise.reject(new ProviderUnavailableError(`the token endpoint could not sign in ${account.email}: ${said}`));
  }
}
