/**
 * What every command runs with: the output mode, the configuration (loaded on first use, so
 * `--help` works with a broken environment), and connections opened on first use, closed at the end.
 */
import { existsSync, statSync } from 'node:fs';
import { openSqliteCatalogueStore } from '../catalogue/sqlite-store';
import type { CatalogueStore } from '../catalogue/store';
import { type BookingClient, connectBookingClient, type ConnectedClient } from '../client';
import { assertSupplierCredentials, type Config, type SupplierAccount } from '../config';
import { catalogueDbPathFor, DEFAULT_SUPPLIER_ACCOUNT } from '../shared/supplier-accounts';
import { HotelApiClient } from '../hotel-api';
import { temporalUnreachable, usageError, type FailureContext } from './cli-errors';
import type { ExitCode } from './exit-codes';
import { probeTcp } from '../doctor/tcp-probe';

/** Where the tool writes; tests and the demo pass their own. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
}

/** Runs a command's body with the shared context; its exit code, 0 if it returns none. */
export type CommandRunner = (body: (ctx: CliContext) => Promise<ExitCode | void>) => Promise<void>;

/** The first `limit` of `items`; no more are read (listings page lazily). */
export async function take<T>(items: AsyncIterable<T>, limit: number): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) {
    out.push(item);
    if (out.length >= limit) break;
  }
  return out;
}

/** `key`'s value in `map`, made and kept on first use. */
function cached<V>(map: Map<string, V>, key: string, make: () => V): V {
  if (!map.has(key)) map.set(key, make());
  return map.get(key)!;
}

/** How long a query or an update may wait for a worker before the tool blames a missing one. */
export const WORKER_ANSWER_TIMEOUT_MS = 20_000;

export class CliContext {
  #config: Config | undefined;
  #temporal: ConnectedClient | undefined;
  readonly #hotelApis = new Map<string, HotelApiClient>();
  readonly #catalogues = new Map<string, Promise<CatalogueStore | undefined>>();

  constructor(
    readonly io: CliIo,
    readonly json: boolean,
    private readonly loadConfig: () => Config,
  ) {}

  get config(): Config {
    if (!this.#config) {
      this.#config = this.loadConfig();
      // The development payload key with a Temporal that is not local: said once, never silent.
      const warning = this.#config.encryption.warning;
      if (warning) this.io.stderr(`warning: ${warning}\n`);
    }
    return this.#config;
  }

  /** What error messages refer to, as far as it is known (never throws). */
  failureContext(): FailureContext {
    const c = this.#config;
    if (!c) return {};
    const { keys, development } = c.encryption;
    const { address: temporalAddress, taskQueue } = c.temporal;
    const payloadKeys = { ids: keys.map((k) => k.id), development };
    return { temporalAddress, taskQueue, supplierUrl: c.hotelApi.baseUrl, payloadKeys };
  }

  /** The connected Temporal client; fails fast (exit 3) when nothing listens at the address. */
  async temporal(): Promise<ConnectedClient> {
    if (this.#temporal) return this.#temporal;
    const { address } = this.config.temporal;
    const probe = await probeTcp(address);
    if (!probe.ok) throw temporalUnreachable(address, probe.reason);
    this.#temporal = await connectBookingClient(this.config);
    return this.#temporal;
  }

  async bookings(): Promise<BookingClient> {
    return (await this.temporal()).bookings;
  }

  /** A query or an update with a deadline: a missing worker is "is a worker running?", not a hang. */
  async withWorkerDeadline<T>(fn: () => Promise<T>, timeoutMs = WORKER_ANSWER_TIMEOUT_MS) {
    const { connection } = await this.temporal();
    return connection.withDeadline(Date.now() + timeoutMs, fn);
  }

  /** A configured supplier account (`--supplier`), the default one when none is named. */
  account(supplier?: string): SupplierAccount {
    const id = supplier ?? DEFAULT_SUPPLIER_ACCOUNT;
    const account = this.config.suppliers.find((a) => a.id === id);
    if (account) return account;
    const ids = this.config.suppliers.map((a) => a.id).join(', ');
    throw usageError(
      `--supplier: no account '${id}' is configured (SUPPLIER_ACCOUNTS); configured: ${ids}`,
      [],
      'UNKNOWN_SUPPLIER_ACCOUNT',
    );
  }

  /** An account's supplier client (HOTEL_API_* for the default one), built on first use. */
  hotelApi(supplier?: string): HotelApiClient {
    const account = this.account(supplier);
    return cached(this.#hotelApis, account.id, () => {
      assertSupplierCredentials(this.config);
      return new HotelApiClient(account.hotelApi);
    });
  }

  /**
   * An account's local catalogue (`CATALOGUE_DB_PATH`, another account's beside it), opened
   * read-only on first use; `undefined` before any `content sync` has made the file.
   */
  catalogueStore(supplier?: string): Promise<CatalogueStore | undefined> {
    const path = catalogueDbPathFor(this.config.catalogueDbPath, this.account(supplier).id);
    return cached(this.#catalogues, path, async () => {
      if (!existsSync(path) || statSync(path).size === 0) return undefined;
      return openSqliteCatalogueStore({ path, readonly: true });
    });
  }

  /** Writes the command's one result: JSON in `--json` mode, else the human rendering. */
  emit(json: unknown, human: () => string): void {
    const text = this.json ? `${JSON.stringify(json, null, 2)}\n` : human();
    if (text) this.io.stdout(text.endsWith('\n') ? text : `${text}\n`);
  }

  /** A progress or hint line for people: stdout in human mode, nothing in `--json` mode. */
  note(line: string): void {
    if (!this.json) this.io.stdout(`${line}\n`);
  }

  async close(): Promise<void> {
    await Promise.allSettled([
      this.#temporal?.close(),
      ...[...this.#hotelApis.values()].map((client) => client.close()),
      ...[...this.#catalogues.values()].map((store) => store.then((s) => s?.close())),
    ]);
  }
}
