/**
 * docker-compose.yml and the Dockerfile, checked against the code without a Docker engine: every
 * command names something that exists, every variable given to our services is one the
 * configuration reads (and the whole set loads), ports and healthchecks agree with the
 * configuration, images are pinned and never Alpine, and the Temporal server is set up with the
 * dynamic config and search attributes the code relies on.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { NEWEST_RELEASE, TEMPORAL_UI_VERSION } from '../../src/shared/temporal-releases';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { EnvSchema, loadConfig, parseEnv } from '../../src/config';
import { loadCodecServerConfig } from '../../src/config/codec';
import { ALL_SEARCH_ATTRIBUTE_KEYS } from '../../src/shared/search-attributes';
import { DEV_SERVER_DYNAMIC_CONFIG } from '../../tools/temporal-server/dev-server';
import { clusterServerEnv, SHARED_FILES } from '../../tools/temporal-server/cluster';
import { clusterPorts } from '../../tools/temporal-server/cluster-ports';
import { shutdownGraceMsFor } from '../../src/workflows/activity-options';
import {
  ALERTING_TEMPLATES,
  ALERTING_VARIABLES,
  loadAlertingSettings,
  localAlertingDefaults,
} from '../../tools/alerting/alerting-config';
import { MAX_SEMI_SPACE_MIB } from '../../src/build-worker';

const ROOT = join(__dirname, '..', '..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

interface Service {
  image?: string;
  build?: unknown;
  command?: string | string[];
  entrypoint?: string | string[];
  environment?: Record<string, string | number | boolean | null> | string[];
  ports?: (string | number | { target: number; published?: string | number })[];
  volumes?: (string | { source: string; target: string })[];
  healthcheck?: { test: string | string[] };
  depends_on?: string[] | Record<string, { condition?: string }>;
  stop_grace_period?: string;
}

/**
 * Compose interpolation with an empty environment (what `docker compose up` does when nothing is
 * set): `${VAR:-default}`, `${VAR-default}`, `${VAR}`, `$$`, and a default that is itself
 * interpolated (`${A:-file://${PWD}/x}`, innermost first).
 */
function interpolate(value: string, env: Record<string, string> = {}): string {
  const DOLLAR = '\uE000'; // `$$` kept out of the way (a private-use character)
  let text = value.split('$$').join(DOLLAR);
  for (;;) {
    const next = text.replace(
      /\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?-)([^${}]*))?\}/g,
      (_match, name: string, op: string | undefined, fallback: string | undefined) => {
        const v = env[name];
        if (op === ':-') return v === undefined || v === '' ? (fallback ?? '') : v;
        if (op === '-') return v === undefined ? (fallback ?? '') : v;
        return v ?? '';
      },
    );
    if (next === text) return text.split(DOLLAR).join('$');
    text = next;
  }
}

const compose = parse(read('docker-compose.yml'), { merge: true }) as {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
};
const services = compose.services;
const service = (name: string): Service => {
  const s = services[name];
  assert.ok(s, `docker-compose.yml has a ${name} service`);
  return s;
};
const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string> };

/** Our own image (built from the Dockerfile), as opposed to upstream images. */
const isOurs = (s: Service) => s.build !== undefined;

/** A service's `environment:` as written (before interpolation). */
function rawEnvOf(s: Service): Record<string, string> {
  const raw = s.environment ?? {};
  const entries = Array.isArray(raw)
    ? raw.map((e) => {
        const i = e.indexOf('=');
        return [e.slice(0, i), e.slice(i + 1)] as const;
      })
    : Object.entries(raw).map(([k, v]) => [k, v === null ? '' : String(v)] as const);
  return Object.fromEntries(entries);
}

/** A service's environment as compose gives it, with `shell` set (default: nothing set). */
function envOf(s: Service, shell: Record<string, string> = {}): Record<string, string> {
  return Object.fromEntries(
    Object.entries(rawEnvOf(s)).map(([k, v]) => [k, interpolate(v, shell)]),
  );
}

/** What compose fixes for our services (published and probed ports, the UI's origin). */
const COMPOSE_FIXED = [
  'METRICS_PORT',
  'HEALTH_PORT',
  'TEMPORAL_METRICS_PORT',
  'CODEC_SERVER_PORT',
  'CODEC_CORS_ORIGIN',
];

/**
 * docs/deploying.md's one rule for the variables of our services, broken, one line each: every
 * variable compose sets under `environment:` is taken from the shell or `.env` by its own name
 * (`${NAME}`, `${NAME:-default}`) unless it is one of `fixed`, and the page names it (`named`);
 * none is one the page puts in `hotel-booking.env` (TLS, API key, a `*_FILE` form), which
 * `environment:` would override.
 */
