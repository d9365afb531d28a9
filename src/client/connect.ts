/** Connects a Temporal client as the workers do: same address, namespace and data converter. */
import { Client, Connection } from '@temporalio/client';
import { createDataConverter } from '../codec/data-converter';
import { EncryptionCodec } from '../codec/encryption-codec';
import type { Config } from '../config';
import { temporalConnectionFailure, temporalConnectionOptions } from './connection-options';
import { BookingClient } from './booking-client';

/** Temporal refused the connection's TLS or credentials; the message says what to change. */
export class TemporalConnectionRefusedError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'TemporalConnectionRefusedError';
  }
}

export interface ConnectedClient {
  readonly connection: Connection;
  readonly client: Client;
  readonly bookings: BookingClient;
  /** The client's payload codec (which key ids it decrypted: see `takeDecryptedKeyIds`). */
  readonly codec: EncryptionCodec;
  close(): Promise<void>;
}

/** Connects to Temporal from a loaded {@link Config} (its Temporal, encryption and order-id parts). */
export async function connectBookingClient(
  config: Pick<Config, 'temporal' | 'encryption' | 'orderIdField'>,
): Promise<ConnectedClient> {
  let connection: Connection;
  try {
    connection = await Connection.connect(temporalConnectionOptions(config.temporal));
  } catch (err) {
    // A TLS or credential refusal gets one line that says which variable to change.
    const explained = await temporalConnectionFailure(err, config.temporal);
    throw explained ? new TemporalConnectionRefusedError(explained, { cause: err }) : err;
  }
  const codec = new EncryptionCodec(config.encryption);
  const client = new Client({
    connection,
    namespace: config.temporal.namespace,
    dataConverter: createDataConverter(config.encryption, codec),
  });
  const bookings = new BookingClient({
    client,
    taskQueue: config.temporal.taskQueue,
    orderIdField: config.orderIdField,
  });
  return { connection, client, bookings, codec, close: () => connection.close() };
}
