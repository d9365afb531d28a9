/**
 * Orders from a plain client, fuzzed: the Temporal SDK's own client (its default converter, with
 * the 30-line codec an order system in another language writes, or with no codec at all) against
 * the local stack (a dev server, the simulator, the worker in-process). Hostile starts, payloads,
 * update and query arguments, and racing starts of one order (docs/fuzzing.md).
 *
 * For every input: a start ends in a decision, or in `FAILED` / `INVALID_INPUT` naming a field,
 * within its deadline; an update is taken or refused by its validator; a query answers or is
 * refused. Afterwards every run's history is read: no workflow task may have failed. The supplier
 * holds at most one booking per order, and one for each order decided CONFIRMED.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Client,
  Connection,
  WithStartWorkflowOperation,
  type WorkflowHandle,
} from '@temporalio/client';
import { loadConfig } from '../../src/config';
import { EncryptionCodec } from '../../src/codec/encryption-codec';
import { temporalConnectionOptions } from '../../src/client/connection-options';
import { startLocalStack, type LocalStack } from '../stack/local-stack';
import { surfaceTemporal, type SurfaceTemporal } from './temporal';
import { defect, tally, type CampaignOptions, type Surface, type Tally } from './campaign';
import { orderInputs, PII, validInput, type OrderInput, type RaceCall } from './order-inputs';
import { rawPayload } from './bare-converter';
import { decisionOf, historyFailures, refusalOf, within } from './order-checks';

const DECISION_MS = 20_000;
const IN_FLIGHT = 6;

interface Run {
  readonly stack: LocalStack;
  /** The SDK's client with the order system's codec. */
  readonly coded: Client;
  /** The SDK's client with no codec, sending payloads as they are. */
  readonly bare: Client;
  readonly taskQueue: string;
  /** Orders held open (confirmed, guarded) for updates and queries. */
  readonly targets: string[];
  readonly orders: Map<string, string | undefined>;
  /** What each workflow was sent, to name the input of a failed workflow task. */
  readonly sent: Map<string, string>;
  readonly t: Tally;
}

const workflowId = (orderId: string) => `booking-${orderId}`;
const newOrderId = () => `fuzz-${randomUUID().slice(0, 13)}`;

function withOrderId(input: unknown, orderId: string): unknown {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return input;
  const o = input as Record<string, unknown>;
  return o.orderId === 'ORDER' ? { ...o, orderId } : o;
}

function startOp(run: Run, orderId: string, input: unknown, policy: 'USE_EXISTING' | 'FAIL') {
  return new WithStartWorkflowOperation('bookRoom', {
    workflowId: workflowId(orderId),
    taskQueue: run.taskQueue,
    args: [input],
    workflowIdConflictPolicy: policy,
  });
}

/** A start of `input`: its decision, or its refusal naming a field. */
async function tryStart(run: Run, input: OrderInput & { kind: 'start' }): Promise<void> {
  const orderId = newOrderId();
  const label = `start ${input.mutated}: ${JSON.stringify(input.input)?.slice(0, 120)}`;
  run.sent.set(workflowId(orderId), label);
  const answer = await within(
    DECISION_MS,
    run.coded.workflow.executeUpdateWithStart('outcome', {
      startWorkflowOperation: startOp(run, orderId, withOrderId(input.input, orderId), 'FAIL'),
    }),
  );
  if (answer === 'stuck') return defect(run.t, 'stuck', label, `no decision in ${DECISION_MS} ms`);
  const decision = decisionOf(answer);
  if (!decision.ok) return defect(run.t, 'unclear', label, decision.why);
  if (JSON.stringify(decision.value).includes(PII)) defect(run.t, 'leaks', label, 'personal data');
  const { searchAttributes } = await run.coded.workflow.getHandle(workflowId(orderId)).describe();
  if (JSON.stringify(searchAttributes).includes(PII))
    defect(run.t, 'leaks', label, 'personal data in a search attribute');
  run.orders.set(orderId, decision.outcome);
}

