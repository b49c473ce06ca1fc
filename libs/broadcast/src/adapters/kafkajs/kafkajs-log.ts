import kafkajs, { type logCreator } from 'kafkajs';
import type { BroadcastLogger } from '../../interfaces/broadcast-logger.interface.js';

const { logLevel } = kafkajs;

/**
 * kafkajs logs the first JoinGroup's MEMBER_ID_REQUIRED answer as an ERROR although it is
 * the normal two-step join of KIP-394; users would take it for a fault.
 */
function isNoise(message: string, extra: Record<string, unknown>): boolean {
  return extra.type === 'MEMBER_ID_REQUIRED' || message.includes('valid member id');
}

/**
 * kafkajs's Connection logs every error response at ERROR before its caller decides whether
 * it matters (a topic another instance just created, a coordinator that moved); the caller
 * reports what really failed.
 */
function isProtocolResponse(namespace: string, message: string): boolean {
  return namespace === 'Connection' && message.startsWith('Response ');
}

/**
 * Connection attempts, seed-broker fallbacks, SASL and TLS failures and consumer crashes are
 * logged by kafkajs on every retry (about 20 lines a second against a dead broker). The engine
 * turns them into one error naming the option to check (kafkajs-errors.ts) or a rejoin warning,
 * so these lines go to debug only. So does a rebalance of the group: the engine watches every
 * join itself (group-membership.ts), warns when another instance's member enters a group it
 * holds, and takes newcomers joining the same empty group together (lock-free starts) as the
 * expected contest it settles.
 */
function isReportedByEngine(namespace: string, message: string): boolean {
  return (
    isConnectionNamespace(namespace) ||
    message.startsWith('Crash') ||
    message.includes('Restarting the consumer') ||
    message.startsWith('The group is rebalancing')
  );
}

// Producer: a failed send rejects publish() (or is logged once by the heartbeat) with the reason.
const CONNECTION_NAMESPACES = new Set(['Connection', 'BrokerPool', 'Cluster', 'Producer']);

function isConnectionNamespace(namespace: string): boolean {
  // SASL namespaces carry the mechanism: SaslAuthenticator-SCRAM-SHA-512.
  return CONNECTION_NAMESPACES.has(namespace) || namespace.startsWith('SaslAuthenticator');
}

/** Routes kafkajs logs to the module's logger. */
export function createLogCreator(
  logger: BroadcastLogger,
  /** Sees each connection failure kafkajs logs, so the startup error can name the last one. */
  onConnectionError?: (message: string) => void,
): logCreator {
  return () =>
    ({ namespace, level, log }) => {
      const { message, ...extra } = log;
      if (isNoise(message, extra)) return;
      const detail = `${message}${extra.error ? `: ${String(extra.error)}` : ''}`;
      if (
        level === logLevel.ERROR &&
        namespace === 'Connection' &&
        !message.startsWith('Response ')
      )
        onConnectionError?.(detail);
      const text = `[kafkajs ${namespace}] ${detail}`;
      const fields = { source: `kafkajs ${namespace}`, reason: detail };
      if (isReportedByEngine(namespace, message)) logger.debug?.(text);
      else if (level === logLevel.ERROR && !isProtocolResponse(namespace, message))
        logger.error(text, undefined, fields);
      else if (level === logLevel.WARN) logger.warn(text, fields);
      else logger.debug?.(text);
    };
}

export { logLevel };
