/**
 * The Grafana dashboard (deploy/grafana/hotel-booking-fleet.json) shows every series the alert
 * rules (deploy/prometheus/alerts.yml) read, as docs/runbooks.md promises: the person an alert
 * pages sees its series beside the others. Without a server: the metric names of each alert's
 * expression against those of the panels' queries (test/ops/alerts-end-to-end.test.ts checks
 * that a real worker and server export them).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { alertRules, dashboardExpressions, promqlMetricNames, type AlertRule } from './alert-files';

const DASHBOARD = join(__dirname, '..', '..', 'deploy', 'grafana', 'hotel-booking-fleet.json');

/** `alert: series` for each series an alert reads that no panel of the dashboard queries. */
function seriesMissingFromDashboard(
  rules: readonly Pick<AlertRule, 'alert' | 'expr'>[],
  dashboard: unknown,
): string[] {
  const shown = new Set(
    dashboardExpressions(dashboard).flatMap(({ expr }) => [...promqlMetricNames(expr)]),
  );
  return rules.flatMap((r) =>
    [...promqlMetricNames(r.expr)].filter((n) => !shown.has(n)).map((n) => `${r.alert}: ${n}`),
  );
}

describe('the Grafana dashboard', () => {
  const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as unknown;

  it('shows every series an alert reads', () => {
    const rules = alertRules();
    assert.ok(rules.length >= 10, `${rules.length} alerts`);
    assert.deepEqual(seriesMissingFromDashboard(rules, dashboard), []);
  });

  it('a series no panel shows is told apart (the check above can fail)', () => {
    const panels = {
      panels: [
        { title: 'Supplier', targets: [{ expr: 'sum(rate(hotel_supplier_calls_total[5m]))' }] },
        { title: 'row', panels: [{ targets: [{ expr: 'max(hotel_order_events_failing)' }] }] },
      ],
    };
    assert.deepEqual(
      seriesMissingFromDashboard(
        [
          {
            alert: 'Shown',
            expr: 'sum(increase(hotel_supplier_calls_total{status="429"}[5m])) > 0',
          },
          { alert: 'InARow', expr: 'max(hotel_order_events_failing) > 0' },
          {
            alert: 'Hidden',
            expr: 'absent(hotel_cancellations_unconfirmed) and on () (count(up{job="w"} == 1) > 0)',
          },
        ],
        panels,
      ),
      ['Hidden: hotel_cancellations_unconfirmed', 'Hidden: up'],
    );
  });
});
