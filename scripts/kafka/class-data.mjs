// Class-data sharing (AppCDS) for the Kafka JVMs: a dynamic archive of the classes a broker loads
// at start, made once per machine, Kafka version and Java build, beside the jars. A JVM that maps
// it skips parsing and verifying those classes: a single broker took 5.8 CPU-seconds to ready
// and 7.3 in its first 35 s without it, 4.2–4.5 and 5.5–6.0 with it, and was ready in 3.8–4.5 s
// instead of 5.6 (2026-12-07, 2 cores, Java 17.0.15, Kafka 4.4.0); CI starts dozens (3-node
// clusters, restarts, secured brokers, StorageTool formats). A JVM that cannot use the
// archive (another Java, another class path) runs without it: -Xshare:auto is the default.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { JAVA } from './process.mjs';

/** A lock older than this was left by a process that died while making the archive. */
const STALE_LOCK_MS = 5 * 60_000;

let javaKey;
/** A short key of the Java build (what `java -version` prints), computed once per process. */
function javaBuild() {
  if (javaKey === undefined) {
    const { stdout, stderr, status } = spawnSync(JAVA, ['-version'], { encoding: 'utf8' });
    javaKey =
      status === 0
        ? createHash('sha256').update(`${stdout}${stderr}`).digest('hex').slice(0, 12)
        : '';
  }
  return javaKey;
}

/** The archive's path for a jars folder, or undefined when Java cannot be asked. */
export function classDataArchive(libs) {
  const key = javaBuild();
  return key ? join(dirname(libs), `class-data-${key}.jsa`) : undefined;
}

/** The flag that maps an archive that exists; none otherwise. */
export function classDataFlags(libs) {
  const archive = classDataArchive(libs);
  return archive && existsSync(archive) ? [`-XX:SharedArchiveFile=${archive}`] : [];
}

/**
 * Takes the right to make the archive: false while another process makes it (its JVMs start
 * without the archive meanwhile). Returns the release function when taken.
 */
export function lockClassData(archive) {
  const lock = `${archive}.lock`;
  try {
    if (existsSync(lock) && Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS)
      rmSync(lock, { recursive: true, force: true });
    mkdirSync(lock);
  } catch {
    return undefined;
  }
  return () => rmSync(lock, { recursive: true, force: true });
}
