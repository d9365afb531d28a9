/** The client's I/O below `client.ts`: a request in flight, and how its whole answer is read. */
import type { Dispatcher } from 'undici';
import type { NetworkErrorContext } from './classify';
import { classifyNetworkError, classifyResponse, contractError, firstHeader } from './classify';
import type { PreparedRequest } from './endpoint';
import type { ContractIssue, HotelApiError, HttpMethod, ResponseHeaders } from './errors';
import { personalData, redact } from './redaction';

export interface RawResponse {
  readonly statusCode: number;
  readonly headers: ResponseHeaders;
  readonly body: Buffer;
  /** Supplier `Date` minus the timestamp we signed with, in ms, when the answer had a `Date`. */
  readonly signedSkewMs?: number;
}

/**
 * One request in flight, settled once. A class rather than closures so a call allocates one
 * object, not a dozen functions.
 */
export class Exchange implements Dispatcher.DispatchHandler {
  readonly promise: Promise<RawResponse>;
  readonly where: { readonly endpoint: string; readonly method: HttpMethod };
  #resolve!: (r: RawResponse) => void;
  #reject!: (e: HotelApiError) => void;
  #settled = false;
  /** Set by `onRequestStart`: undici writes the request synchronously right after it. */
  #requestSent = false;
  #controller: Dispatcher.DispatchController | undefined;
  #pendingAbort: Error | undefined;
  #statusCode = 0;
  #headers: ResponseHeaders = {};
  #signedSkewMs: number | undefined;
  #chunks: Buffer[] = [];
  #size = 0;
  readonly #timer: NodeJS.Timeout;

  constructor(
    req: { readonly endpoint: string; readonly method: HttpMethod },
    readonly timeoutMs: number,
    readonly signal: AbortSignal | undefined,
    readonly maxBytes: number,
    readonly observeDate: (headers: ResponseHeaders) => number | undefined,
  ) {
    this.where = { endpoint: req.endpoint, method: req.method };
    this.promise = new Promise<RawResponse>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    this.#timer = setTimeout(Exchange.#onTimeout, timeoutMs, this);
    // `this` is the listener: EventTarget calls its handleEvent.
    signal?.addEventListener('abort', this, { once: true });
  }

  fail(err: HotelApiError): void {
    if (this.#settle()) this.#reject(err);
  }

  /** Settles the call once (its timer and abort listener gone); false when it already was. */
  #settle(): boolean {
    if (this.#settled) return false;
    this.#settled = true;
    clearTimeout(this.#timer);
    this.signal?.removeEventListener('abort', this);
    return true;
  }

  /**
   * Fails the call, then stops undici's side: at once when the request is on a socket (the socket
   * is destroyed, so a body is never left half-read), or as soon as it gets one when still queued
   * (undici then never writes it).
   */
  #giveUp(reason: Error, ctx: Pick<NetworkErrorContext, 'reason' | 'timeoutMs' | 'cause'>): void {
    this.fail(
      classifyNetworkError(reason, { ...this.where, requestSent: this.#requestSent, ...ctx }),
    );
    if (this.#controller !== undefined) this.#controller.abort(reason);
    else this.#pendingAbort = reason;
  }

  static #onTimeout(self: Exchange): void {
    const reason = new Error(`deadline of ${self.timeoutMs} ms expired`);
    self.#giveUp(reason, { reason: 'timeout', timeoutMs: self.timeoutMs });
  }

  /** The caller's AbortSignal fired. */
  handleEvent(): void {
    this.#giveUp(new Error('aborted by the caller'), {
      reason: 'abort',
      cause: this.signal?.reason,
    });
  }

  #tooLarge(ctrl: Dispatcher.DispatchController, what: string): void {
    const err = contractError({
      ...this.where,
      statusCode: this.#statusCode,
      headers: this.#headers,
      reason: `the body ${what} the ${this.maxBytes}-byte cap`,
    });
    this.fail(err);
    ctrl.abort(err);
  }

