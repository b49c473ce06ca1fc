// Types for scripts/kafka-cluster.mjs, so TypeScript tests and benchmarks can import it.
export interface KafkaNode {
  id: number;
  port: number;
  controllerPort: number;
  /** the free ports reserved with StartClusterOptions.extraPorts */
  extraPorts: number[];
  /** undefined once the node was never started; stale after it exits */
  pid: number | undefined;
  config: string;
  logFile: string;
}

export interface KafkaCluster {
  version: string;
  dir: string;
  /** '127.0.0.1:port' per node, in node id order */
  brokers: string[];
  /** brokers joined by commas */
  bootstrap: string;
  readonly nodes: KafkaNode[];
  /** SIGTERM (controlled shutdown), SIGKILL after 30 s; resolves once the JVM exited */
  stopNode(id: number): Promise<void>;
  /** SIGKILL, like a crash */
  killNode(id: number): Promise<void>;
  /** restart with the same ports and data dir; resolves when the node answers */
  startNode(id: number): Promise<void>;
  /** stop every node and remove dir (unless keepDir) */
  stop(options?: { keepDir?: boolean }): Promise<void>;
}

export interface StartClusterOptions {
  nodes?: number;
  dir?: string;
  /** default: env KAFKA_VERSION, then scripts/kafka/versions.json */
  version?: string;
  quiet?: boolean;
  /** CLI only: JVMs outlive this process */
  detached?: boolean;
  timeoutMs?: number;
  /** more free ports to reserve per node (KafkaNode.extraPorts), e.g. for another listener */
  extraPorts?: number;
  /** server properties that override the defaults, per node */
  properties?: (
    node: { id: number; port: number; controllerPort: number; extraPorts: number[] },
    nodes: Array<{ id: number; port: number; controllerPort: number; extraPorts: number[] }>,
  ) => Record<string, string | number | boolean>;
  /** extra arguments for `kafka.tools.StorageTool format`, e.g. ['--add-scram', 'SCRAM-SHA-512=[name=a,password=b]'] */
  formatArgs?: string[];
  /** extra JVM flags for every broker; with them the class-data archive is neither made nor mapped */
  jvmOptions?: string[];
}

export interface CliState {
  version: string;
  brokers: string[];
  bootstrap: string;
  dir: string;
  nodes: KafkaNode[];
  startedAt: string;
}

export const REPO_ROOT: string;
export const STATE_DIR: string;
export const STATE_FILE: string;
export function startCluster(options?: StartClusterOptions): Promise<KafkaCluster>;
export function resolveVersion(version?: string): string;
export function describeCluster(brokers: string[]): Promise<{
  brokers: Array<{ nodeId: number; host: string; port: number }>;
  controller: number | null;
  clusterId: string;
}>;
export function clusterAnswers(brokers: string[]): Promise<boolean>;
export function readState(): Promise<CliState | null>;