function composeRuleBreaks(
  environment: Record<string, string>,
  named: ReadonlySet<string>,
  fixed: readonly string[],
): string[] {
  const breaks: string[] = [];
  for (const [key, value] of Object.entries(environment)) {
    if (/^TEMPORAL_TLS|^TEMPORAL_API_KEY|_FILE$/.test(key))
      breaks.push(`${key}: belongs in hotel-booking.env`);
    else if (fixed.includes(key)) {
      if (value.includes('$')) breaks.push(`${key}: fixed, yet taken from the shell`);
    } else if (!new RegExp(`^\\$\\{${key}(?::?-[^}]*)?\\}$`).test(value))
      breaks.push(`${key}: not taken from the shell (${value})`);
    if (!named.has(key)) breaks.push(`${key}: not named by docs/deploying.md`);
  }
  return breaks;
}

function argv(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : value.split(/\s+/)).map((a) => interpolate(String(a)));
}

/** `[{ published, target }]` of a service's `ports`. */
function portsOf(s: Service): { published?: number; target: number }[] {
  return (s.ports ?? []).map((p) => {
    if (typeof p === 'object') {
      return {
        target: p.target,
        ...(p.published !== undefined ? { published: Number(p.published) } : {}),
      };
    }
    const parts = interpolate(String(p)).split(':');
    const target = Number(parts.at(-1));
    return parts.length > 1 ? { published: Number(parts.at(-2)), target } : { target };
  });
}

/**
 * Named volumes that hold files rendered from templates of the repository: the volume, the
 * service that renders into it, and each file's template.
 */
const RENDERED_VOLUMES: Record<string, { by: string; files: Record<string, string> }> = {
  'alerting-config': { by: 'alerting-config', files: ALERTING_TEMPLATES },
};

/**
 * Host path of a path inside the container, through the service's bind mounts; a file on a
 * rendered volume is its template's path.
 */
function hostPathOf(s: Service, containerPath: string): string | undefined {
  for (const v of s.volumes ?? []) {
    const [source, target] = typeof v === 'string' ? v.split(':') : [v.source, v.target];
    if (source === undefined || target === undefined) continue;
    const rel = posix.relative(target, containerPath);
    if (rel.startsWith('..')) continue;
    if (source.startsWith('.')) return join(ROOT, source, rel);
    const template = RENDERED_VOLUMES[source]?.files[rel];
    if (template) return join(ROOT, template);
  }
  return undefined;
}

/** The files a command runs, relative to the repository (ours) or on the host (mounted). */
function filesRun(s: Service, args: string[]): string[] {
  const [cmd, ...rest] = args;
  if (cmd === 'npm' && rest[0] === 'run') {
    const script = pkg.scripts[rest[1] ?? ''];
    assert.ok(script, `package.json has the script "${rest[1]}"`);
    return filesRun(s, script.split(/\s+/));
  }
  if (cmd === 'node' || cmd === 'tsx') {
    const file = rest.find((a) => /\.(ts|js|mjs|cjs)$/.test(a));
    assert.ok(file, `${args.join(' ')} names a script`);
    // dist/ is the compiled product: dist/x.js is built from src/x.ts.
    const compiled = /^dist\/(.*)\.js$/.exec(file);
    return [join(ROOT, compiled ? `src/${compiled[1]}.ts` : file)];
  }
  if (cmd?.startsWith('--')) {
    // Flags to the image's own entrypoint: the files they name must be mounted from here.
    return args.flatMap((a) => {
      const path = /^--[\w.-]+\.file=(\/.*)$/.exec(a)?.[1];
      if (path === undefined) return [];
      const host = hostPathOf(s, path);
      assert.ok(host, `${path} is mounted from the repository`);
      return [host];
    });
  }
  const entry = argv(s.entrypoint);
  if (entry[0] === '/bin/sh' || entry[0] === 'sh') {
    const host = hostPathOf(s, args[0] ?? '');
    assert.ok(host, `${args[0]} is mounted from the repository`);
    return [host];
  }
  throw new Error(`unrecognised command: ${args.join(' ')}`);
}

/**
 * Variables documented by the upstream images we use (their READMEs and config templates), or by
 * the deploy/ script the service runs (checked separately: the script must read each one).
 */
/** The variables the shared server config template reads (`env "NAME"`). */
const serverTemplate = read(SHARED_FILES.serverConfig);
const TEMPLATE_ENV = [...serverTemplate.matchAll(/env "([A-Z0-9_]+)"/g)].map((m) => m[1]!);

