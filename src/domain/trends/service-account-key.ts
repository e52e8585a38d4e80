// What makes a file a service account's JSON key, checked at start (config/providers.ts) and when signing in
// (providers/trends-api/auth.ts).
// Messages name the file, never its contents (the private key).
export interface ServiceAccountKey {
  type: 'service_account';
  client_email: string;
  private_key: string;
  project_id?: unknown;
  quota_project_id?: unknown;
}

/** The key in `text`, or why it is not one. */
export function parseServiceAccountKey(credentialsFile: string, text: string): ServiceAccountKey | { problem: string } {
  let key: { type?: unknown; client_email?: unknown; private_key?: unknown };
  try {
    key = JSON.parse(text) as typeof key;
  } catch {
    return { problem: `GOOGLE_APPLICATION_CREDENTIALS (${credentialsFile}) could not be read as a service account's JSON key: not JSON` };
  }
  if (
    key === null ||
    typeof key !== 'object' ||
    key.type !== 'service_account' ||
    typeof key.client_email !== 'string' ||
    typeof key.private_key !== 'string'
  )
    return {
      problem: `GOOGLE_APPLICATION_CREDENTIALS (${credentialsFile}) is not a service account's JSON key (type "service_account" with client_email and private_key)`,
    };
  return key as ServiceAccountKey;
}

/** Why a key file could not be read (its error code, never its contents). */
export function unreadableKey(credentialsFile: string, error: unknown): string {
  return `GOOGLE_APPLICATION_CREDENTIALS (${credentialsFile}) could not be read as a service account's JSON key: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`;
}
