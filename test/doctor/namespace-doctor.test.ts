/**
 * `hotel-booking setup` and `hotel-booking doctor namespace` as operators run them: child
 * processes configured by TEMPORAL_* against namespaces registered here on the run's Temporal
 * server. A fresh namespace prepared by `setup` alone (and `setup` again changing nothing) passes
 * the doctor with a real worker polling, a real booking's input to decode and a real codec
 * server; then the doctor names each deviation with its exit code: a missing attribute, a short
 * retention, no worker polling, a wrong payload key; `setup` names an attribute of another type;
 * an unreachable server is one line.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Client } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import type { SetupReport } from '../../src/cli/commands/setup-command';
import { BookingClient } from '../../src/client';
import {
  buildCodecServer,
  createDataConverter,
  EncryptionCodec,
  parseEncryptionKeys,
} from '../../src/codec';
import type { CheckResult } from '../../src/doctor/check-result';
import type { NamespaceDoctorReport } from '../../src/doctor/run-namespace-doctor';
import { refusedInQueries, registerSearchAttributes } from '../../src/namespace/prepare-namespace';
import { PRODUCT_SEARCH_ATTRIBUTES } from '../../src/namespace/search-attribute-plan';
import { buildSimulator } from '../../tools/simulator';
import { freePort } from '../../tools/temporal-server/dev-server';
import {
  bookingInput,
  COMPANY,
  eventually,
  hotelApiConfig,
  stackWorker,
} from '../helpers/booking-stack';
import {
  connectTemporal,
  registerTestNamespace,
  uniqueTaskQueue,
  type TestTemporal,
} from '../helpers/temporal';
import { HotelApiClient } from '../../src/hotel-api';
import { cli, explain, json, type CliRun } from '../cli/cli-process';
import { selectedRelease } from '../../tools/temporal-server/selected-release';

/** The workers' payload key here: not the development key, so the doctor can pass outright. */
const KEYS = `k-test:${randomBytes(32).toString('base64')}`;
/** Another key id: what a host configured with the wrong key has. */
const OTHER_KEYS = `k-other:${randomBytes(32).toString('base64')}`;
const CODEC_TOKEN = 'doctor-test-codec-token';

/** The keys of a `PAYLOAD_ENCRYPTION_KEYS` value, for the codec and data converter here. */
function keysOf(spec: string) {
  const [first, ...rest] = parseEncryptionKeys(spec, 'PAYLOAD_ENCRYPTION_KEYS');
  assert.ok(first);
  return { keys: [first, ...rest] as const };
}

const unique = (tag: string) => `doctor-${tag}-${Date.now().toString(36)}-${process.pid}`;

/** The named check of a doctor's `--json` report. */
function check(run: CliRun, name: string): CheckResult {
  const found = json<NamespaceDoctorReport>(run).checks.find((c) => c.name === name);
  assert.ok(found, `${name} in the report\n${explain(run)}`);
  return found;
}

