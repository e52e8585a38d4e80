// A .env file in the project folder configures the service as .env.example
// says: its variables fill in what the environment does not set, the
// environment wins, ENV_FILE names another file or "none", and a bad value in
// the file is reported like any other, naming the file.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, NO_ENV_FILE, withEnvFile } from '../../src/config.js';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'si-env-file-'));
  await writeFile(path.join(root, '.env'), '# a comment\nPORT=4321\nTRENDS_PROVIDER=replay\nLOG_LEVEL="warn"\n');
  await writeFile(path.join(root, 'staging.env'), 'PORT=5000\n');
});
afterAll(() => rm(root, { recursive: true, force: true }));

describe('the .env file', () => {
  it('fills in what the environment does not set, and the environment wins', () => {
    const { env, file } = withEnvFile({ PORT: '3000', HOST: '0.0.0.0' }, root);
    expect(file).toBe(path.join(root, '.env'));
    expect(env).toMatchObject({ PORT: '3000', HOST: '0.0.0.0', TRENDS_PROVIDER: 'replay', LOG_LEVEL: 'warn' });
  });

  it('is another file when ENV_FILE names one, none when it says none, and a named file must exist', () => {
    expect(withEnvFile({ ENV_FILE: 'staging.env' }, root).env.PORT).toBe('5000');
    expect(withEnvFile({ ENV_FILE: NO_ENV_FILE }, root)).toEqual({ env: { ENV_FILE: NO_ENV_FILE } });
    expect(withEnvFile({ ENV_FILE: 'missing.env' }, root).problem).toMatch(/ENV_FILE names .*missing\.env, which does not exist/);
    expect(withEnvFile({}, path.join(root, 'no-such-folder'))).toEqual({ env: {} }); // no .env: nothing to add
  });

  it('is read by loadConfig() from the process environment, and a bad value in it names the file', async () => {
    const saved = { ...process.env };
    try {
      for (const name of ['PORT', 'TRENDS_PROVIDER', 'LOG_LEVEL']) delete process.env[name];
      process.env.ENV_FILE = path.join(root, '.env');
      expect(loadConfig()).toMatchObject({ web: { port: 4321 }, trends: { provider: 'replay' }, logLevel: 'warn' });

      const bad = path.join(root, 'bad.env');
      await writeFile(bad, 'PORT=eighty\n');
      process.env.ENV_FILE = bad;
      expect(() => loadConfig()).toThrow(ConfigError);
      expect(() => loadConfig()).toThrow(
        new RegExp(`Invalid configuration \\(the environment and ${bad.replace(/[.]/g, '\\.')}\\)[\\s\\S]*PORT must be a whole number`),
      );
    } finally {
      process.env = saved;
    }
  });

  it('is never read when the configuration is given explicitly (as tests do)', () => {
    expect(loadConfig({ ENV_FILE: path.join(root, '.env') }).web.port).toBe(3000);
  });
});
