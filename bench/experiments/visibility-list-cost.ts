/**
 * `npx tsx bench/experiments/visibility-list-cost.ts`: what one list of an order's runs costs a dev server, in
 * its own CPU time, with Temporal's default division filter and with the check of earlier runs'
 * query (`everyRunQuery`, every division), as the visibility table grows. Starts its own dev server
 * (in memory), starts LIST_ROWS workflows that nobody runs (default 15,000), then asks each list
 * LIST_CALLS times (default 2,000, 10 at a time) for ids spread over the table. Prints server CPU
 * ms and wall ms per call, and checks that each list finds its one run.
 */
import { Client, Connection } from '@temporalio/client';
import { everyRunQuery } from '../../src/activities/earlier-runs';
import { startDevServer } from '../../tools/temporal-server/dev-server';
import { cpuSeconds } from '../shared/processes';

const rows = Number(process.env.LIST_ROWS ?? 15_000);
const calls = Number(process.env.LIST_CALLS ?? 2_000);

const cpuMs = (pid: number) => cpuSeconds(pid) * 1000;

async function main(): Promise<void> {
  const server = await startDevServer({ headless: true });
  const connection = await Connection.connect({ address: server.address });
  try {
    const client = new Client({ connection, namespace: 'default' });
    const id = (i: number) => `booking-list-cost-${i % rows}`;
    for (let i = 0; i < rows; i += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, rows - i) }, (_, j) =>
          client.workflow.start('nobodyRunsThis', {
            taskQueue: 'nobody-polls',
            workflowId: id(i + j),
          }),
        ),
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 2_000)); // visibility catches up
    const queries = {
      'default filter': (workflowId: string) => `WorkflowId = '${workflowId}'`,
      'every division (the product)': everyRunQuery,
    };
    for (let round = 1; round <= 2; round++) {
      for (const [name, query] of Object.entries(queries)) {
        const cpu0 = cpuMs(server.pid!);
        const t0 = Date.now();
        for (let i = 0; i < calls; i += 10) {
          await Promise.all(
            Array.from({ length: 10 }, async (_, j) => {
              const workflowId = id((i + j) * 7);
              const page = await connection.workflowService.listWorkflowExecutions({
                namespace: 'default',
                pageSize: 100,
                query: query(workflowId),
              });
              if (page.executions.length !== 1) {
                throw new Error(`${name}: ${page.executions.length} runs of ${workflowId}`);
              }
            }),
          );
        }
        const perCall = (ms: number) => (ms / calls).toFixed(2);
        console.log(
          `round ${round}, ${rows} workflows, ${name}: ${perCall(cpuMs(server.pid!) - cpu0)} ms of server CPU, ${perCall(Date.now() - t0)} ms wall per list`,
        );
      }
    }
  } finally {
    await connection.close();
    await server.stop();
  }
}

void main().catch((err: unknown) => {
  console.error(String(err));
  process.exitCode = 1;
});
