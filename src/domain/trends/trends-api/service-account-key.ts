// What makes a file a service account's JSON key, checked at start (config/providers.ts) and when signing in
// (providers/trends-api/auth.ts).
// Messages name the file, never its contents (the private key).
import { createPrivateKey } from 'node:crypto';

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
  // A key that cannot sign would be found only when research asks for a token, and taken for an outage of
  // Google's (a wait without end): outside review of issue 51, 2026-11-29. Never echoed: the error names nothing of it.
  try {
    createPrivateKey(key.private_key);
  } catch {
    return {
      problem: `GOOGLE_APPLICATION_CREDENTIALS (${credentialsFile}) holds a private_key that is not a PEM private key (download a new key of the service account)`,
    };
  }
  return key as ServiceAccountKey;
}

/** The project a key names (its quota project first), or undefined. */
export function projectOfKey(key: Pick<ServiceAccountKey, 'project_id' | 'quota_project_id'>): string | undefined {
  if (typeof key.quota_project_id === 'string' && key.quota_project_id) return key.quota_project_id;
  return typeof key.project_id === 'string' && key.project_id ? key.project_id : undefined;
}

/** Why a key file could not be read (its error code, never its contents). */
export function unreadableKey(credentialsFile: string, error: unknown): string {
  return `GOOGLE_APPLICATION_CREDENTIALS (${credentialsFile}) could not be read as a service account's JSON key: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`;
}
