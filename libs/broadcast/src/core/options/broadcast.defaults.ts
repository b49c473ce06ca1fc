// Defaults of the engine's options, filled in by the options resolver.

/** Default consumer-group base names, as in the Go original: one per mode so the two never mix. */
export const DEFAULT_LOCKED_GROUP_BASE = 'broadcastConsumer';
export const DEFAULT_LOCK_FREE_GROUP_BASE = 'broadcastLFConsumer';

export const DEFAULT_HEARTBEAT_TOPIC = 'broadcast.heartbeat.v1';
export const DEFAULT_HEARTBEAT_INTERVAL_MS = 10_000;
export const DEFAULT_HEARTBEAT_JITTER = 0.25;

export const DEFAULT_MAX_GROUPS = 200;
export const DEFAULT_HANDLER_TIMEOUT_MS = 5_000;
export const DEFAULT_STARTUP_TIMEOUT_MS = 60_000;
export const DEFAULT_LOCK_CHECK_INTERVAL_MS = 3_000;
/** Readiness stays up this long while Kafka cannot be reached (health.outageGraceMs). */
export const DEFAULT_OUTAGE_GRACE_MS = 60_000;

export const DEFAULT_SESSION_TIMEOUT_MS = 10_000;
export const DEFAULT_CONSUMER_HEARTBEAT_INTERVAL_MS = 1_000;
export const DEFAULT_MAX_WAIT_TIME_MS = 250;
export const DEFAULT_METADATA_MAX_AGE_MS = 30_000;

/** Topics the engine creates when they are missing. */
export const DEFAULT_TOPIC_PARTITIONS = 1;