const UPSTREAM_ENV: Record<string, readonly string[]> = {
  // Configured by their mounted files only.
  'prom/prometheus': [],
  'prom/alertmanager': [],
  postgres: ['POSTGRES_USER', 'POSTGRES_PASSWORD', 'POSTGRES_DB', 'PGDATA'],
  // The server runs our config template (deploy/temporal/config/cluster.yaml), not the image's.
  'temporalio/server': TEMPLATE_ENV,
  'temporalio/admin-tools': [
    'TEMPORAL_ADDRESS',
    'TEMPORAL_NAMESPACE',
    'POSTGRES_SEEDS',
    'POSTGRES_USER',
    'DB_PORT',
    'SQL_PASSWORD',
    'NAMESPACE_RETENTION',
  ],
  'temporalio/ui': [
    'TEMPORAL_ADDRESS',
    'TEMPORAL_UI_PORT',
    'TEMPORAL_CORS_ORIGINS',
    'TEMPORAL_CODEC_ENDPOINT',
    'TEMPORAL_CODEC_PASS_ACCESS_TOKEN',
    'TEMPORAL_CODEC_INCLUDE_CREDENTIALS',
  ],
};

const envKeys = new Set(Object.keys(EnvSchema.shape));

/** Whether a service runs the alerting tool (its variables are the tool's, not the product's). */
const rendersAlerting = (s: Service) => argv(s.command).includes('tools/alerting/main.ts');

/** Services others wait for to exit 0 (set-up jobs: no healthcheck, they do not stay up). */
const jobs = new Set(
  Object.values(services).flatMap((s) =>
    Array.isArray(s.depends_on)
      ? []
      : Object.entries(s.depends_on ?? {})
          .filter(([, d]) => d.condition === 'service_completed_successfully')
          .map(([dep]) => dep),
  ),
);

