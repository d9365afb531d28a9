/** `generate payload-key|codec-token`: new secrets from the OS's randomness, printed, not sent. */
import { randomBytes } from 'node:crypto';
import type { Command } from 'commander';
import { KEY_BYTES, KEY_ID } from '../../config/codec';
import type { CliContext, CommandRunner } from '../cli-context';
import { usageError } from '../cli-errors';

/** One `keyId:base64` entry of `PAYLOAD_ENCRYPTION_KEYS`: 32 random bytes (AES-256). */
export function newPayloadKey(id: string): string {
  return `${id}:${randomBytes(KEY_BYTES).toString('base64')}`;
}

/** A codec server token: 32 random bytes, base64url (43 characters, no padding). */
export function newCodecToken(): string {
  return randomBytes(32).toString('base64url');
}

/** The default key id: the day it was made (`key-20261129`), so a rotation's ids sort by age. */
export function dayKeyId(now = new Date()): string {
  return `key-${now.toISOString().slice(0, 10).replaceAll('-', '')}`;
}

function print(ctx: CliContext, name: string, value: string): void {
  ctx.emit({ [name]: value }, () => value);
}

export function registerGenerateCommand(program: Command, run: CommandRunner): void {
  const generate = program
    .command('generate')
    .description('Make a new secret for this deployment, printed on stdout (nothing is sent)');
  generate
    .command('payload-key')
    .description(
      'A new payload encryption key, keyId:base64 as PAYLOAD_ENCRYPTION_KEYS reads it (to rotate: put it first, keep the old ones after it; docs/payload-encryption.md)',
    )
    .option('--id <keyId>', 'the key id (1-64 of A-Z a-z 0-9 . _ -); default key-<yyyymmdd>')
    .action((o: { id?: string }) =>
      run((ctx) => {
        const id = o.id ?? dayKeyId();
        if (!KEY_ID.test(id))
          throw usageError('--id: 1 to 64 of A-Z a-z 0-9 . _ -, starting with a letter or digit');
        return Promise.resolve(print(ctx, 'PAYLOAD_ENCRYPTION_KEYS', newPayloadKey(id)));
      }),
    );
  generate
    .command('codec-token')
    .description('A new bearer token for the codec server, as CODEC_SERVER_TOKEN reads it')
    .action(() => run((ctx) => Promise.resolve(print(ctx, 'CODEC_SERVER_TOKEN', newCodecToken()))));
}
