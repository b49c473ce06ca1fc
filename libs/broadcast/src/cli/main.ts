#!/usr/bin/env node
// `npx nestjs-kafka-broadcast <command>`: the operator CLI (see the README, "Operating the pool").
import { createProgram } from './program.js';

// One line on stderr and exit code 1 for any error: an operator needs the reason, not a stack.
createProgram()
  .parseAsync()
  .catch((error: unknown) => {
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
