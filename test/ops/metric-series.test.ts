/**
 * The one list of metric series (src/observability/metric-series.ts) is what the code exports:
 * the worker's registry holds exactly its worker series (name, type, labels, HELP), and the
 * workflows create exactly its workflow counters through the SDK's meter.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { buildMetricsServer, createWorkerMetrics } from '../../src/observability/metrics';
import {
  SDK_PREFIX,
  SDK_SERIES,
  WORKER_SERIES,
  WORKFLOW_SERIES,
  allMetricSeries,
} from '../../src/observability/metric-series';

const ROOT = join(__dirname, '..', '..');

describe('the list of metric series', () => {
  it("the worker's registry, with every optional source, holds exactly the worker series", async () => {
    const { registry } = createWorkerMetrics({
      defaultMetrics: false,
      orderEventsFailing: () => 0,
      bookingCounter: { get: () => Promise.reject(new Error('not counted here')) },
    });
    // The SDK's health gauge is registered by the server that appends the SDK's exposition.
    buildMetricsServer({ registry, sdkMetricsUrl: 'http://127.0.0.1:9/metrics' });
    const registered = registry.getMetricsAsArray().map((m) => {
      const metric = m as unknown as { name: string; help: string; labelNames?: string[] };
      return {
        name: metric.name,
        type: String(m.type),
        labels: [...(metric.labelNames ?? [])],
        meaning: metric.help,
      };
    });
    const listed = Object.values(WORKER_SERIES).map((s) => ({
      name: s.name,
      type: s.type,
      labels: [...s.labels],
      meaning: s.meaning,
    }));
    const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
    assert.deepEqual(registered.sort(byName), listed.sort(byName));
  });

  it('the workflows create exactly the workflow counters, under their meter names', () => {
    const created: string[] = [];
    for (const dir of [
      join(ROOT, 'src', 'workflows'),
      join(ROOT, 'src', 'order-events', 'workflows'),
    ]) {
      for (const file of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
        if (!file.endsWith('.ts')) continue;
        const text = readFileSync(join(dir, file), 'utf8');
        for (const m of text.matchAll(/metricMeter\.create\w+\(\s*'([a-z_]+)'/g))
          created.push(m[1]!);
      }
    }
    assert.deepEqual(
      created.sort(),
      Object.values(WORKFLOW_SERIES)
        .map((s) => s.meterName)
        .sort(),
    );
    for (const s of Object.values(WORKFLOW_SERIES)) assert.equal(s.name, SDK_PREFIX + s.meterName);
  });

  it("names are unique, ours start hotel_, the SDK's temporal_", () => {
    const names = allMetricSeries().map((s) => s.name);
    assert.equal(new Set(names).size, names.length);
    for (const s of Object.values(WORKER_SERIES)) assert.match(s.name, /^hotel_[a-z_]+$/);
    for (const s of SDK_SERIES) assert.match(s.name, /^temporal_[a-z_]+$/);
  });
});
