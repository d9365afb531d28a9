/**
 * The published contract (contract/*.schema.json) read by Python's `jsonschema`, as an order
 * system in Python reads it: one Python process (json-schema-validator.py, in the venv of
 * examples/python-order-system, which has `jsonschema`) answering one instance at a time.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pythonEnv, type PythonEnv } from './python';

const ROOT = join(__dirname, '..', '..');

/** The venv that has `jsonschema` (or why there is none: the caller skips). */
export const jsonSchemaPython = (): PythonEnv =>
  pythonEnv(join(ROOT, 'examples', 'python-order-system', 'requirements.txt'));

export interface SchemaVerdict {
  /** Valid with the library's defaults (formats not checked). */
  readonly valid: boolean;
  /** Valid with the library's format checker too. */
  readonly validWithFormats: boolean;
  readonly errors: readonly string[];
}

export interface PythonSchemaValidator {
  /** What `jsonschema` says of `instance` against contract file `file`. */
  validate(file: string, instance: unknown): Promise<SchemaVerdict>;
  close(): Promise<void>;
}

/** Starts the validator on the schemas of `dir` (default contract/). */
export async function startPythonSchemaValidator(
  python: string,
  dir = join(ROOT, 'contract'),
): Promise<PythonSchemaValidator> {
  const child: ChildProcessWithoutNullStreams = spawn(
    python,
    [join(__dirname, 'json-schema-validator.py'), dir],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const lines = createInterface({ input: child.stdout });
  const waiting = new Map<number, (v: SchemaVerdict) => void>();
  let ready: () => void;
  let failed: (err: Error) => void;
  const started = new Promise<void>((resolve, reject) => {
    ready = resolve;
    failed = reject;
  });
  lines.on('line', (line) => {
    const answer = JSON.parse(line) as { ready?: string[]; id?: number } & SchemaVerdict;
    if (answer.ready) return ready();
    waiting.get(answer.id!)?.(answer);
    waiting.delete(answer.id!);
  });
  const exited = new Promise<void>((resolve) =>
    child.on('close', (code) => {
      const err = new Error(`json-schema-validator.py exited ${code}: ${stderr.slice(-2000)}`);
      failed(err);
      resolve();
    }),
  );
  await started;
  let next = 0;
  return {
    validate(file, instance) {
      const id = next++;
      return new Promise((resolve, reject) => {
        if (child.exitCode !== null) return reject(new Error(`validator gone: ${stderr}`));
        waiting.set(id, resolve);
        child.stdin.write(`${JSON.stringify({ id, file, instance })}\n`);
      });
    },
    async close() {
      child.stdin.end();
      await exited;
    },
  };
}
