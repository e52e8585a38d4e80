import { spawn } from 'node:child_process';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/config.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the built `insights` CLI as a user would (npm test builds it first). */
export function runCli(args: string[], env: Record<string, string>): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(PROJECT_ROOT, 'bin/insights.js'), ...args], {
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...env },
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
