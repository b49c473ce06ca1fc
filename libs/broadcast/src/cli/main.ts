#!/usr/bin/env node
// `npx nestjs-kafka-broadcast <command>`: the operator CLI (see the README, "Operating the pool").
import { Command } from 'commander';
import { cleanupCommand } from './commands/cleanup.command.js';
import { poolCommand } from './commands/pool.command.js';
import { publishCommand } from './commands/publish.command.js';
import { rosterCommand } from './commands/roster.command.js';
import { tailCommand } from './commands/tail.command.js';
import { packageVersion } from './package-version.js';

const program = new Command('nestjs-kafka-broadcast')
  .description('Inspect and operate the consumer-group pool of nestjs-kafka-broadcast')
  .version(packageVersion());
for (const register of [poolCommand, rosterCommand, tailCommand, publishCommand, cleanupCommand])
  register(program);

program.parseAsync().catch((error: unknown) => {
  process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
