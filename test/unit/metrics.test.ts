/**
 * The Grafana dashboard and the Prometheus alert rules in infra/observability name only
 * metrics this process exports, and the alerts are the ones the runbook describes.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { registry } from '../../shared/metrics.ts';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const dashboard = JSON.parse(read('infra/observability/grafana-dashboard.json')) as {
  panels: Array<{ title: string; targets: Array<{ expr: string }> }>;
};
const rules = read('infra/observability/prometheus-alerts.yml');
const runbook = read('docs/operations.md');

const METRIC = /\b(?:sluice|process|nodejs)_[a-z0-9_]+\b/g;
const ruleExprs = [...rules.matchAll(/^\s+expr: (.+)$/gm)].map((m) => m[1]!);
const alertNames = [...rules.matchAll(/^\s+- alert: (\S+)$/gm)].map((m) => m[1]!);

/** Every series name the registry exports: histograms as their _bucket, _sum and _count. */
async function exported(): Promise<Set<string>> {
  const names = new Set<string>();
  for (const metric of await registry.getMetricsAsJSON()) {
    names.add(metric.name);
    if (String(metric.type) === 'histogram')
      for (const s of ['_bucket', '_sum', '_count']) names.add(metric.name + s);
  }
  return names;
}

describe('dashboard and alert rules', () => {
  it('name only metrics that exist', async () => {
    const exprs = [...dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr)), ...ruleExprs];
    const named = new Set(exprs.flatMap((expr) => expr.match(METRIC) ?? []));
    expect(named.size).toBeGreaterThan(15);
    const names = await exported();
    expect([...named].filter((name) => !names.has(name))).toEqual([]);
  });

  it('has a panel for every metric family people look for first', () => {
    const all = JSON.stringify(dashboard);
    for (const metric of [
      'sluice_http_requests_total',
      'sluice_http_request_duration_seconds_bucket',
      'sluice_read_duration_seconds_bucket',
      'sluice_write_bytes_total',
      'sluice_read_bytes_total',
      'sluice_build_info',
      'process_cpu_seconds_total',
    ]) {
      expect([metric, all.includes(metric)]).toEqual([metric, true]);
    }
  });

  it('alerts exactly as the runbook says, each rule named there with its expression', () => {
    expect(alertNames.length).toBe(ruleExprs.length);
    const section = runbook.slice(runbook.indexOf('## Alerts'));
    const documented = [...section.matchAll(/^\| `(Sluice[A-Za-z]+)` +\| `([^`]+)`/gm)].map((m) => [
      m[1],
      m[2],
    ]);
    expect(documented).toEqual(alertNames.map((name, i) => [name, ruleExprs[i]]));
  });
});
