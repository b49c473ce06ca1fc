// The machine's cache folder for this project, outside the repo, as the Kafka jars: fresh clones
// (CI) and worktrees share what is in it (the confluent build, better-sqlite3's binary, the
// package matrix's npm cache). Plain Node: the setup scripts import it before npm ci.
import { homedir } from 'node:os';
import { join } from 'node:path';

export const MACHINE_CACHE_DIR = join(homedir(), '.cache', 'nest-kafka-broadcast');