describe('hotel-booking setup and doctor namespace, run as commands', () => {
  const taskQueue = uniqueTaskQueue('ns-doctor');
  const ns = {
    fresh: unique('fresh'),
    short: unique('short'),
    partial: unique('partial'),
    conflict: unique('conflict'),
  };
  let temporal: TestTemporal;
  let hotelApi: HotelApiClient;
  const sim = buildSimulator({ companies: [{ ...COMPANY, active: true }], seed: 7 });
  const codecServer = buildCodecServer({
    codec: new EncryptionCodec(keysOf(KEYS)),
    token: CODEC_TOKEN,
  });
  let worker: Worker | undefined;
  let running: Promise<void> | undefined;
  let env: (namespace: string, extra?: NodeJS.ProcessEnv) => NodeJS.ProcessEnv;
  let setupRuns: Record<'first' | 'again' | 'short' | 'conflict', CliRun>;
  let doctorRuns: Record<'pass' | 'partial' | 'short' | 'idle' | 'wrongKey', CliRun>;

  before(async () => {
    temporal = await connectTemporal();
    const { url } = await sim.listen(0, '127.0.0.1');
    hotelApi = new HotelApiClient(hotelApiConfig(url.replace(/\/api\/v1\/?$/, '')));
    const codecUrl = await codecServer.listen(0);
    env = (namespace, extra = {}) => ({
      ...process.env,
      TEMPORAL_NAMESPACE: namespace,
      TEMPORAL_TASK_QUEUE: taskQueue,
      PAYLOAD_ENCRYPTION_KEYS: KEYS,
      CODEC_SERVER_URL: codecUrl,
      CODEC_SERVER_TOKEN: CODEC_TOKEN,
      ...extra,
    });
    const { connection } = temporal;
    await Promise.all([
      registerTestNamespace(connection, ns.fresh, 30),
      registerTestNamespace(connection, ns.short, 1),
      registerTestNamespace(connection, ns.partial, 30),
      registerTestNamespace(connection, ns.conflict, 30),
    ]);
    // Prepared by hand, all but one; and one attribute taken under another type.
    await registerSearchAttributes(
      connection,
      ns.partial,
      PRODUCT_SEARCH_ATTRIBUTES.filter((s) => s.name !== 'Reconfirmation'),
    );
    await registerSearchAttributes(connection, ns.conflict, [
      { name: 'BookingPhase', type: 'INT' },
    ]);

    const [first, short, conflict] = await Promise.all([
      cli(env(ns.fresh))('--json', 'setup'),
      cli(env(ns.short))('setup'),
      cli(env(ns.conflict))('setup'),
    ]);
    const again = await cli(env(ns.fresh))('setup');
    setupRuns = { first, again, short, conflict };
    assert.equal(first.code, 0, explain(first));

    // A real worker of the fresh namespace, and one real booking whose input it encrypted.
    const dataConverter = createDataConverter(keysOf(KEYS));
    worker = await stackWorker({ temporal, hotelApi }, taskQueue, {
      namespace: ns.fresh,
      dataConverter,
    });
    running = worker.run();
    const client = new Client({ connection, namespace: ns.fresh, dataConverter });
    const bookings = new BookingClient({ client, taskQueue });
    await bookings.startBooking(bookingInput('instant'));
    // A guard an earlier version started, still open (nobody polls its queue): counted.
    await client.workflow.start('guardBooking', {
      workflowId: `guard-doctor-${Date.now().toString(36)}`,
      taskQueue: `nobody-polls-${taskQueue}`,
      args: [],
    });
    await eventually(
      async () => {
        const [wf, act] = await Promise.all(
          [1, 2].map((taskQueueType) =>
            connection.workflowService.describeTaskQueue({
              namespace: ns.fresh,
              taskQueue: { name: taskQueue },
              taskQueueType,
            }),
          ),
        );
        const listed = await connection.workflowService.listWorkflowExecutions({
          namespace: ns.fresh,
          query: `TaskQueue = '${taskQueue}'`,
        });
        return (
          (wf?.pollers ?? []).length > 0 &&
          (act?.pollers ?? []).length > 0 &&
          (listed.executions ?? []).length > 0
        );
      },
      30_000,
      'the worker polling and the booking listed',
    );

    const doctor = (e: NodeJS.ProcessEnv) => cli(e)('--json', 'doctor', 'namespace');
    const [pass, partial, shortRun, idle, wrongKey] = await Promise.all([
      cli(env(ns.fresh))('doctor', 'namespace'),
      doctor(env(ns.partial)),
      doctor(env(ns.short)),
      doctor(
        env(ns.fresh, {
          TEMPORAL_TASK_QUEUE: uniqueTaskQueue('nobody'),
          ORDER_EVENTS_URL: 'http://127.0.0.1:9/events',
          ORDER_EVENTS_SECRET: `whsec_${randomBytes(32).toString('base64')}`,
        }),
      ),
      doctor(env(ns.fresh, { PAYLOAD_ENCRYPTION_KEYS: OTHER_KEYS })),
    ]);
    doctorRuns = { pass, partial, short: shortRun, idle, wrongKey };
  });

  after(async () => {
    worker?.shutdown();
    await running;
    await Promise.all([hotelApi?.close(), temporal?.close(), sim.close(), codecServer.close()]);
  });

  it('setup registers every search attribute with its type on a fresh namespace', () => {
    const report = json<SetupReport>(setupRuns.first);
    assert.equal(report.namespace, ns.fresh);
    assert.equal(report.created, PRODUCT_SEARCH_ATTRIBUTES.length);
    assert.deepEqual(
      report.searchAttributes.map((a) => `${a.name}=${a.type}:${a.result}`),
      [
        'BookingPhase=Keyword:created',
        'SupplierBookingId=Int:created',
        'SupplierStatus=Keyword:created',
        'BookingOutcome=Keyword:created',
        'OrderId=Keyword:created',
        'SupplierAccount=Keyword:created',
        'CheckInDate=Datetime:created',
        'BookingDecidedAt=Datetime:created',
        'FreeCancellationUntil=Datetime:created',
        'Reconfirmation=Keyword:created',
        'OrderEventsDelivery=Keyword:created',
      ],
    );
  });

  it('setup again changes nothing and says so, exit 0', () => {
    const r = setupRuns.again;
    assert.equal(r.code, 0, explain(r));
    assert.match(r.stdout, /│ BookingPhase\s+│ Keyword\s+│ already present/);
    assert.match(
      r.stdout,
      new RegExp(`${PRODUCT_SEARCH_ATTRIBUTES.length} already present: nothing changed\\.`),
    );
    assert.doesNotMatch(r.stdout, /│ created/);
  });

  it('setup names an attribute that exists with another type, both types, in one line, exit 1', () => {
    const r = setupRuns.conflict;
    assert.equal(r.code, 1, explain(r));
    const lines = r.stderr.trim().split('\n');
    assert.equal(lines.length, 1, explain(r));
    assert.match(lines[0]!, /BookingPhase is registered as Int; the product writes Keyword/);
    assert.match(lines[0]!, /Nothing was changed/);
  });

  it('doctor namespace passes the namespace setup prepared, with a worker polling: every check ok, exit 0', () => {
    const r = doctorRuns.pass;
    assert.equal(r.code, 0, explain(r));
    for (const name of [
      'temporal-connection',
      'temporal-release',
      'namespace',
      'search-attributes',
      'retention',
      'booking-workers',
      'order-events-workers',
      'payload-keys',
      'earlier-versions',
      'codec-server',
    ]) {
      assert.match(r.stdout, new RegExp(`│ ${name}\\s+│ OK`), `${name}\n${explain(r)}`);
    }
    assert.match(
      r.stdout,
      /1 run\(s\) of earlier versions\s+│?\s*still open \(guardBooking: 1[,)]/s,
    );
    assert.match(r.stdout, /key id "k-test".*decodes/s);
    // The version the server gives, not one we assume.
    assert.match(
      r.stdout,
      new RegExp(`Temporal ${selectedRelease().replace(/\./g, '\\.')}: a supported release`),
    );
    assert.match(r.stdout, /0 fail, 0 not run: exit 0/);
  });

  it('names the missing attribute, exit 1; with no workflow yet, says there is none to check', () => {
    const r = doctorRuns.partial;
    assert.equal(r.code, 1, explain(r));
    const sa = check(r, 'search-attributes');
    assert.equal(sa.verdict, 'fail');
    assert.equal(sa.evidence, 'missing: Reconfirmation');
    assert.match(check(r, 'payload-keys').evidence, /no recent workflow to check/);
  });

  it('names a 1-day retention and the command for 30 days, exit 1 (setup alone left it so)', () => {
    assert.equal(setupRuns.short.code, 0, explain(setupRuns.short));
    const r = doctorRuns.short;
    assert.equal(r.code, 1, explain(r));
    const retention = check(r, 'retention');
    assert.equal(retention.verdict, 'fail');
    assert.match(retention.evidence, /retention is 1 day;/);
    assert.match(
      retention.verdict === 'fail' ? retention.breaks : '',
      new RegExp(`temporal operator namespace update .*--namespace ${ns.short} --retention 30d`),
    );
    assert.equal(check(r, 'search-attributes').verdict, 'ok');
  });

  it('names the task queues no worker polls, with order events on, exit 1', () => {
    const r = doctorRuns.idle;
    assert.equal(r.code, 1, explain(r));
    for (const name of ['booking-workers', 'order-events-workers']) {
      const c = check(r, name);
      assert.equal(c.verdict, 'fail', name);
      assert.match(c.evidence, /no worker polls task queue 'test-nobody-/);
    }
  });

  it('names the payload key id the booking was encrypted with and the configured ones, exit 1', () => {
    const r = doctorRuns.wrongKey;
    assert.equal(r.code, 1, explain(r));
    const keys = check(r, 'payload-keys');
    assert.equal(keys.verdict, 'fail');
    assert.match(
      keys.evidence,
      /encrypted with key id "k-test", which is not among PAYLOAD_ENCRYPTION_KEYS' ids \("k-other"\)/,
    );
    // The codec server has the workers' key, not this host's: it cannot decode what this host writes.
    assert.equal(check(r, 'codec-server').verdict, 'fail');
    assert.equal(check(r, 'booking-workers').verdict, 'ok');
  });

  it("the doctor's fallback where listing is refused: queries refuse exactly the missing attribute", async () => {
    const names = PRODUCT_SEARCH_ATTRIBUTES.map((a) => a.name);
    assert.deepEqual(await refusedInQueries(temporal.connection, ns.partial, names), [
      'Reconfirmation',
    ]);
    assert.deepEqual(await refusedInQueries(temporal.connection, ns.fresh, names), []);
  });

  it('prints no payload key and no codec token', () => {
    for (const r of [...Object.values(setupRuns), ...Object.values(doctorRuns)]) {
      const out = r.stdout + r.stderr;
      for (const secret of [KEYS, OTHER_KEYS].map((k) => k.split(':')[1]!)) {
        assert.ok(!out.includes(secret), explain(r));
      }
      assert.ok(!out.includes(CODEC_TOKEN), explain(r));
    }
  });

  it('a namespace that does not exist is one line naming the command that creates it, exit 1', async () => {
    const missing = unique('missing');
    const r = await cli(env(missing))('setup');
    assert.equal(r.code, 1, explain(r));
    assert.equal(r.stderr.trim().split('\n').length, 1, explain(r));
    assert.match(
      r.stderr,
      new RegExp(
        `There is no namespace '${missing}'.*hotel-booking setup --create-namespace.*temporal operator namespace create .*--namespace ${missing} --retention 30d`,
      ),
    );
  });

  it('setup --create-namespace creates a missing namespace with 30 days of retention and prepares it; again, it changes nothing', async () => {
    const made = unique('created');
    const r = await cli(env(made))('--json', 'setup', '--create-namespace');
    assert.equal(r.code, 0, explain(r));
    const report = json<SetupReport>(r);
    assert.deepEqual(report.namespaceCreated, { retentionDays: 30 });
    assert.equal(report.created, PRODUCT_SEARCH_ATTRIBUTES.length);
    const described = await temporal.connection.workflowService.describeNamespace({
      namespace: made,
    });
    assert.equal(
      Number(described.config?.workflowExecutionRetentionTtl?.seconds ?? 0),
      30 * 86_400,
    );
    const again = await cli(env(made))('setup', '--create-namespace');
    assert.equal(again.code, 0, explain(again));
    assert.doesNotMatch(again.stdout, /created, retention/);
    assert.match(again.stdout, /already present: nothing changed/);
  });

  it('an unreachable Temporal is one line: setup exits 3, doctor namespace 2 (not checked)', async () => {
    const closed = `127.0.0.1:${await freePort()}`;
    const [setup, doctor] = await Promise.all([
      cli(env(ns.fresh, { TEMPORAL_ADDRESS: closed }))('setup'),
      cli(env(ns.fresh, { TEMPORAL_ADDRESS: closed }))('--json', 'doctor', 'namespace'),
    ]);
    assert.equal(setup.code, 3, explain(setup));
    assert.equal(setup.stderr.trim().split('\n').length, 1, explain(setup));
    assert.match(setup.stderr, new RegExp(`Cannot reach Temporal at ${closed}`));
    assert.equal(doctor.code, 2, explain(doctor));
    const report = json<NamespaceDoctorReport>(doctor);
    assert.deepEqual(report.stop, { kind: 'unreachable', check: 'temporal-connection' });
    assert.doesNotMatch(doctor.stderr, /\n\s+at /);
  });
});
