/**
 * The local alert receiver, where a stack's alerts go when no webhook URL is set (`npm run
 * cluster` in-process, compose's alert-receiver service through `tools/alerting/main.ts receive`):
 * a real Alertmanager with the rendered production routes delivers to it, and each alert becomes
 * one line with its route, severity, state, name, summary and runbook link.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  localAlertingDefaults,
  renderAlertmanagerConfig,
} from '../../tools/alerting/alerting-config';
import { buildAlertReceiver } from '../../tools/alerting/alert-receiver';
import {
  startAlertmanager,
  type RunningAlertmanager,
} from '../../tools/temporal-server/alertmanager-server';
import { findAlertmanager } from '../../tools/temporal-server/prometheus-binaries';
import { eventually } from '../helpers/booking-stack';

const ROOT = join(__dirname, '..', '..');

/** What Prometheus POSTs to Alertmanager for a firing alert (API v2). */
const alert = (alertname: string, severity: string) => ({
  labels: { alertname, severity },
  annotations: {
    summary: `${alertname} is firing`,
    runbook_url: `https://runbooks.example/docs/runbooks.md#${alertname.toLowerCase()}`,
  },
});

describe('the local alert receiver', async () => {
  const binaries = await findAlertmanager();
  const skip = binaries.found ? false : binaries.reason;
  const dir = mkdtempSync(join(tmpdir(), 'hbo-receiver-'));
  const lines: string[] = [];
  const receiver = buildAlertReceiver({ onLine: (l) => lines.push(l) });
  let alertmanager: RunningAlertmanager | undefined;

  before(async () => {
    if (!binaries.found) return;
    const origin = await receiver.listen(0);
    alertmanager = await startAlertmanager({
      binary: binaries.alertmanager,
      dir,
      config: renderAlertmanagerConfig(localAlertingDefaults(origin), {
        groupWait: '1s',
        groupInterval: '1s',
        repeatInterval: '1h',
      }),
    });
  });

  after(async () => {
    await alertmanager?.close();
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'says each alert Alertmanager delivers in one line, on the route of its severity',
    { skip },
    async () => {
      const res = await fetch(`${alertmanager!.url}/api/v2/alerts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify([
          alert('HotelTestPage', 'critical'),
          alert('HotelTestTicket', 'warning'),
        ]),
      });
      assert.equal(res.status, 200);
      // The warning route waits 1 s here too (its 5 minutes are shortened like every wait).
      await eventually(async () => lines.length >= 2, 15_000, 'both alerts delivered');
      assert.deepEqual(lines.sort(), [
        'alert to /critical (receiver critical): CRITICAL firing HotelTestPage - HotelTestPage is firing - runbook https://runbooks.example/docs/runbooks.md#hoteltestpage',
        'alert to /warning (receiver warning): WARNING firing HotelTestTicket - HotelTestTicket is firing - runbook https://runbooks.example/docs/runbooks.md#hoteltestticket',
      ]);
    },
  );

  it('refuses what is not an Alertmanager webhook body', async () => {
    const other = buildAlertReceiver({ onLine: () => assert.fail('no line for a bad body') });
    const origin = await other.listen(0);
    try {
      const res = await fetch(`${origin}/critical`, { method: 'POST', body: '{"hello":1}' });
      assert.equal(res.status, 400);
      assert.equal((await fetch(`${origin}/critical`)).status, 405);
    } finally {
      await other.close();
    }
  });

  it("runs as `tools/alerting/main.ts receive` (compose's alert-receiver), printing the same lines", async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'tools/alerting/main.ts', 'receive', '--port', '0'],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    try {
      const origin = await eventually(
        async () => /listening on (http:\/\/\S+)/.exec(out)?.[1],
        20_000,
        'the receiver to listen',
      );
      const body = {
        receiver: 'critical',
        status: 'firing',
        alerts: [
          {
            status: 'firing',
            startsAt: new Date().toISOString(),
            ...alert('HotelCli', 'critical'),
          },
        ],
        commonLabels: { severity: 'critical' },
      };
      const res = await fetch(`${origin}/critical`, { method: 'POST', body: JSON.stringify(body) });
      assert.equal(res.status, 200);
      await eventually(async () => out.includes('HotelCli'), 5_000, 'the line');
      assert.match(
        out,
        /^alert to \/critical \(receiver critical\): CRITICAL firing HotelCli - HotelCli is firing - runbook https:\/\/runbooks\.example\/docs\/runbooks\.md#hotelcli$/m,
      );
    } finally {
      child.kill('SIGTERM');
    }
    assert.equal(await exited, 0, 'stops on SIGTERM, exit 0');
  });
});