describe('docker-compose.yml', () => {
  it('runs scripts and files that exist in the repository', () => {
    for (const [name, s] of Object.entries(services)) {
      const args = argv(s.command);
      if (args.length === 0) {
        assert.ok(!isOurs(s), `${name}: our services say what they run`);
        continue;
      }
      for (const file of filesRun(s, args)) {
        assert.ok(existsSync(file), `${name}: ${file} exists`);
      }
    }
  });

  it('gives our services only variables the configuration reads, and they load', () => {
    for (const [name, s] of Object.entries(services)) {
      const env = envOf(s);
      if (isOurs(s) && rendersAlerting(s)) {
        // A tool, not the product: the alerting variables, and they load.
        const unknown = Object.keys(env).filter((k) => !(k in ALERTING_VARIABLES));
        assert.deepEqual(unknown, [], `${name}: variables tools/alerting does not read`);
        assert.doesNotThrow(() =>
          loadAlertingSettings(env, localAlertingDefaults('http://127.0.0.1:9')),
        );
      } else if (isOurs(s)) {
        const unknown = Object.keys(env).filter((k) => !envKeys.has(k));
        assert.deepEqual(unknown, [], `${name}: variables not in EnvSchema`);
        assert.doesNotThrow(() => parseEnv(env), `${name}: its environment parses`);
      } else {
        const family = Object.keys(UPSTREAM_ENV).find((f) => s.image?.startsWith(`${f}:`));
        assert.ok(family, `${name}: ${s.image} is an upstream image we know`);
        const undocumented = Object.keys(env).filter((k) => !UPSTREAM_ENV[family]!.includes(k));
        assert.deepEqual(undocumented, [], `${name}: variables ${s.image} does not document`);
      }
    }
    // The worker's whole configuration loads (credentials, keys) with nothing set in the shell.
    assert.doesNotThrow(() => loadConfig(envOf(service('worker'))));
    assert.doesNotThrow(() => loadCodecServerConfig(parseEnv(envOf(service('codec-server')))));
  });

  it('hands deploy scripts only variables they read', () => {
    for (const [name, s] of Object.entries(services)) {
      if (isOurs(s) || argv(s.entrypoint)[0] !== '/bin/sh') continue;
      const script = readFileSync(filesRun(s, argv(s.command))[0]!, 'utf8');
      for (const key of Object.keys(envOf(s))) {
        assert.ok(script.includes(`\${${key}`), `${name}: its script reads ${key}`);
      }
    }
  });

  it('publishes and probes the ports the configuration sets', () => {
    const worker = service('worker');
    const wenv = parseEnv(envOf(worker));
    const targets = portsOf(worker).map((p) => p.target);
    assert.ok(targets.includes(wenv.METRICS_PORT), 'worker publishes METRICS_PORT');
    assert.ok(targets.includes(wenv.HEALTH_PORT), 'worker publishes HEALTH_PORT');
    // The SDK's exporter stays internal (unset: a free loopback port).
    const sdkPort = wenv.TEMPORAL_METRICS_PORT;
    assert.ok(sdkPort === undefined || !targets.includes(sdkPort), 'SDK exporter not published');
    assert.equal(
      new Set([wenv.METRICS_PORT, wenv.HEALTH_PORT, wenv.TEMPORAL_METRICS_PORT]).size,
      3,
    );
    const probe = argv(worker.healthcheck?.test).join(' ');
    assert.match(probe, new RegExp(`:${wenv.HEALTH_PORT}/readyz`), 'worker probes /readyz');

    // The worker reaches Temporal and the simulator where they listen.
    const [temporalHost, temporalPort] = wenv.TEMPORAL_ADDRESS.split(':');
    assert.ok(services[temporalHost!], `TEMPORAL_ADDRESS names the ${temporalHost} service`);
    assert.ok(portsOf(service(temporalHost!)).some((p) => p.target === Number(temporalPort)));
    const sim = service('simulator');
    const simArgs = argv(sim.command);
    const simPort = Number(simArgs[simArgs.indexOf('--port') + 1]);
    assert.equal(wenv.HOTEL_API_BASE_URL, `http://simulator:${simPort}`);
    assert.ok(portsOf(sim).some((p) => p.target === simPort));
    assert.match(argv(sim.healthcheck?.test).join(' '), new RegExp(`:${simPort}/`));
    assert.equal(
      simArgs[simArgs.indexOf('--host') + 1],
      '0.0.0.0',
      'simulator listens beyond loopback',
    );
    // The simulator accepts the company the worker signs as.
    const company = simArgs[simArgs.indexOf('--company') + 1];
    assert.equal(company, `${wenv.HOTEL_API_KEY}:${wenv.HOTEL_API_SECRET}:active`);

    // Codec server, UI and browser agree on ports, origin and token.
    const codec = service('codec-server');
    const cenv = parseEnv(envOf(codec));
    const codecPort = portsOf(codec).find((p) => p.target === cenv.CODEC_SERVER_PORT);
    assert.ok(codecPort?.published, 'codec server publishes CODEC_SERVER_PORT');
    assert.match(
      argv(codec.healthcheck?.test).join(' '),
      new RegExp(`:${cenv.CODEC_SERVER_PORT}/`),
    );
    assert.deepEqual(argv(codec.command).slice(-2), ['--host', '0.0.0.0']);
    const ui = service('temporal-ui');
    const uenv = envOf(ui);
    const uiPort = portsOf(ui).find((p) => p.target === Number(uenv.TEMPORAL_UI_PORT ?? 8080));
    assert.ok(uiPort?.published, 'UI published');
    const uiOrigin = `http://localhost:${uiPort.published}`;
    assert.equal(cenv.CODEC_CORS_ORIGIN, uiOrigin, 'codec server allows the UI origin');
    assert.ok(uenv.TEMPORAL_CORS_ORIGINS?.split(',').includes(uiOrigin));
    const token = loadCodecServerConfig(cenv).token;
    assert.equal(
      uenv.TEMPORAL_CODEC_ENDPOINT,
      `http://localhost:${codecPort.published}/t/${token}`,
      'the UI calls the codec server (from the browser) with its token',
    );
    assert.equal(uenv.TEMPORAL_ADDRESS, wenv.TEMPORAL_ADDRESS);

    // `docker compose stop` waits longer than the worker's drain.
    const grace = /^(\d+)s$/.exec(worker.stop_grace_period ?? '');
    assert.ok(grace, 'worker has stop_grace_period in seconds');
    const drain = wenv.SHUTDOWN_GRACE_MS ?? shutdownGraceMsFor(wenv.HOTEL_API_BOOKING_TIMEOUT_MS);
    assert.ok(Number(grace[1]) * 1000 > drain, `stop_grace_period > the worker's grace ${drain}`);
  });

  it("follows docs/deploying.md's one rule: the shell or .env sets what compose gives our services, hotel-booking.env the rest", () => {
    const page = read('docs/deploying.md');
    const start = page.indexOf('## Docker Compose');
    assert.ok(start >= 0, 'docs/deploying.md has its Docker Compose section');
    const section = page.slice(start, page.indexOf('\n## ', start + 1));
    const named = new Set(
      [...section.matchAll(/`([A-Z][A-Z0-9_]+)(?:=[^`]*)?`/g)].map((m) => m[1]!),
    );
    for (const name of ['worker', 'codec-server']) {
      assert.deepEqual(composeRuleBreaks(rawEnvOf(service(name)), named, COMPOSE_FIXED), [], name);
    }
    // The worker pointed at another Temporal from the shell: it goes there, and the setup job
    // prepares the worker's namespace.
    const shell = { TEMPORAL_ADDRESS: 'temporal.internal:7233', TEMPORAL_NAMESPACE: 'bookings' };
    const worker = envOf(service('worker'), shell);
    assert.equal(worker.TEMPORAL_ADDRESS, shell.TEMPORAL_ADDRESS);
    assert.equal(worker.TEMPORAL_NAMESPACE, shell.TEMPORAL_NAMESPACE);
    assert.equal(envOf(service('temporal-setup'), shell).TEMPORAL_NAMESPACE, 'bookings');
    assert.doesNotThrow(() => loadConfig(worker));
  });

  it('a variable that breaks the rule is told apart (the check above can fail)', () => {
    assert.deepEqual(
      composeRuleBreaks(
        {
          TEMPORAL_ADDRESS: 'temporal:7233',
          TEMPORAL_NAMESPACE: '${TEMPORAL_NAMESPACE:-default}',
          LOG_LEVEL: '${OTHER_LEVEL:-info}',
          TEMPORAL_TLS_CA: '${TEMPORAL_TLS_CA:-}',
          METRICS_PORT: '${METRICS_PORT:-9464}',
          HEALTH_PORT: '8081',
          ORDER_EVENTS_URL: '${ORDER_EVENTS_URL:-}',
        },
        new Set(['TEMPORAL_ADDRESS', 'TEMPORAL_NAMESPACE', 'LOG_LEVEL', 'METRICS_PORT']),
        ['METRICS_PORT', 'HEALTH_PORT'],
      ),
      [
        'TEMPORAL_ADDRESS: not taken from the shell (temporal:7233)',
        'LOG_LEVEL: not taken from the shell (${OTHER_LEVEL:-info})',
        'TEMPORAL_TLS_CA: belongs in hotel-booking.env',
        'TEMPORAL_TLS_CA: not named by docs/deploying.md',
        'METRICS_PORT: fixed, yet taken from the shell',
        'HEALTH_PORT: not named by docs/deploying.md',
        'ORDER_EVENTS_URL: not named by docs/deploying.md',
      ],
    );
  });

  it('has a healthcheck wherever a dependency waits for health', () => {
    for (const [name, s] of Object.entries(services)) {
      const deps = s.depends_on ?? {};
      const entries = Array.isArray(deps)
        ? deps.map((d) => [d, {}] as const)
        : Object.entries(deps);
      for (const [dep, { condition }] of entries as [string, { condition?: string }][]) {
        assert.ok(services[dep], `${name} depends on an existing service ${dep}`);
        if (condition === 'service_healthy') {
          assert.ok(services[dep]!.healthcheck, `${dep} has a healthcheck (${name} waits for it)`);
        }
      }
      if (!jobs.has(name))
        assert.ok(
          s.healthcheck || s.image?.startsWith('temporalio/ui:'),
          `${name} has a healthcheck`,
        );
    }
  });

  it('pins every image by version, and none is Alpine', () => {
    for (const [name, s] of Object.entries(services)) {
      const image = s.image;
      assert.ok(image, `${name} names its image`);
      assert.doesNotMatch(image, /alpine/i, `${name}: no Alpine`);
      if (isOurs(s)) continue;
      const tag = /:([^/:@]+)$/.exec(image)?.[1];
      assert.ok(tag && tag !== 'latest' && /\d+\.\d+/.test(tag), `${name}: ${image} is pinned`);
    }
  });

  it('runs the Temporal release and UI the native topologies run (the newest supported)', () => {
    for (const [name, s] of Object.entries(services)) {
      const [family, tag] = (s.image ?? '').split(':');
      if (family === 'temporalio/server' || family === 'temporalio/admin-tools') {
        assert.equal(tag, NEWEST_RELEASE, `${name}: ${s.image}`);
      }
      if (family === 'temporalio/ui') assert.equal(tag, TEMPORAL_UI_VERSION, `${name}: ${s.image}`);
    }
  });

  it('runs Prometheus with the alert rules, scraping the worker and the server where they serve', () => {
    const prometheus = service('prometheus');
    const [configFile] = filesRun(prometheus, argv(prometheus.command));
    assert.ok(configFile && existsSync(configFile), 'its configuration is mounted from deploy/');
    const config = parse(readFileSync(configFile, 'utf8')) as {
      rule_files: string[];
      scrape_configs: { job_name: string; static_configs: { targets: string[] }[] }[];
    };
    // The rules rendered from deploy/prometheus/alerts.yml (runbook links made absolute).
    const rules = config.rule_files.map((f) => hostPathOf(prometheus, f));
    assert.deepEqual(rules, [join(ROOT, 'deploy', 'prometheus', 'alerts.yml')]);
    const targets = (job: string) =>
      config.scrape_configs
        .filter((c) => c.job_name === job)
        .flatMap((c) => c.static_configs.flatMap((sc) => sc.targets));
    // The worker job is the one the workers-down alert reads `up` of.
    const rulesText = readFileSync(rules[0]!, 'utf8');
    assert.match(rulesText, /absent\(up\{job="hotel-worker"\} == 1\)/);
    const wenv = parseEnv(envOf(service('worker')));
    assert.deepEqual(targets('hotel-worker'), [`worker:${wenv.METRICS_PORT}`]);
    const serverMetrics = envOf(service('temporal')).PROMETHEUS_ENDPOINT?.split(':').at(-1);
    assert.deepEqual(targets('temporal-server'), [`temporal:${serverMetrics}`]);
    // The server's template listens where PROMETHEUS_ENDPOINT says.
    assert.match(read('deploy/temporal/config/cluster.yaml'), /env "PROMETHEUS_ENDPOINT"/);
    assert.ok(portsOf(prometheus).some((p) => p.target === 9090));
  });

  it('sends the alerts through Alertmanager, rendered from deploy/ with the variables, to the local receiver by default', () => {
    const prometheus = service('prometheus');
    const alertmanager = service('alertmanager');
    const render = service('alerting-config');
    const receiver = service('alert-receiver');
    const [configFile] = filesRun(prometheus, argv(prometheus.command));
    const config = parse(readFileSync(configFile!, 'utf8')) as {
      alerting: { alertmanagers: { static_configs: { targets: string[] }[] }[] };
    };
    // Prometheus sends to Alertmanager where it listens (its default port: no listen flag).
    const amArgs = argv(alertmanager.command);
    assert.ok(!amArgs.some((a) => a.startsWith('--web.listen-address')));
    assert.deepEqual(
      config.alerting.alertmanagers.flatMap((a) => a.static_configs.flatMap((c) => c.targets)),
      ['alertmanager:9093'],
    );
    assert.ok(portsOf(alertmanager).some((p) => p.target === 9093 && p.published));
    assert.match(argv(alertmanager.healthcheck?.test).join(' '), /:9093\/-\/ready/);
    assert.ok(amArgs.includes('--cluster.listen-address='), 'one instance: no gossip port');
    assert.deepEqual(filesRun(alertmanager, amArgs), [
      join(ROOT, 'deploy', 'alertmanager', 'alertmanager.yml'),
    ]);

    // The renderer writes into the volume both read, from the templates mounted where it looks
    // for them (the tools image's /app), before either starts.
    const args = argv(render.command);
    const out = args[args.indexOf('--out') + 1];
    const mountOf = (s: Service, source: string) =>
      (s.volumes ?? [])
        .map((v) => (typeof v === 'string' ? v.split(':') : [v.source, v.target]))
        .find(([src]) => src === source)?.[1];
    assert.equal(mountOf(render, 'alerting-config'), out, 'render --out is the volume');
    assert.equal(mountOf(render, './deploy'), '/app/deploy');
    for (const s of [prometheus, alertmanager]) {
      assert.ok(mountOf(s, 'alerting-config'), 'reads the rendered volume');
      const deps = s.depends_on as Record<string, { condition?: string }>;
      assert.equal(deps['alerting-config']?.condition, 'service_completed_successfully');
    }

    // Nothing set: warnings and critical alerts reach the local receiver, on its routes.
    const recArgs = argv(receiver.command);
    const port = recArgs[recArgs.indexOf('--port') + 1];
    assert.equal(recArgs[recArgs.indexOf('--host') + 1], '0.0.0.0');
    const defaults = loadAlertingSettings(envOf(render), localAlertingDefaults('http://x:1'));
    assert.equal(defaults.criticalWebhookUrl, `http://alert-receiver:${port}/critical`);
    assert.equal(defaults.warningWebhookUrl, `http://alert-receiver:${port}/warning`);
    // The runbook links default to this checkout's page, from the shell's working directory.
    const raw = render.environment as Record<string, string>;
    assert.equal(
      interpolate(raw.RUNBOOK_BASE_URL!, { PWD: '/home/me/hotel-booking-orchestrator' }),
      'file:///home/me/hotel-booking-orchestrator/docs/runbooks.md',
    );
    // Set: they go where the variables say.
    const set = {
      ALERTMANAGER_CRITICAL_WEBHOOK_URL: 'https://pager.example/hook',
      RUNBOOK_BASE_URL: 'https://git.example/docs/runbooks.md',
    };
    const env = Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, interpolate(v, set)]));
    const chosen = loadAlertingSettings(env, localAlertingDefaults('http://x:1'));
    assert.equal(chosen.criticalWebhookUrl, set.ALERTMANAGER_CRITICAL_WEBHOOK_URL);
    assert.equal(chosen.warningWebhookUrl, `http://alert-receiver:${port}/warning`);
    assert.equal(chosen.runbookBaseUrl, set.RUNBOOK_BASE_URL);
  });

  it('sets up Temporal with the dynamic config and search attributes the code relies on', () => {
    const temporal = service('temporal');
    const path = envOf(temporal).DYNAMIC_CONFIG_FILE_PATH;
    assert.ok(path);
    const hostFile = hostPathOf(
      temporal,
      posix.isAbsolute(path) ? path : posix.join('/etc/temporal', path),
    );
    assert.ok(hostFile && existsSync(hostFile), `${path} is mounted from the repository`);
    const dynamic = parse(readFileSync(hostFile, 'utf8')) as Record<string, { value: unknown }[]>;
    for (const [key, value] of Object.entries(DEV_SERVER_DYNAMIC_CONFIG)) {
      assert.deepEqual(dynamic[key]?.[0]?.value, JSON.parse(value), `dynamic config ${key}`);
    }

    const setup = service('temporal-setup');
    const script = readFileSync(filesRun(setup, argv(setup.command))[0]!, 'utf8');
    const declared = /SEARCH_ATTRIBUTES="([^"]*)"/.exec(script)?.[1]?.split(/\s+/) ?? [];
    const cliType = (t: string) =>
      t
        .toLowerCase()
        .split('_')
        .map((w) => w[0]!.toUpperCase() + w.slice(1))
        .join('');
    assert.deepEqual(
      declared.sort(),
      ALL_SEARCH_ATTRIBUTE_KEYS.map((k) => `${k.name}=${cliType(k.type)}`).sort(),
    );
    assert.equal(
      envOf(setup).TEMPORAL_NAMESPACE,
      parseEnv(envOf(service('worker'))).TEMPORAL_NAMESPACE,
    );
  });
});

