/** Every failure the tool can meet, mapped once to an exit code and a message that says what to do. */
import { CommanderError } from 'commander';
import {
  QueryNotRegisteredError,
  QueryRejectedError,
  WorkflowUpdateFailedError,
  isGrpcServiceError,
} from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import {
  BookingInputError,
  CancellationRefusedError,
  TemporalConnectionRefusedError,
  type FieldIssue,
} from '../client';
import { cutAtDeadline, temporalNotAnswering } from '../client/temporal-not-answering';
import { PayloadCodecError, PayloadCodecErrorCode } from '../codec/encryption-codec';
import { ConfigError } from '../config';
import { HotelApiError, SUPPLIER_UNREACHABLE_CODES } from '../hotel-api';
import { ExitCode } from './exit-codes';

/** A failure the tool reports as it is: the message is already written for the user. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode,
    /** Stable, for `--json` consumers. */
    readonly code: string,
    readonly issues: readonly FieldIssue[] = [],
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** Bad usage, invalid input or configuration: exit 2. */
export function usageError(message: string, issues: readonly FieldIssue[] = [], code = 'USAGE') {
  return new CliError(message, ExitCode.USAGE, code, issues);
}

/** The operation ran and failed: exit 1. */
export function failedError(message: string, code: string, issues: readonly FieldIssue[] = []) {
  return new CliError(message, ExitCode.FAILED, code, issues);
}

/** What the hints in messages refer to. */
export interface FailureContext {
  readonly temporalAddress?: string;
  readonly taskQueue?: string;
  readonly supplierUrl?: string;
  /** The payload keys this tool holds (ids only), and whether they are the development key. */
  readonly payloadKeys?: { readonly ids: readonly string[]; readonly development: boolean };
}

/** The start-something hint for an unreachable Temporal server. */
export function temporalUnreachable(address: string, detail?: string): CliError {
  return new CliError(
    `Cannot reach Temporal at ${address}${detail ? ` (${detail})` : ''}. Is the Temporal server ` +
      'running? Try `npm run temporal` or `npm start` (or set TEMPORAL_ADDRESS).',
    ExitCode.UNREACHABLE,
    'TEMPORAL_UNREACHABLE',
  );
}

/** `  - field: message`, one line per issue. */
const issueLines = (issues: readonly FieldIssue[]) =>
  issues.map((i) => `  - ${i.field}: ${i.message}`).join('\n');

function fromHotelApi(err: HotelApiError, where: FailureContext): CliError {
  const url = where.supplierUrl ?? 'the supplier';
  const { code, message } = err;
  if (code === 'INVALID_REQUEST' || code === 'VALIDATION') {
    const issues = (err.fieldErrors ?? []).map((f) => ({
      field: f.field || '(request)',
      message: f.message,
    }));
    const who =
      code === 'VALIDATION'
        ? 'The supplier rejected the request (422)'
        : 'Invalid input; nothing was sent';
    return usageError(`${who}:\n${issueLines(issues) || `  ${message}`}`, issues, code);
  }
  if (SUPPLIER_UNREACHABLE_CODES.has(code)) {
    return new CliError(
      `Cannot reach the supplier at ${url} (${code}: ${message}). Is the simulator ` +
        'running? Try `npm run simulator` or `npm start` (or set HOTEL_API_BASE_URL).',
      ExitCode.UNREACHABLE,
      code,
    );
  }
  const text =
    code === 'AUTH_INVALID' || code === 'ACCOUNT_INACTIVE' || code === 'CLOCK_SKEW'
      ? `The supplier at ${url} refused our credentials (${code}): check HOTEL_API_KEY and ` +
        'HOTEL_API_SECRET (or their _FILE variants).'
      : code === 'NOT_FOUND'
        ? `Not found at the supplier: ${message}`
        : `Supplier call failed (${code}): ${message}`;
  return failedError(text, code);
}

/** The codec's refusal, thrown as is or as the cause of what the SDK threw. */
export function payloadCodecErrorIn(err: unknown): PayloadCodecError | undefined {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 8; depth++) {
    if (e instanceof PayloadCodecError) return e;
    e = e.cause;
  }
  return undefined;
}

const PAYLOAD_DOC = '(docs/payload-encryption.md)';

/** `--json` codes of the payload failures (docs/payload-encryption.md, write-key-decision.ts). */
export const PayloadFailureCode = {
  KEY_MISSING: 'PAYLOAD_KEY_MISSING',
  KEY_WRONG: 'PAYLOAD_KEY_WRONG',
  UNREADABLE: 'PAYLOAD_UNREADABLE',
  WRITE_KEY: 'PAYLOAD_WRITE_KEY',
} as const;

/**
 * A payload this tool cannot decrypt, in one line: which key id it lacks (or holds wrongly) and
 * what to set. A key the tool lacks is its configuration (exit 2), like any variable.
 */
