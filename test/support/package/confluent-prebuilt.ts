// @confluentinc/kafka-javascript for a package-matrix app, as a tarball of this machine's build
// (scripts/confluent-client.mjs keeps it in ~/.cache/nest-kafka-broadcast/confluent): the
// registry's 1.10.1 with build/Release/confluent-kafka-javascript.node and librdkafka's shared
// libraries (build/deps) in it. Why not the registry's tarball: its install script fetches a
// prebuilt addon from GitHub's release host, which is not reachable here, and then builds
// librdkafka from source (minutes, in every run). With the build inside, the same install script
// runs in the app (npm 11 runs it, as in a user's app) and finds the addon already there: what a
// user's image does with a package built once in a build stage (README, "Kafka clients").
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { cachedPackage, CONFLUENT_PACKAGE } from '../../../scripts/confluent/cache.mjs';

const run = promisify(execFile);

/** Packs the cached build into `destination`; resolves the tarball's path. */
export async function packConfluentBuild(destination: string): Promise<string> {
  const pkg = cachedPackage();
  if (!pkg)
    throw new Error(
      `no build of ${CONFLUENT_PACKAGE} for this Node (${process.version}): run ` +
        '`node scripts/confluent-client.mjs` (npm test and .ci/run do it first)',
    );
  // --ignore-scripts: the package's prepack is its maintainers' release step, not ours.
  const { stdout } = await run(
    'npm',
    ['pack', '--ignore-scripts', '--silent', '--pack-destination', destination],
    { cwd: pkg, maxBuffer: 16 << 20 },
  );
  return join(destination, stdout.trim().split('\n').at(-1)!);
}
