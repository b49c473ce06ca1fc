import { Command } from 'commander';
import { cleanupCommand } from './commands/cleanup.command.js';
import { poolCommand } from './commands/pool.command.js';
import { publishCommand } from './commands/publish.command.js';
import { rosterCommand } from './commands/roster.command.js';
import { tailCommand } from './commands/tail.command.js';
import { environmentHelp } from './environment.js';
import { packageVersion } from './package-version.js';

/** The CLI's commands, with the environment variables they read at the end of every --help. */
export function createProgram(): Command {
  const program = new Command('nestjs-kafka-broadcast')
    .description('Inspect and operate the consumer-group pool of nestjs-kafka-broadcast')
    .version(packageVersion());
  for (const register of [poolCommand, rosterCommand, tailCommand, publishCommand, cleanupCommand])
    register(program);
  for (const command of [program, ...program.commands])
    command.addHelpText('after', environmentHelp());
  return program;
}
