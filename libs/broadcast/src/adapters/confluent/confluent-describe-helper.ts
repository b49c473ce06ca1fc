import { fork, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RdkafkaConfig } from './confluent-config.js';
import type { GroupDescription } from './confluent-library.js';
import type { ConfluentTokens } from './confluent-oauth-tokens.js';

/** The helper's script, beside this module in the sources and in both builds. */
const CHILD_SCRIPT = join(dirname(ownFile()), 'confluent-describe-child.cjs');
/** How long past the request's own timeout a helper may stay silent before it is replaced. */
const SILENCE_MARGIN_MS = 5_000;
/** How the helper's errors name it. */
const HELPER = 'the DescribeGroups/DeleteGroups helper process';
/** What a signal that ended the helper most likely was (see the class). */
const KNOWN_CAUSES: Record<string, string> = {
  SIGSEGV:
    ' (librdkafka NULL group description, upstream confluentinc/confluent-kafka-javascript#531)',
  SIGABRT:
    " (librdkafka 'eonce->refcnt > 0' assertion after a coordinator request timed out, upstream confluentinc/librdkafka#4605)",
};

/** A request that failed because the helper process ended or went silent: asking again works. */
export class DescribeHelperError extends Error {
  /** Read by ConfluentErrors.transient, as a LibrdKafkaError's flag is. */
  readonly isRetriable = true;
}

/** One group's answer to DeleteGroups: its error, if the group was not deleted. */
export interface GroupDeleteReport {
  groupId: string;
  error?: unknown;
}

interface Pending {
  resolve(groups: unknown[]): void;
  reject(error: unknown): void;
  timer: NodeJS.Timeout;
}

type Answer =
  | { id: number; groups: unknown[] }
  | { id: number; error: Record<string, unknown> }
  | { fatal: Record<string, unknown> }
  /** Its librdkafka's token refresh callback asks for a SASL/OAUTHBEARER token. */
  | { tokenRequest: number };

/**
 * The group coordinator's admin requests of @confluentinc/kafka-javascript (DescribeGroups,
 * DeleteGroups), run in a child process of its own, since either can end the process it runs in:
 * - In 1.10.1 the binding dereferences librdkafka's NULL strings when a group's describe failed
 *   (a timeout, a reset or dropped connection, a coordinator not ready:
 *   `FromConsumerGroupDescription`, upstream confluentinc/confluent-kafka-javascript#531), a
 *   segmentation fault.
 * - librdkafka 2.15.1 aborts on a coordinator request that timed out while no broker answered (a
 *   DeleteGroups or DescribeGroups during a broker outage), once the coordinator is back: the
 *   request's coord_req outlives its timeout, and when the broker answers again
 *   `rd_kafka_coord_req_fsm` calls `rd_kafka_admin_coord_request`, which drops the timed-out
 *   request's last eonce reference (freeing it) and returns ERR__DESTROY; `rd_kafka_coord_req_fail`
 *   then hands the freed eonce to `rd_kafka_admin_coord_response_parse`, whose
 *   `rd_kafka_enq_once_del_source_return` fails `Assertion 'eonce->refcnt > 0'` (SIGABRT; upstream
 *   confluentinc/librdkafka#4605 and #3663, open; PR #5397 not merged). The abort reported for
 *   test/faults/broker-outage.spec.ts (KIP-848 row): an instance that rejoins during the outage
 *   deletes its group (DeleteGroups) before it joins again.
 * In the helper either ends the helper: every request pending then rejects with a retriable
 * DescribeHelperError naming the cause, and the next request starts a new helper.
 *
 * One helper per adapter (or operator), started by `warm()` or the first request and kept: a
 * request costs an IPC round trip, not a process start. It connects with the admin's configuration (brokers,
 * TLS, SASL, client id), sent over the IPC channel (not on its command line). `close()` kills
 * it; it exits by itself when this process ends (its IPC channel closes). While no request is
 * pending it holds no reference on this process's event loop.
 *
 * With SASL/OAUTHBEARER its admin client's token refresh callback asks this process, which
 * alone can call the user's provider (a function): `{ tokenRequest }` is answered with
 * `{ tokenRequest, token }` (the provider's token and its lifetime, as librdkafka takes it) or
 * `{ tokenRequest, tokenError }` (the provider failed: the start hears it from this process's
 * own clients).
 */
export class ConfluentDescribeHelper {
  private child: ChildProcess | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private closed = false;

  constructor(
    /** The admin client's librdkafka configuration. */
    private readonly config: RdkafkaConfig,
    /** Each request's own timeout (librdkafka's request timeout). */
    private readonly timeoutMs: number,
    /** SASL/OAUTHBEARER only: the tokens the helper's client asks for. */
    private readonly tokens?: ConfluentTokens,
    /** The helper's script (a test may give its own). */
    private readonly script = CHILD_SCRIPT,
  ) {}

  /** The groups as the binding describes them; rejects when the helper ended meanwhile. */
  describeGroups(groupIds: readonly string[]): Promise<GroupDescription[]> {
    return this.request('describeGroups', groupIds) as Promise<GroupDescription[]>;
  }

  /** Deletes the groups: one report per group; rejects when the helper ended meanwhile. */
  deleteGroups(groupIds: readonly string[]): Promise<GroupDeleteReport[]> {
    return this.request('deleteGroups', groupIds) as Promise<GroupDeleteReport[]>;
  }

