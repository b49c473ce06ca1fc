/**
 * The READMEs' TypeScript examples compile against the package's types (#21): every ```ts /
 * ```typescript block of the package README (what npm shows) and of the root README is written as
 * a module of its own into a temp folder and type-checked with the TypeScript compiler API, with
 * `nestjs-kafka-broadcast` and its subpaths resolved to the library's sources as the repository's
 * tsconfig paths resolve them. A block that names an API the package does not have fails here.
 *
 * A block titled ```ts title="src/app.module.ts"``` is a file of the package README's quick-start
 * app and is written at that path, so that the app's files import one another as they do in the
 * app (test/package/matrix.spec.ts builds and runs that app from the packed package). A block that
 * is deliberately partial is preceded by `<!-- readme-check: skip -->` on the line before its
 * fence; the test lists the skipped blocks so that they stay few. Static only: nothing runs, no
 * broker is reached. The markers are read by test/support/package/readme-blocks.ts.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import ts from 'typescript';
import {
  SKIP_MARKER,
  isTypeScript,
  readmeBlocks,
  type ReadmeBlock,
} from '../support/package/readme-blocks.js';

const ROOT = resolve(import.meta.dirname, '../..');
const READMES = ['libs/broadcast/README.md', 'README.md'];
/** Entries as in tsconfig.json's `paths`: the package name resolves to the library's sources. */
const ENTRIES: Record<string, string> = {
  'nestjs-kafka-broadcast': 'index.ts',
  'nestjs-kafka-broadcast/engine': 'engine.ts',
  'nestjs-kafka-broadcast/terminus': 'terminus.ts',
  'nestjs-kafka-broadcast/microservices': 'microservices.ts',
  'nestjs-kafka-broadcast/locks': 'locks.ts',
  'nestjs-kafka-broadcast/testing': 'testing.ts',
};

/**
 * `@nestjs/config` is what the README's forRootAsync example uses, but not a dependency of this
 * repository: when it is not installed, the two members the example uses are declared here.
 */
const NEST_CONFIG_SHIM = `declare module '@nestjs/config' {
  import type { DynamicModule } from '@nestjs/common';
  export declare class ConfigModule { static forRoot(options?: { isGlobal?: boolean }): DynamicModule; }
  export declare class ConfigService {
    get<T = string>(key: string): T | undefined;
    get<T = string>(key: string, defaultValue: T): T;
    getOrThrow<T = string>(key: string): T;
  }
}
`;

/**
 * The files of the `nest new` app (@nestjs/cli 12) that the quick start keeps and imports without
 * showing them: written beside the titled blocks, as the scaffold makes them, unless a block is
 * that file.
 */
const SCAFFOLD_FILES: Record<string, string> = {
  'src/app.service.ts': `import { Injectable } from '@nestjs/common';
@Injectable()
export class AppService {
  getHello(): string {
    return 'Hello World!';
  }
}
`,
  'src/app.controller.ts': `import { Controller, Get } from '@nestjs/common';
import { AppService } from '../app.service.js';
@Controller()
export class AppController {
  constructor(private readonly appService: AppService) {}
  @Get()
  getHello(): string {
    return this.appService.getHello();
  }
}
`,
};

function isInstalled(name: string): boolean {
  try {
    import.meta.resolve(name);
    return true;
  } catch {
    return false;
  }
}

describe('README code blocks', () => {
  const blocks = READMES.flatMap((readme) =>
    readmeBlocks(readme, readFileSync(join(ROOT, readme), 'utf8')),
  ).filter(isTypeScript);

  it('the package README has TypeScript examples, and few are skipped', () => {
    expect(blocks.filter((b) => b.readme === READMES[0] && !b.skipped).length).toBeGreaterThan(5);
    // Skipped blocks are listed in the output so that a reviewer sees them.
    const skipped = blocks.filter((b) => b.skipped).map((b) => `${b.readme}:${b.line}`);
    if (skipped.length) console.info(`README blocks not checked (${SKIP_MARKER}):`, skipped);
    expect(skipped.length).toBeLessThanOrEqual(2);
  });

  it('every TypeScript block compiles against the package types', () => {
    // Inside the repository (under the gitignored .cache/) so that node_modules resolves.
    mkdirSync(join(ROOT, '.cache'), { recursive: true });
    const dir = mkdtempSync(join(ROOT, '.cache', 'readme-blocks-'));
    try {
      writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
      const files = new Map<string, ReadmeBlock>();
      blocks
        .filter((b) => !b.skipped)
        .forEach((block, i) => {
          // A titled block at its path in the quick-start app (one app: the package README's).
          const file = block.title ? join(dir, block.title) : join(dir, `block-${i}.ts`);
          if (files.has(file))
            throw new Error(`${block.readme}:${block.line}: a second ${block.title}`);
          mkdirSync(dirname(file), { recursive: true });
          // `export {}` keeps each block a module of its own, also when it imports nothing.
          writeFileSync(file, `${block.code}\nexport {};\n`);
          files.set(file, block);
        });
      const roots = [...files.keys()];
      for (const [path, source] of Object.entries(SCAFFOLD_FILES)) {
        const file = join(dir, path);
        if (files.has(file)) continue;
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(file, source);
        roots.push(file);
      }
      if (!isInstalled('@nestjs/config')) {
        writeFileSync(join(dir, 'nestjs-config.d.ts'), NEST_CONFIG_SHIM);
        roots.push(join(dir, 'nestjs-config.d.ts'));
      }
      const src = join(ROOT, 'libs/broadcast/src');
      const program = ts.createProgram(roots, {
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        target: ts.ScriptTarget.ES2023,
        strict: true,
        strictPropertyInitialization: false,
        experimentalDecorators: true,
        emitDecoratorMetadata: true,
        esModuleInterop: true,
        skipLibCheck: true,
        noEmit: true,
        types: ['node', 'vitest/globals'],
        typeRoots: [join(ROOT, 'node_modules/@types'), join(ROOT, 'node_modules')],
        paths: Object.fromEntries(
          Object.entries(ENTRIES).map(([name, file]) => [name, [join(src, file)]]),
        ),
      });
      // Only the blocks are checked (the library's own sources are `npm run typecheck`'s job),
      // which keeps this to the declarations the blocks reach.
      const diagnostics = [
        ...program.getOptionsDiagnostics(),
        ...program.getGlobalDiagnostics(),
        ...[...files.keys()].flatMap((file) => {
          const source = program.getSourceFile(file)!;
          return [
            ...program.getSyntacticDiagnostics(source),
            ...program.getSemanticDiagnostics(source),
          ];
        }),
      ];
      const problems = diagnostics
        .filter((d) => !d.file || files.has(resolve(d.file.fileName)))
        .map((d) => {
          const text = ts.flattenDiagnosticMessageText(d.messageText, '\n');
          if (!d.file || d.start === undefined) return text;
          const block = files.get(resolve(d.file.fileName))!;
          const { line } = d.file.getLineAndCharacterOfPosition(d.start);
          return `${block.readme}:${block.line + line}: ${text}`;
        });
      expect(problems).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