/** A payload no converter of ours wrote: the run must end, refused, not loop. */
async function tryRaw(run: Run, input: OrderInput & { kind: 'raw' }): Promise<void> {
  const orderId = newOrderId();
  run.sent.set(workflowId(orderId), input.what);
  const handle = await run.bare.workflow.start('bookRoom', {
    workflowId: workflowId(orderId),
    taskQueue: run.taskQueue,
    args: [rawPayload(input.payload)],
  });
  const ended = await within(DECISION_MS, run.coded.workflow.getHandle(handle.workflowId).result());
  if (ended === 'stuck') return defect(run.t, 'stuck', input.what, 'the run did not end');
  const decision = decisionOf(ended);
  if (!decision.ok) return defect(run.t, 'unclear', input.what, decision.why);
  run.orders.set(orderId, decision.outcome);
}

async function tryUpdateOrQuery(
  run: Run,
  input: OrderInput & { kind: 'update' | 'query' },
  n: number,
): Promise<void> {
  const handle: WorkflowHandle = run.coded.workflow.getHandle(
    workflowId(run.targets[n % run.targets.length]!),
  );
  const label = `${input.kind} ${input.name}: ${JSON.stringify(input.arg)?.slice(0, 120)}`;
  run.sent.set(handle.workflowId, label);
  const call =
    input.kind === 'update'
      ? handle.executeUpdate(input.name, { args: [input.arg] })
      : handle.query(input.name, input.arg);
  const answer = await within(DECISION_MS, call);
  if (answer === 'stuck') return defect(run.t, 'stuck', label, 'no answer');
  if (answer.ok) {
    if (JSON.stringify(answer.value ?? null).includes(PII)) defect(run.t, 'leaks', label, 'PII');
    return;
  }
  const why = refusalOf(answer.error);
  if (why.includes(PII)) defect(run.t, 'leaks', label, 'personal data in a refusal');
  if (!why) defect(run.t, 'unclear', label, `a refusal without a reason: ${String(answer.error)}`);
}

/** Several calls for one order at once: one decision, at most one supplier booking. */
async function tryRace(run: Run, input: OrderInput & { kind: 'race' }): Promise<void> {
  const orderId = newOrderId();
  const payload = validInput(orderId);
  run.sent.set(workflowId(orderId), `race ${input.calls.join(' + ')}`);
  const call = (c: RaceCall) => {
    const wf = run.coded.workflow;
    const opts = { workflowId: workflowId(orderId), taskQueue: run.taskQueue, args: [payload] };
    if (c === 'update-with-start')
      return wf.executeUpdateWithStart('outcome', {
        startWorkflowOperation: startOp(run, orderId, payload, 'USE_EXISTING'),
      });
    if (c === 'outcome-alone') return wf.getHandle(opts.workflowId).executeUpdate('outcome');
    return wf.start('bookRoom', {
      ...opts,
      ...(c === 'start-terminate' ? { workflowIdConflictPolicy: 'TERMINATE_EXISTING' } : {}),
    });
  };
  await Promise.all(input.calls.map((c) => within(DECISION_MS, call(c))));
  const decided = await within(
    DECISION_MS,
    run.coded.workflow.executeUpdateWithStart('outcome', {
      startWorkflowOperation: startOp(run, orderId, payload, 'USE_EXISTING'),
    }),
  );
  const label = `race ${input.calls.join(' + ')}`;
  if (decided === 'stuck') return defect(run.t, 'stuck', label, 'no decision after the race');
  const decision = decisionOf(decided);
  if (!decision.ok) return defect(run.t, 'unclear', label, decision.why);
  run.orders.set(orderId, decision.outcome);
}

async function one(run: Run, input: OrderInput, n: number): Promise<void> {
  if (input.kind === 'start') return tryStart(run, input);
  if (input.kind === 'raw') return tryRaw(run, input);
  if (input.kind === 'race') return tryRace(run, input);
  return tryUpdateOrQuery(run, input, n);
}

