// Ports, cluster id and server.properties for KRaft nodes that each act as broker and controller.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

const HOST = '127.0.0.1';

/**
 * `count` distinct free ports on 127.0.0.1. Each is proved free by binding it in Node first.
 * Candidates come from below the kernel's ephemeral range: a port from that range can be taken
 * by some client's outgoing socket (or a localhost self-connect to a stopped broker) before a
 * restarted node binds it again. Falls back to port 0 if no candidate is free.
 */
export async function freePorts(count) {
  const servers = [];
  try {
    for (let tries = 0; servers.length < count && tries < count * 50; tries++) {
      const server = await listen(randomLowPort()).catch(() => null);
      if (server) servers.push(server);
    }
    while (servers.length < count) servers.push(await listen(0));
    return servers.map((server) => server.address().port);
  } finally {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  }
}

function listen(port) {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ port, host: HOST, exclusive: true }, () => resolve(server));
  });
}

function randomLowPort() {
  let low = 32768;
  try {
    low = Number(
      readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0],
    );
  } catch {
    // not Linux: keep the usual default
  }
  const floor = Math.min(20000, low - 2000);
  return floor + Math.floor(Math.random() * (low - floor));
}

/**
 * A Kafka cluster id, as `kafka.tools.StorageTool random-uuid` prints it: 16 random bytes
 * (UUID v4 layout) in URL-safe base64 without padding. Made here to save a JVM start (~1.2 s).
 */
export function newClusterId() {
  for (;;) {
    const bytes = randomBytes(16);
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    const id = bytes.toString('base64url');
    if (!id.startsWith('-')) return id; // Kafka never hands out ids starting with '-'
  }
}

/**
 * `nodes`: every node of the cluster [{ id, port, controllerPort }]; `node`: the one to configure;
 * `overrides`: properties that replace or add to the defaults.
 */
export function serverProperties({ node, nodes, dataDir, line, overrides = {} }) {
  const voters = nodes.map((n) => `${n.id}@${HOST}:${n.controllerPort}`).join(',');
  const rf = Math.min(nodes.length, 3);
  const props = {
    'process.roles': 'broker,controller',
    'node.id': node.id,
    // Static voters: every node knows the whole quorum up front, so `format` needs no --standalone.
    'controller.quorum.voters': voters,
    listeners: `PLAINTEXT://${HOST}:${node.port},CONTROLLER://${HOST}:${node.controllerPort}`,
    'advertised.listeners': `PLAINTEXT://${HOST}:${node.port}`,
    'controller.listener.names': 'CONTROLLER',
    'inter.broker.listener.name': 'PLAINTEXT',
    'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT',
    'log.dirs': dataDir,
    ...testFriendly(rf),
    ...(line >= 4 ? shareCoordinator(rf) : {}),
    ...overrides,
  };
  return (
    Object.entries(props)
      .map(([key, value]) => `${key}=${value}`)
      .join('\n') + '\n'
  );
}

/** Settings that make a test broker fast to use; none of them is a production default. */
function testFriendly(rf) {
  return {
    // Production brokers default to 3000: every cold join of an empty consumer group then
    // waits 3 s before the first assignment. Tests create many fresh groups.
    'group.initial.rebalance.delay.ms': 0,
    // Lets tests use short kafkajs session timeouts (broker default minimum is 6000).
    'group.min.session.timeout.ms': 1000,
    // KIP-848 groups: the broker, not the client, sets a member's session (default and minimum
    // 45 s) and heartbeat interval (5 s). A crashed member then holds its group as long as the
    // classic members' 6 s sessions of the fault tests do, and the heartbeat keeps a margin.
    'group.consumer.min.session.timeout.ms': 1000,
    'group.consumer.session.timeout.ms': 6000,
    'group.consumer.min.heartbeat.interval.ms': 500,
    'group.consumer.heartbeat.interval.ms': 1000,
    // The default 50 partitions make the first coordinator lookup slow on a small box.
    'offsets.topic.num.partitions': 1,
    'offsets.topic.replication.factor': rf,
    'transaction.state.log.num.partitions': 1,
    'transaction.state.log.replication.factor': rf,
    'transaction.state.log.min.isr': 1,
    'default.replication.factor': rf,
    'min.insync.replicas': 1,
    // A killed node can re-register only once its old session expired (default 9 s, heartbeat
    // 2 s); shorter makes crash/restart tests and failure detection quicker.
    'broker.session.timeout.ms': 6000,
    'broker.heartbeat.interval.ms': 1000,
    'auto.create.topics.enable': true,
    'num.partitions': 1,
    // Test data is thrown away with the data dir; keep what a long run writes small.
    'log.retention.ms': 3_600_000,
    'log.segment.bytes': 16 * 1024 * 1024,
  };
}

/** Share groups (KIP-932) exist from 4.x; their state topic otherwise wants 3 replicas. */
function shareCoordinator(rf) {
  return {
    'share.coordinator.state.topic.num.partitions': 1,
    'share.coordinator.state.topic.replication.factor': rf,
    'share.coordinator.state.topic.min.isr': 1,
  };
}
