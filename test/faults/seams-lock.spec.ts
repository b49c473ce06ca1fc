// Faults on the lock's database connection: the engine's DataSource reaches PostgreSQL /
// MariaDB through a TCP proxy that, at a seeded moment during or after start(), resets every
// connection (the server drops the session and its advisory lock) or stalls them all for a
// while. Kafka is the run's shared broker, without faults. Sequence-numbered records are
// published throughout; nothing published after ready may be skipped, nothing published before
// start() may arrive, and stop() leaves no member behind. SEAMS_SEED=<seed> replays one trial.
import { type ArmedFault } from '../support/faults/seam-faults.js';
import type { SeamMoment } from '../support/faults/seam-moments.js';
import { describeSharedBrokerSeams } from '../support/faults/seam-suite.js';
import type { TcpProxy } from '../support/broker/tcp-proxy.js';

/** Resets or stalls every database connection once, 0–3 s after start() was called. */
function lockConnectionFault(dbProxy: TcpProxy | undefined, rnd: () => number): ArmedFault {
  if (!dbProxy) throw new Error('lock moments need a database proxy');
  const afterMs = Math.floor(rnd() * 3_000);
  const stallMs = rnd() < 0.5 ? 0 : 1_000 + Math.floor(rnd() * 3_000);
  let fired = false;
  let connections = 0;
  const timer = setTimeout(() => {
    fired = true;
    if (stallMs > 0) {
      connections = dbProxy.connections;
      dbProxy.stallAll(stallMs);
    } else connections = dbProxy.resetAll();
  }, afterMs);
  timer.unref();
  return {
    get describe() {
      return `${stallMs > 0 ? `stall ${stallMs} ms` : 'reset'} of the database connections at +${afterMs} ms (${connections} open)`;
    },
    fired: () => fired,
  };
}

const moments: SeamMoment[] = [
  {
    name: 'lock-connection-postgres',
    lock: 'postgres',
    arm: ({ rnd, dbProxy }) => lockConnectionFault(dbProxy, rnd),
  },
  {
    name: 'lock-connection-mariadb',
    lock: 'mariadb',
    arm: ({ rnd, dbProxy }) => lockConnectionFault(dbProxy, rnd),
  },
];

// No Kafka frame is broken: the run's shared broker serves (a private one costs its start).
describeSharedBrokerSeams('faults on the lock connection', 'database', moments);
