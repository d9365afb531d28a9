/**
 * The local cluster's layout decisions (pure): the ports of one node and of several, the highest
 * base port each allows (membership ports are a PostgreSQL smallint), the balancer's nginx config,
 * membership rows read back by node, and the shards a node's metrics say it owns.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { balancerConfig } from '../../tools/temporal-server/cluster-balancer';
import { membershipByRole, ownedShards } from '../../tools/temporal-server/cluster';
import {
  clusterPorts,
  clusterScrapeJobs,
  MAX_MEMBERSHIP_PORT,
  maxBasePort,
  namedPorts,
} from '../../tools/temporal-server/cluster-ports';

describe('cluster ports', () => {
  it('one node keeps its frontend on the base port; several get blocks and a balancer there', () => {
    const one = clusterPorts(17233);
    assert.equal(one.frontend, 17233);
    assert.equal(one.nodes.length, 1);
    assert.equal(one.nodes[0]!.frontend, 17233);
    assert.equal(one.nodes[0]!.metrics, 17242);
    const three = clusterPorts(17233, 3);
    assert.equal(three.frontend, 17233);
    assert.deepEqual(
      three.nodes.map((n) => n.frontend),
      [17293, 17303, 17313],
    );
    assert.ok(namedPorts(three).some(([name, port]) => name === 'balancer' && port === 17233));
  });

  it('no port is used twice, whatever the node count', () => {
    for (let nodes = 1; nodes <= 5; nodes++) {
      const all = namedPorts(clusterPorts(20000, nodes)).map(([, p]) => p);
      // Workers' health and metrics ports (up to 16 workers) are beside them.
      for (let i = 0; i < 16; i++) all.push(20020 + i, 20040 + i);
      assert.equal(new Set(all).size, all.length, `${nodes} node(s)`);
    }
  });

  it('the highest base port keeps every membership port a smallint, and one past it is refused', () => {
    for (let nodes = 1; nodes <= 5; nodes++) {
      const max = maxBasePort(nodes);
      const highest = Math.max(
        ...clusterPorts(max, nodes).nodes.flatMap((n) => [
          n.frontendMembership,
          n.historyMembership,
          n.matchingMembership,
          n.workerMembership,
        ]),
      );
      assert.ok(highest <= MAX_MEMBERSHIP_PORT, `${nodes} node(s): ${highest}`);
      assert.throws(() => clusterPorts(max + 1, nodes), /choose one from 1024 to/);
    }
    assert.equal(maxBasePort(1), 32700);
    assert.throws(() => clusterPorts(17233, 6), /--nodes 6: choose a whole number from 1 to 5/);
  });

  it('Prometheus scrapes every node', () => {
    assert.deepEqual(clusterScrapeJobs(clusterPorts(17233, 3), 1)['temporal-server'], [
      '127.0.0.1:17302',
      '127.0.0.1:17312',
      '127.0.0.1:17322',
    ]);
  });
});

describe('the balancer', () => {
  it('proxies TCP (mTLS passes through) to every frontend, with the stream module when dynamic', () => {
    const conf = balancerConfig({
      listenPort: 17233,
      upstreamPorts: [17293, 17303],
      dir: '/d',
      streamModule: '/m/ngx_stream_module.so',
    });
    assert.match(conf, /^load_module \/m\/ngx_stream_module\.so;$/m);
    assert.match(conf, /stream \{/);
    assert.doesNotMatch(conf, /\bhttp \{|ssl_certificate/);
    assert.match(conf, /listen 127\.0\.0\.1:17233;/);
    assert.match(conf, /server 127\.0\.0\.1:17293 /);
    assert.match(conf, /server 127\.0\.0\.1:17303 /);
    // Longer than a long poll (70 s), or nginx cuts idle workers' polls.
    const timeout = /proxy_timeout (\d+)m;/.exec(conf);
    assert.ok(timeout && Number(timeout[1]) * 60 > 70);
    assert.doesNotMatch(
      balancerConfig({ listenPort: 1, upstreamPorts: [2], dir: '/d' }),
      /load_module/,
    );
  });
});

describe('membership and shards, read back', () => {
  it('maps membership rows to nodes by their membership ports', () => {
    const ports = clusterPorts(17233, 3);
    const [a, , c] = ports.nodes;
    const rows = [
      `1|${a!.frontendMembership}`,
      `2|${a!.historyMembership}`,
      `2|${c!.historyMembership}`,
      `3|${c!.matchingMembership}`,
      '2|9999',
    ].join('\n');
    assert.deepEqual(membershipByRole(rows, ports), {
      frontend: [0],
      history: [0, 2],
      matching: [2],
      worker: [],
    });
  });

  it("reads a node's owned shards from its history metrics", () => {
    const text = [
      '# HELP numshards_gauge numshards_gauge',
      'numshards_gauge{operation="ShardController",service_name="history"} 7',
    ].join('\n');
    assert.equal(ownedShards(text), 7);
    assert.equal(ownedShards('other_metric 1'), undefined);
  });
});