function payloadKeyFailure(err: PayloadCodecError, where: FailureContext): CliError {
  const cannot = "Cannot read the workflow's payloads";
  const id = err.keyId;
  const keys = where.payloadKeys;
  if (err.code === PayloadCodecErrorCode.CODEC_UNKNOWN_KEY_ID && id !== undefined) {
    const held = !keys
      ? 'this tool does not hold it'
      : keys.development
        ? `PAYLOAD_ENCRYPTION_KEYS is unset (this tool has only the public development key "${keys.ids[0] ?? ''}")`
        : `this tool's PAYLOAD_ENCRYPTION_KEYS holds ${keys.ids.map((k) => `"${k}"`).join(', ')}`;
    const fix = keys?.development
      ? `set PAYLOAD_ENCRYPTION_KEYS to the workers' keys, "${id}" among them`
      : `add the workers' key "${id}" to PAYLOAD_ENCRYPTION_KEYS`;
    return usageError(
      `${cannot}: they are encrypted with key id "${id}" and ${held}: ${fix} ${PAYLOAD_DOC}.`,
      [{ field: 'PAYLOAD_ENCRYPTION_KEYS', message: `no key with id "${id}"` }],
      PayloadFailureCode.KEY_MISSING,
    );
  }
  if (err.code === PayloadCodecErrorCode.CODEC_DECRYPT_FAILED && id !== undefined) {
    return usageError(
      `${cannot}: the key under id "${id}" in PAYLOAD_ENCRYPTION_KEYS is not the one that encrypted them (or they were altered): set the workers' key "${id}" ${PAYLOAD_DOC}.`,
      [{ field: 'PAYLOAD_ENCRYPTION_KEYS', message: `the key "${id}" is not the workers'` }],
      PayloadFailureCode.KEY_WRONG,
    );
  }
  return failedError(
    `${cannot}: ${err.message}; PAYLOAD_ENCRYPTION_KEYS must hold the workers' keys ${PAYLOAD_DOC}.`,
    PayloadFailureCode.UNREADABLE,
  );
}

/** Maps anything a command threw to an exit code and a message that says what to do. */
export function toCliFailure(err: unknown, where: FailureContext = {}): CliError {
  if (err instanceof CliError) return err;
  const codec = payloadCodecErrorIn(err);
  if (codec) return payloadKeyFailure(codec, where);
  if (err instanceof CommanderError) return usageError(err.message.replace(/^error: /, ''));
  if (err instanceof BookingInputError) {
    const text = `Invalid input; nothing was started:\n${issueLines(err.issues)}`;
    return usageError(text, err.issues, 'INVALID_INPUT');
  }
  if (err instanceof TemporalConnectionRefusedError) {
    // TLS or credentials refused: a configuration problem (exit 2), the message names the variable.
    return usageError(err.message, [], 'TEMPORAL_REFUSED');
  }
  if (err instanceof ConfigError) {
    // One variable at fault: one line. Several: one line each, under the heading.
    const [only, ...more] = err.problems;
    return usageError(
      only !== undefined && more.length === 0
        ? `${only} (docs/configuration.md)`
        : `${err.message}\nFix the environment variables above (see docs/configuration.md).`,
      err.problems.map((p) => ({ field: p.split(':')[0] ?? p, message: p })),
      'CONFIG',
    );
  }
  if (err instanceof HotelApiError) return fromHotelApi(err, where);
  if (err instanceof WorkflowNotFoundError) {
    return failedError(
      `No such workflow: ${err.workflowId ?? err.message}. Check the order id (or booking id); ` +
        '`list` shows the bookings.',
      'NOT_FOUND',
    );
  }
  if (err instanceof CancellationRefusedError) {
    return failedError(`Refused: ${err.message}`, err.code);
  }
  if (err instanceof WorkflowUpdateFailedError) {
    const cause = err.cause instanceof Error ? err.cause.message : err.message;
    return failedError(`Refused by the booking: ${cause}`, 'UPDATE_REFUSED');
  }
  if (err instanceof QueryNotRegisteredError || err instanceof QueryRejectedError) {
    return failedError(`The workflow did not answer: ${err.message}`, 'QUERY');
  }
  if (cutAtDeadline(err)) {
    const queue = where.taskQueue ? ` '${where.taskQueue}'` : '';
    return new CliError(
      `No answer in time. Is a worker polling task queue${queue}? Try \`npm run worker\` or ` +
        '`npm start` (and check TEMPORAL_TASK_QUEUE).',
      ExitCode.UNREACHABLE,
      'NO_WORKER',
    );
  }
  // Whether the server answered at all is decided where the worker's start-up decides it; a
  // deadline was taken above: for a command, the server answered and no worker did.
  const notAnswering = temporalNotAnswering(err);
  if (notAnswering !== undefined) {
    const detail = isGrpcServiceError(err) && err.details ? err.details : notAnswering;
    return temporalUnreachable(where.temporalAddress ?? 'TEMPORAL_ADDRESS', detail);
  }
  const message = err instanceof Error ? err.message : String(err);
  return failedError(message, 'ERROR');
}
