// The files or standard streams of a JSONL batch command (--input FILE|-, --output FILE|-).
import { createReadStream, createWriteStream } from 'node:fs';
import { access } from 'node:fs/promises';
import type { Readable, Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { UsageError } from './output.js';

export async function withBatchStreams<T>(
  options: { input: string; output: string },
  run: (input: Readable, output: Writable) => Promise<T>,
): Promise<T> {
  if (options.input !== '-') {
    await access(options.input).catch(() => {
      throw new UsageError(`cannot read --input ${options.input}`);
    });
  }
  const input = options.input === '-' ? process.stdin : createReadStream(options.input);
  const output = options.output === '-' ? process.stdout : createWriteStream(options.output);
  const result = await run(input, output);
  if (output !== process.stdout) {
    output.end();
    await finished(output);
  }
  return result;
}
