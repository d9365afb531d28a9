/**
 * The `work` part's count of the server's persistence requests per workflow: parsed from the
 * server's Prometheus text by operation, differenced over a window, and its medians over rounds.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { metricSumsBy } from '../bench/shared/metrics';
import { medianRequests, requestsPerWorkflow } from '../bench/shared/metrics';

const TEXT = [
  '# HELP persistence_requests Persistence requests',
  '# TYPE persistence_requests counter',
  'persistence_requests{namespace="default",operation="GetCurrentExecution",service_name="history"} 30',
  'persistence_requests{namespace="default",operation="GetCurrentExecution",service_name="frontend"} 12',
  'persistence_requests{operation="GetTransferTasks",service_name="history"} 7',
  'persistence_requests_total{operation="GetTransferTasks"} 1000',
  'persistence_requests{service_name="history"} 99',
  'visibility_persistence_requests{operation="ListWorkflowExecutions"} 4',
  'persistence_latency_bucket{operation="GetTransferTasks",le="0.001"} 5',
  'persistence_latency_sum{operation="GetTransferTasks",service_name="history"} 0.25',
  'persistence_latency_count{operation="GetTransferTasks",service_name="history"} 7',
].join('\n');

describe('bench server counts', () => {
  it('sums a metric by one label, leaving out other metrics and samples without the label', () => {
    assert.deepEqual(
      [...metricSumsBy(TEXT, 'persistence_requests', 'operation')],
      [
        ['GetCurrentExecution', 42],
        ['GetTransferTasks', 7],
      ],
    );
    assert.deepEqual(
      [...metricSumsBy(TEXT, 'visibility_persistence_requests', 'operation')],
      [['ListWorkflowExecutions', 4]],
    );
    // A histogram's sum, not its buckets or count: the seconds its requests took.
    assert.deepEqual(
      [...metricSumsBy(TEXT, 'persistence_latency_sum', 'operation')],
      [['GetTransferTasks', 0.25]],
    );
  });

  it('divides what a window added by its workflows, and takes medians over rounds', () => {
    const before = new Map([['persistence:Get', 10]]);
    const after = new Map([
      ['persistence:Get', 40],
      ['visibility:List', 10],
    ]);
    assert.deepEqual(requestsPerWorkflow(before, after, 10), {
      'persistence:Get': 3,
      'visibility:List': 1,
    });
    const rounds: Record<string, number>[] = [
      { 'persistence:Get': 3, 'visibility:List': 1, 'persistence:Rare': 0.01 },
      { 'persistence:Get': 2 },
      { 'persistence:Get': 4, 'visibility:List': 1.5 },
    ];
    // Largest first; a round without an operation counts 0; under 0.05 a workflow left out.
    assert.deepEqual(medianRequests(rounds), { 'persistence:Get': 3, 'visibility:List': 1 });
    assert.deepEqual(Object.keys(medianRequests(rounds)), ['persistence:Get', 'visibility:List']);
  });
});