  onRequestStart(ctrl: Dispatcher.DispatchController): void {
    this.#controller = ctrl;
    if (this.#settled) {
      // Gave up while it was queued or connecting: abort before undici writes anything.
      ctrl.abort(this.#pendingAbort ?? new Error('call already settled'));
      return;
    }
    this.#requestSent = true;
  }

  onResponseStart(
    ctrl: Dispatcher.DispatchController,
    statusCode: number,
    headers: ResponseHeaders,
  ): void {
    if (this.#settled) return;
    this.#statusCode = statusCode;
    this.#headers = headers;
    this.#signedSkewMs = this.observeDate(headers);
    const declared = Number(firstHeader(headers, 'content-length'));
    if (Number.isFinite(declared) && declared > this.maxBytes) {
      this.#tooLarge(ctrl, 'declares more than');
    }
  }

  onResponseData(ctrl: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#settled) return;
    this.#size += chunk.length;
    if (this.#size > this.maxBytes) {
      this.#tooLarge(ctrl, 'exceeds');
      return;
    }
    this.#chunks.push(chunk);
  }

  onResponseEnd(): void {
    if (!this.#settle()) return;
    this.#resolve({
      statusCode: this.#statusCode,
      headers: this.#headers,
      body:
        this.#chunks.length === 1
          ? (this.#chunks[0] as Buffer)
          : Buffer.concat(this.#chunks, this.#size),
      signedSkewMs: this.#signedSkewMs,
    });
  }

  onResponseError(_ctrl: Dispatcher.DispatchController, err: Error): void {
    this.fail(classifyNetworkError(err, { ...this.where, requestSent: this.#requestSent }));
  }
}

const JSON_CONTENT_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/** What {@link readAnswer} needs of the client besides the request and its answer. */
export interface AnswerContext {
  readonly clockOffsetMs: number;
  readonly clockCorrection: boolean;
  readonly now: () => number;
  readonly secrets: readonly string[];
}

/** Turns a complete answer into the endpoint's result, or throws a classified error. */
export function readAnswer<T>(req: PreparedRequest<T>, raw: RawResponse, ctx: AnswerContext): T {
  const { endpoint, method } = req;
  const { statusCode, headers } = raw;
  const reader = req.responses[statusCode];
  if (reader === undefined) {
    throw classifyResponse({
      endpoint,
      method,
      statusCode,
      headers,
      body: lenientJson(raw.body.toString('utf8')),
      signedSkewMs: raw.signedSkewMs,
      clockOffsetMs: ctx.clockOffsetMs,
      clockCorrection: ctx.clockCorrection,
      nowMs: ctx.now(),
      secrets: ctx.secrets,
      personal: personalData(req.body),
    });
  }
  if ('empty' in reader) return reader.empty;
  const untrusted = (reason: string, issues?: ContractIssue[]) =>
    contractError({ endpoint, method, statusCode, headers, issues, reason });
  const contentType = firstHeader(headers, 'content-type') ?? '';
  if (!JSON_CONTENT_TYPE.test(contentType)) {
    const shown = redact(contentType.slice(0, 80), ctx.secrets, personalData(req.body));
    const type = contentType === '' ? 'missing' : JSON.stringify(shown);
    throw untrusted(`the content type is ${type}, not JSON`);
  }
  let json: unknown;
  try {
    json = JSON.parse(raw.body.toString('utf8'));
  } catch (err) {
    // Not the parser's error as the cause: V8 quotes the text around a bad token, which may be
    // a guest's name from the answer. Where it failed is enough to find it.
    const at = /at position \d+/.exec(err instanceof Error ? err.message : '')?.[0];
    throw untrusted(`the body is not valid JSON${at === undefined ? '' : ` (${at})`}`);
  }
  const parsed = reader.json.safeParse(json);
  if (!parsed.success) {
    const issues: ContractIssue[] = parsed.error.issues.map((i) => ({
      path: i.path,
      code: i.code,
      message: i.message,
    }));
    const summary = issues
      .slice(0, 5)
      .map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`)
      .join('; ');
    throw untrusted(`the body does not match the schema: ${summary}`, issues);
  }
  const wrong = req.verify?.(parsed.data);
  if (wrong !== undefined) throw untrusted(`the body ${wrong}`);
  return parsed.data;
}

/** Best-effort JSON (4xx/5xx bodies may be a proxy's HTML): `undefined` when empty or not JSON. */
export function lenientJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
