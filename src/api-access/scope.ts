// What a key may do: each action names the scope it needs (null: any valid key). Checked before the
// quota, by every door: a request the key may not make is not counted.
import type { ResolvedApiKey } from '../api-keys/api-key-cache.js';
import { hasScope, type ApiKeyScope } from '../domain/api-key.js';
import { Refusal } from '../domain/refusal.js';

/** Refused (missingScope) unless the key has the scope `action` (e.g. "POST /api/research-runs") needs. */
export function requireScope(apiKey: ResolvedApiKey, needed: ApiKeyScope | null, action: string): void {
  if (needed !== null && !hasScope(apiKey.scopes, needed)) {
    throw new Refusal(
      'missingScope',
      `This API key (${apiKey.id}) lacks the scope ${needed} that ${action} needs; it has ${apiKey.scopes.join(', ') || 'none'}. Use a key with the scope ${needed}: an owner of the account can create one on the API Keys page (/account/keys).`,
    );
  }
}
