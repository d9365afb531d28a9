/**
 * The Temporal UI server (its own Go module, built beside the server): its config file, written
 * at every start, and the arguments that load it. The dev server and the cluster both run it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CertificateSet } from './certificates';

export interface UiServerOptions {
  /** Where its config goes (`<dir>/config/ui.yaml`). */
  readonly dir: string;
  /** The Temporal frontend it talks to, `host:port`. */
  readonly address: string;
  readonly port: number;
  /** @default '127.0.0.1' */
  readonly host?: string;
  /** mTLS to the frontend. */
  readonly certs?: Pick<CertificateSet, 'caCert' | 'clientCert' | 'clientKey'> | undefined;
  /** So the UI decodes payloads through our codec server. */
  readonly codecEndpoint?: string | undefined;
}

/** The UI server's YAML config (pure). */
export function uiServerConfig(o: UiServerOptions): string {
  const origin = `http://localhost:${o.port}`;
  return [
    '# Written by tools/temporal-server/ui-server.ts at every start.',
    `temporalGrpcAddress: ${o.address}`,
    `host: ${o.host ?? '127.0.0.1'}`,
    `port: ${o.port}`,
    'enableUi: true',
    'defaultNamespace: default',
    'cors:',
    '  allowOrigins:',
    `    - ${origin}`,
    `    - http://127.0.0.1:${o.port}`,
    ...(o.certs
      ? [
          'tls:',
          `  caFile: ${o.certs.caCert}`,
          `  certFile: ${o.certs.clientCert}`,
          `  keyFile: ${o.certs.clientKey}`,
          '  serverName: localhost',
          '  enableHostVerification: true',
        ]
      : []),
    ...(o.codecEndpoint ? ['codec:', `  endpoint: ${o.codecEndpoint}`] : []),
    '',
  ].join('\n');
}

/** Writes the config and returns the arguments that start the UI server on it. */
export function uiServerArgs(o: UiServerOptions): string[] {
  mkdirSync(join(o.dir, 'config'), { recursive: true });
  writeFileSync(join(o.dir, 'config', 'ui.yaml'), uiServerConfig(o));
  return ['--root', o.dir, '--config', 'config', '--env', 'ui', 'start'];
}
