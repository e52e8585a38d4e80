// An insight is refreshed only from the kind of source it was researched with.
import { describe, expect, it } from 'vitest';
import { providerOf } from '../../src/refresh/plan.js';

describe('which provider refreshes an insight', () => {
  it('live insights from the configured live providers; simulated from the simulated world; recorded ones never', () => {
    expect(providerOf({ source: 'research', provider: 'google' }, 'google')).toBe('google');
    expect(providerOf({ source: 'research', provider: 'google+dataforseo' }, 'google,dataforseo')).toBe('google,dataforseo');
    // Researched before the provider was kept: live, as research was.
    expect(providerOf({ source: 'discovery', provider: null }, 'google')).toBe('google');
    expect(providerOf({ source: 'synthetic', provider: 'synthetic' }, 'google')).toBe('synthetic');
    expect(providerOf({ source: 'research', provider: 'synthetic' }, 'google')).toBe('synthetic');
    // Recorded answers describe the recorded days: "Refresh: 1 insights on live Google" was wrong.
    expect(providerOf({ source: 'research', provider: 'replay' }, 'google')).toBeNull();
    expect(providerOf({ source: 'research', provider: 'replay' }, 'replay')).toBeNull();
    // Recorded answers beside a paid provider are still recorded answers (an outside review found this refreshed from Google).
    expect(providerOf({ source: 'research', provider: 'replay+dataforseo' }, 'google')).toBeNull();
    // A live insight is not refreshed from recordings or the simulated world.
    expect(providerOf({ source: 'research', provider: 'google' }, 'replay')).toBeNull();
    expect(providerOf({ source: 'research', provider: 'google' }, 'synthetic')).toBeNull();
  });
});
