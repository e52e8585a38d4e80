import { spawn } from 'node:child_process';
import path from 'node:path';
import { NO_ENV_FILE, PROJECT_ROOT } from '../../src/config.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the built `insights` CLI as a user would (npm test builds it first). */
export function runCli(args: string[], env: Record<string, string>): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(PROJECT_ROOT, 'bin/insights.js'), ...args], {
      // No .env: a test's processes see only what the test gives them.
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ENV_FILE: NO_ENV_FILE, ...env },
      cwd: PROJECT_ROOT,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}
