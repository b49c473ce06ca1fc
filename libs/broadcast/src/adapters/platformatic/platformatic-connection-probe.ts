import { Admin, type BaseOptions } from '@platformatic/kafka';
import type { BrokerApi } from './platformatic-consumer-group-describe.js';

/**
 * One bootstrap connection (TCP, TLS, SASL, ApiVersions) made by a client that does not retry,
 * then closed: the first step of every startup.
 *
 * Why: @platformatic/kafka retries an operation unless the error it got says `canRetry: false`
 * (clients/base/base.js:275-278 in 2.12.1, 243-245 in 1.35), and it wraps every failed
 * connection in a NetworkError (canRetry: true, network/connection.js:508 in 2.12.1, 411 in 1.35)
 * whose cause it does not look into (errors.js:42-47 in both).
 * A refused login or an untrusted certificate was therefore tried `retries` + 1 times (3 s with
 * the defaults) before the adapter saw it, and an unreachable broker took that long per attempt,
 * overshooting startupTimeoutMs. Through this probe the adapter sees the first failure and
 * decides itself: a refusal at once, an unreachable broker retried until startupTimeoutMs.
 * Its ApiVersions answer is returned: the admin reads the KIP-848 APIs from it instead of asking
 * again.
 */
export async function probeConnection(options: BaseOptions): Promise<BrokerApi[]> {
  const probe = new Admin({ ...options, clientId: `${options.clientId}-probe`, retries: 0 });
  try {
    return await probe.listApis();
  } finally {
    await probe.close().catch(() => undefined);
  }
}