describe('Dockerfile', () => {
  const dockerfile = read('Dockerfile');
  const lines = dockerfile
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  const args = Object.fromEntries(
    lines
      .filter((l) => l.startsWith('ARG '))
      .map((l) => l.slice(4).split('='))
      .filter((kv): kv is [string, string] => kv.length === 2),
  );
  const resolve = (s: string) => s.replace(/\$\{?(\w+)\}?/g, (_m, k: string) => args[k] ?? _m);

  it('builds on a pinned slim Debian Node image, never Alpine', () => {
    const bases = lines
      .filter((l) => l.startsWith('FROM '))
      .map((l) => resolve(l.split(/\s+/)[1]!))
      .filter((image) => image.includes(':'));
    assert.ok(bases.length > 0);
    for (const image of bases) {
      assert.match(image, /^node:20\.\d+\.\d+-bookworm-slim$/, `${image} is a pinned slim Debian`);
    }
    assert.doesNotMatch(lines.join('\n'), /alpine/i, 'no instruction mentions Alpine');
  });

  /** The Dockerfile's stages by name, each its lines. */
  const stages = new Map<string, string[]>();
  {
    let current: string[] = [];
    for (const l of lines) {
      const m = /^FROM \S+(?: AS (\S+))?/.exec(l);
      if (m) stages.set(m[1] ?? `stage-${stages.size}`, (current = []));
      current.push(l);
    }
  }
  const runtime = [...stages.values()].at(-1)!;

  it('runs the product as a non-root user, with production dependencies only', () => {
    const last = runtime
      .filter((l) => l.startsWith('USER '))
      .at(-1)
      ?.split(/\s+/)[1];
    assert.ok(last && !['root', '0', '0:0'].includes(last), 'the final USER is not root');
    const modules = runtime.find((l) => /^COPY --from=\S+ \/app\/node_modules/.test(l));
    const from = modules && /--from=(\S+)/.exec(modules)?.[1];
    assert.ok(from && stages.get(from), 'node_modules come from a stage of this file');
    assert.ok(
      stages.get(from)!.some((l) => /^RUN .*npm (prune|ci)\b.*--omit=dev/.test(l)),
      `the ${from} stage drops the development dependencies`,
    );
  });

  it('ships the compiled product only: no sources, no tools, no TypeScript runtime', () => {
    const copies = runtime.filter((l) => l.startsWith('COPY '));
    for (const dir of ['src', 'tools', 'test', 'bench']) {
      assert.ok(!copies.some((l) => new RegExp(`\\s${dir}\\b`).test(l)), `no ${dir}/ in the image`);
    }
    assert.ok(copies.some((l) => /^COPY --from=build \/app\/dist \.\/dist$/.test(l)));
    assert.doesNotMatch(runtime.join('\n'), /\btsx\b/, 'no tsx in the runtime stage');
    const pkgJson = JSON.parse(read('package.json')) as { dependencies: Record<string, string> };
    assert.ok(!('tsx' in pkgJson.dependencies), 'tsx is a development dependency');
    assert.ok(!('@temporalio/testing' in pkgJson.dependencies));
  });

  it('builds the workflow bundle into the image and points the worker at it', () => {
    assert.ok(
      stages.get('build')?.includes('RUN npm run build'),
      'the build stage runs npm run build',
    );
    const build = pkg.scripts.build ?? '';
    const m = /tools\/scripts\/build-bundle\.ts (\S+)/.exec(build);
    assert.ok(m, 'npm run build writes the workflow bundle');
    assert.ok(existsSync(join(ROOT, 'tools/scripts/build-bundle.ts')));
    assert.match(
      dockerfile,
      new RegExp(`WORKFLOW_BUNDLE_PATH=/app/${m[1]!.replace(/[.]/g, '\\.')}\\b`),
    );
  });

  it('starts the worker with node itself, from the compiled form of a source that exists', () => {
    const cmd = runtime.filter((l) => l.startsWith('CMD ')).at(-1);
    assert.ok(cmd);
    const cmdArgs = JSON.parse(cmd.slice(4)) as string[];
    assert.deepEqual(
      cmdArgs,
      ['node', 'dist/worker.js'],
      'node is PID 1 (signals reach the worker)',
    );
    assert.ok(existsSync(join(ROOT, 'src/worker.ts')));
    assert.match(
      runtime.join('\n'),
      new RegExp(`NODE_OPTIONS=--max-semi-space-size=${MAX_SEMI_SPACE_MIB}\\b`),
      "the image starts node with the worker's young-generation bound (src/build-worker.ts)",
    );
    const ignore = read('.dockerignore').split('\n');
    for (const entry of ['node_modules', '.env', '.git', '.data', 'dist']) {
      assert.ok(ignore.includes(entry), `.dockerignore keeps ${entry} out of the build context`);
    }
  });
});