/** Bookings at the supplier per order: none lost, none twice. */
function countBookings(run: Run): void {
  const sim = run.stack.simulator!;
  for (const [orderId, outcome] of run.orders) {
    const held = sim.bookings({ customFields: { custom_field_10: orderId } }).length;
    if (held > 1) defect(run.t, 'duplicated', orderId, `${held} supplier bookings`);
    if (outcome === 'CONFIRMED' && held === 0) defect(run.t, 'lost', orderId, 'confirmed, none');
  }
}

async function startRun(o: CampaignOptions, dir: string, temporal: SurfaceTemporal): Promise<Run> {
  const taskQueue = `fuzz-orders-${o.seed}-${randomUUID().slice(0, 8)}`;
  const stack = await startLocalStack({
    temporal: { kind: 'existing', address: temporal.address },
    supplier: { kind: 'simulator' },
    config: loadConfig({ ...temporal.env, TEMPORAL_TASK_QUEUE: taskQueue }),
    log: () => {},
    sdkLog: { to: { file: join(dir, 'worker.log') }, level: 'WARN' },
  });
  const codec = new EncryptionCodec(stack.config.encryption);
  const options = { namespace: stack.namespace };
  const coded = new Client({
    ...options,
    connection: await Connection.connect(temporalConnectionOptions(stack.config.temporal)),
    dataConverter: { payloadCodecs: [codec] },
  });
  const bare = new Client({
    ...options,
    connection: coded.connection,
    dataConverter: { payloadConverterPath: require.resolve('./bare-converter') },
  });
  const run: Run = {
    stack,
    coded,
    bare,
    taskQueue,
    targets: [],
    orders: new Map(),
    sent: new Map(),
    t: tally('orders', { workflows: true, bookings: true }),
  };
  for (let i = 0; i < 3; i++) {
    const orderId = newOrderId();
    await coded.workflow.executeUpdateWithStart('outcome', {
      startWorkflowOperation: startOp(run, orderId, validInput(orderId), 'USE_EXISTING'),
    });
    run.targets.push(orderId);
    run.orders.set(orderId, 'CONFIRMED');
  }
  return run;
}

async function runOrders(o: CampaignOptions): Promise<Tally> {
  const dir = mkdtempSync(join(tmpdir(), 'fuzz-orders-'));
  const temporal = await surfaceTemporal();
  const run = await startRun(o, dir, temporal).catch(async (err: unknown) => {
    await temporal.stop();
    throw err;
  });
  let crashed = false;
  void run.stack.workerStopped.then(
    () => (crashed = true),
    () => (crashed = true),
  );
  try {
    const inputs = orderInputs(o.seed, o.count);
    let next = 0;
    const lane = async () => {
      while (next < inputs.length && Date.now() < o.until && !crashed) {
        const n = next++;
        run.t.inputs += 1;
        await one(run, inputs[n]!, n).catch((err: unknown) =>
          defect(run.t, 'crashes', inputs[n]!.kind, `threw: ${String(err)}`),
        );
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
    if (crashed) defect(run.t, 'crashes', '(the campaign)', 'the worker stopped');
    countBookings(run);
    // The worker's log, when this process's runtime writes it there (npm run fuzz; not under npm test).
    const log = join(dir, 'worker.log');
    if (existsSync(log) && readFileSync(log, 'utf8').includes(PII))
      defect(run.t, 'leaks', '(the worker log)', 'personal data in a log line');
    for (const f of await historyFailures(run.coded, run.taskQueue))
      defect(run.t, 'taskFailures', run.sent.get(f.workflowId) ?? f.workflowId, f.message);
    return run.t;
  } finally {
    await run.stack.stop();
    await temporal.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

export const ordersSurface: Surface = { name: 'orders', run: runOrders };
