// A certificate authority of our own and a certificate for trends.google.com
// signed by it, made with openssl in a temp folder. Processes that talk to the
// loopback Google trust the authority through NODE_EXTRA_CA_CERTS (Node's own
// mechanism), so the production TLS path is used unchanged.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);

export interface TestCertificates {
  dir: string;
  /** The authority's certificate (PEM): give it to clients. */
  caPath: string;
  ca: string;
  cert: string;
  key: string;
}

export async function makeCertificates(hosts = ['trends.google.com', 'www.google.com']): Promise<TestCertificates> {
  const dir = await mkdtemp(path.join(tmpdir(), 'si-google-tls-'));
  const file = (name: string) => path.join(dir, name);
  const openssl = (args: string[]) => exec('openssl', args, { cwd: dir });
  await openssl([
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=Startup Insights test CA',
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
  ]);
  await openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-subj', `/CN=${hosts[0]}`, '-keyout', 'server.key', '-out', 'server.csr']);
  await writeFile(file('san.ext'), `subjectAltName=${hosts.map((h) => `DNS:${h}`).join(',')}\n`);
  await openssl([
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    'san.ext',
    '-out',
    'server.pem',
  ]);
  return {
    dir,
    caPath: file('ca.pem'),
    ca: await readFile(file('ca.pem'), 'utf8'),
    cert: await readFile(file('server.pem'), 'utf8'),
    key: await readFile(file('server.key'), 'utf8'),
  };
}