describe('docker-compose.yml and `npm run cluster` share their files', () => {
  const temporal = service('temporal');
  const entry = argv(temporal.entrypoint);
  const flag = (name: string) => entry[entry.indexOf(name) + 1];

  it('the compose server loads the same config file the cluster loads', () => {
    assert.equal(entry[0], 'temporal-server', 'compose runs the server binary itself');
    const hostFile = hostPathOf(temporal, flag('--config-file')!);
    assert.equal(hostFile, join(ROOT, SHARED_FILES.serverConfig));
    assert.ok(entry.includes('start'));
  });

  it('the same dynamic config file', () => {
    const path = envOf(temporal).DYNAMIC_CONFIG_FILE_PATH!;
    assert.equal(hostPathOf(temporal, path), join(ROOT, SHARED_FILES.dynamicConfig));
  });

  it('the same setup scripts, for the schemas and for the namespace', () => {
    const schema = service('temporal-schema');
    assert.deepEqual(filesRun(schema, argv(schema.command)), [
      join(ROOT, SHARED_FILES.setupPostgres),
    ]);
    const setup = service('temporal-setup');
    assert.deepEqual(filesRun(setup, argv(setup.command)), [
      join(ROOT, SHARED_FILES.setupNamespace),
    ]);
    // The native run has no schema directory: the schemas come embedded in the SQL tool.
    const script = read(SHARED_FILES.setupPostgres);
    assert.match(script, /--schema-name postgresql\/v12\/temporal\b/);
    assert.match(script, /--schema-name postgresql\/v12\/visibility\b/);
  });

  it('both give the template every variable it needs, and only variables it reads', () => {
    const native = clusterServerEnv(clusterPorts(17233), 0, {
      serverCert: 's.pem',
      serverKey: 's.key',
      caCert: 'ca.pem',
      clientCert: 'c.pem',
      clientKey: 'c.key',
    });
    const composeEnv = envOf(temporal);
    // Variables used without a default must be set by both.
    const required = [...serverTemplate.matchAll(/\{\{\s*env "([A-Z0-9_]+)"\s*(\|[^}]*)?\}\}/g)]
      .filter((m) => !/default/.test(m[0]))
      .map((m) => m[1]!)
      .filter((k) => !k.startsWith('TEMPORAL_TLS_'));
    for (const key of new Set(required)) {
      assert.ok(native[key], `the cluster sets ${key}`);
      assert.ok(composeEnv[key], `compose sets ${key}`);
    }
    for (const key of Object.keys(native)) {
      assert.ok(TEMPLATE_ENV.includes(key), `the template reads ${key} (cluster sets it)`);
    }
    assert.equal(native.NUM_HISTORY_SHARDS, composeEnv.NUM_HISTORY_SHARDS, 'same shard count');
    // The TLS section is switched by the variable the cluster sets.
    assert.match(serverTemplate, /if env "TEMPORAL_TLS_SERVER_CERT"/);
    assert.ok(native.TEMPORAL_TLS_SERVER_CERT);
  });
});
