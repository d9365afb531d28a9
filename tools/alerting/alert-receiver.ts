/**
 * The local alert receiver: where Alertmanager's webhooks go unless
 * ALERTMANAGER_CRITICAL_WEBHOOK_URL and ALERTMANAGER_WARNING_WEBHOOK_URL say otherwise (`npm run
 * cluster` in-process, compose's alert-receiver service). It takes Alertmanager's webhook JSON on
 * any path (the defaults are `/critical` and `/warning`) and says each alert in one line: the
 * route, firing or resolved, the alert's name, its summary and its runbook link.
 * A stand-in for a pager or a chat channel, so that a local stack shows what would reach a person.
 */
import { createServer, type Server } from 'node:http';
import { closeServer, listenOn } from '../../src/observability/http-server';

/** The part of Alertmanager's webhook body (version 4) the receiver reads. */
export interface AlertmanagerNotification {
  readonly receiver: string;
  readonly status: 'firing' | 'resolved';
  readonly alerts: readonly {
    readonly status: 'firing' | 'resolved';
    readonly labels: Readonly<Record<string, string>>;
    readonly annotations: Readonly<Record<string, string>>;
    readonly startsAt: string;
  }[];
  readonly commonLabels: Readonly<Record<string, string>>;
}

/** One line per alert of a notification that came to `path`. */
export function alertLines(path: string, n: AlertmanagerNotification): string[] {
  return n.alerts.map((a) =>
    [
      `alert to ${path} (receiver ${n.receiver}):`,
      (a.labels.severity ?? 'no severity').toUpperCase(),
      a.status,
      a.labels.alertname ?? '?',
      `- ${a.annotations.summary ?? ''}`,
      `- runbook ${a.annotations.runbook_url ?? 'none'}`,
    ].join(' '),
  );
}

export interface AlertReceiver {
  readonly server: Server;
  /** Resolves to the origin, `http://host:port`. @param host @default '127.0.0.1' */
  listen(port: number, host?: string): Promise<string>;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 1024 * 1024;

/** `POST <any path>` with Alertmanager's JSON → `onLine` per alert, 200; anything else 4xx. */
export function buildAlertReceiver(options: {
  readonly onLine: (line: string) => void;
}): AlertReceiver {
  const server = createServer((req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) req.destroy();
      else chunks.push(c);
    });
    req.on('end', () => {
      let body: AlertmanagerNotification;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as AlertmanagerNotification;
        if (!Array.isArray(body.alerts)) throw new Error('no alerts array');
      } catch (err) {
        res.writeHead(400).end(`not an Alertmanager webhook body: ${(err as Error).message}\n`);
        return;
      }
      const path = (req.url ?? '/').split('?')[0]!;
      for (const line of alertLines(path, body)) options.onLine(line);
      res.writeHead(200).end();
    });
  });
  return {
    server,
    listen: (port, host = '127.0.0.1') => listenOn(server, port, host),
    close: () => closeServer(server),
  };
}