  private request(
    op: 'describeGroups' | 'deleteGroups',
    groupIds: readonly string[],
  ): Promise<unknown[]> {
    if (this.closed) return Promise.reject(new Error('the admin client is closed'));
    const child = this.started();
    const id = ++this.nextId;
    return new Promise<unknown[]>((resolve, reject) => {
      const timer = setTimeout(
        () => this.replace(`sent no answer within ${this.timeoutMs + SILENCE_MARGIN_MS} ms`),
        this.timeoutMs + SILENCE_MARGIN_MS,
      );
      this.pending.set(id, { resolve, reject, timer });
      this.holdLoop(true);
      child.send({ id, op, groupIds: [...groupIds], timeoutMs: this.timeoutMs }, (error) => {
        if (error)
          this.settle(id, (p) => p.reject(new DescribeHelperError(`${HELPER}: ${error.message}`)));
      });
    });
  }

  /**
   * Starts the helper ahead of its first request (a process start, the client's load and its
   * connection: about 200 ms quiet, which a start would otherwise pay whole at its DeleteGroups).
   * It holds no reference on the event loop meanwhile.
   */
  warm(): void {
    if (this.closed || this.child) return;
    this.started();
    if (this.pending.size === 0) this.holdLoop(false);
  }

  /** The helper's process id while it runs (for tests and the adapter's figures). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Rejects what is pending and kills the helper; resolves once it has exited. */
  async close(): Promise<void> {
    this.closed = true;
    const child = this.child;
    this.failAll(() => new Error('the admin client is closed'));
    if (!child) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    if (child.exitCode === null && child.signalCode === null) {
      // Held until it has exited: an idle helper holds no reference on the event loop.
      child.ref();
      child.kill('SIGKILL');
      await exited;
    }
    this.child = undefined;
  }

  private started(): ChildProcess {
    if (this.child) return this.child;
    const env = { ...process.env };
    // Preloads meant for the application (an instrumentation, a loader) do not run in the helper.
    delete env.NODE_OPTIONS;
    const child = fork(this.script, [], {
      execArgv: [],
      env,
      serialization: 'json',
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
    });
    this.child = child;
    child.on('message', (message: Answer) => this.answered(child, message));
    child.on('error', (error) => this.ended(child, `failed: ${error.message}`));
    child.on('exit', (code, signal) =>
      this.ended(
        child,
        `exited with ${signal ?? `code ${code}`}${KNOWN_CAUSES[signal ?? ''] ?? ''}`,
      ),
    );
    child.send({ config: this.config });
    return child;
  }

  private answered(child: ChildProcess, message: Answer): void {
    if ('tokenRequest' in message) {
      this.sendToken(child, message.tokenRequest);
      return;
    }
    if ('fatal' in message) {
      this.ended(child, `could not load the client: ${String(message.fatal.message)}`);
      return;
    }
    if ('groups' in message) this.settle(message.id, (p) => p.resolve(message.groups));
    else this.settle(message.id, (p) => p.reject(librdkafkaError(message.error)));
  }

  /** Answers the helper's token request with the provider's token, or why there is none. */
  private sendToken(child: ChildProcess, tokenRequest: number): void {
    const reply = (answer: object) => {
      if (child.connected) child.send({ tokenRequest, ...answer }, () => undefined);
    };
    if (!this.tokens) return reply({ tokenError: 'SASL/OAUTHBEARER is not configured' });
    this.tokens.token().then(
      (token) => reply({ token }),
      (error: unknown) =>
        reply({ tokenError: error instanceof Error ? error.message : String(error) }),
    );
  }

  /** The helper is gone (or useless): what was pending rejects, the next request starts one. */
  private ended(child: ChildProcess, cause: string): void {
    if (this.child !== child) return;
    this.child = undefined;
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    this.failAll(() => new DescribeHelperError(`${HELPER} ${cause}`));
  }

  /** A helper silent past every timeout is killed and replaced at the next request. */
  private replace(cause: string): void {
    if (this.child) this.ended(this.child, cause);
  }

  private settle(id: number, how: (p: Pending) => void): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    this.pending.delete(id);
    clearTimeout(pending.timer);
    if (this.pending.size === 0) this.holdLoop(false);
    how(pending);
  }

  private failAll(error: () => Error): void {
    for (const id of this.pending.keys()) this.settle(id, (p) => p.reject(error()));
  }

  /** The helper keeps this process alive only while a request waits for it. */
  private holdLoop(hold: boolean): void {
    const child = this.child;
    if (!child) return;
    if (hold) {
      child.ref();
      child.channel?.ref();
    } else {
      child.unref();
      child.channel?.unref();
    }
  }
}

/** The helper's plain error as the binding's error reads (code, isRetriable, isFatal, …). */
function librdkafkaError(fields: Record<string, unknown>): Error {
  return Object.assign(new Error(String(fields.message)), fields);
}

/**
 * This module's own file. The same source is compiled to ESM and to CommonJS, where neither
 * `import.meta.url` nor `__filename` exists in both: the first frame of a stack trace names it
 * in either (a file: URL in ESM).
 */
function ownFile(): string {
  const [prepare, limit] = [Error.prepareStackTrace, Error.stackTraceLimit];
  try {
    Error.prepareStackTrace = (_error, sites) => sites;
    Error.stackTraceLimit = 1;
    const holder: { stack?: NodeJS.CallSite[] } = {};
    Error.captureStackTrace(holder, ownFile);
    // The frame of ownFile's caller: this module's top level.
    const file = holder.stack?.[0]?.getFileName() ?? '';
    return file.startsWith('file:') ? fileURLToPath(file) : file;
  } finally {
    Error.prepareStackTrace = prepare;
    Error.stackTraceLimit = limit;
  }
}
