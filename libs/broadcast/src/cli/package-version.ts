import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The version of the package this CLI belongs to: the nearest package.json above this file
 * (dist/esm/cli/, dist/cli/ or src/cli/ alike) named nestjs-kafka-broadcast.
 */
export function packageVersion(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ;) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'nestjs-kafka-broadcast' && pkg.version) return pkg.version;
    }
    const parent = dirname(dir);
    if (parent === dir) return 'unknown';
    dir = parent;
  }
}
