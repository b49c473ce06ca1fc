#!/usr/bin/env node
// The public API report: one API Extractor report per package entry, committed under etc/api/.
//   node scripts/api-report.mjs           check: fails when the built .d.ts differ from the reports
//   node scripts/api-report.mjs --update  rewrites the reports (commit them with the API change)
// Runs on libs/broadcast/dist/esm (npm run build:lib first).
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const { Extractor, ExtractorConfig } = require('@microsoft/api-extractor');

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const LIB = join(ROOT, 'libs', 'broadcast');
const ENTRIES = ['index', 'engine', 'terminus', 'microservices', 'locks', 'testing'];
const update = process.argv.includes('--update');
if (update) mkdirSync(join(ROOT, 'etc', 'api'), { recursive: true });

let failed = 0;
for (const entry of ENTRIES) {
  const config = ExtractorConfig.prepare({
    configObject: {
      projectFolder: LIB,
      mainEntryPointFilePath: join(LIB, 'dist', 'esm', `${entry}.d.ts`),
      compiler: { overrideTsconfig: { compilerOptions: { skipLibCheck: true, types: ['node'] } } },
      apiReport: {
        enabled: true,
        reportFileName: `${entry === 'index' ? 'nestjs-kafka-broadcast' : entry}.api.md`,
        reportFolder: join(ROOT, 'etc', 'api'),
        reportTempFolder: join(ROOT, '.cache', 'api'),
      },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        // Internal types reachable from public signatures are listed in the report itself.
        extractorMessageReporting: {
          'ae-forgotten-export': { logLevel: 'none', addToApiReportFile: true },
          'ae-missing-release-tag': { logLevel: 'none' },
        },
        tsdocMessageReporting: { default: { logLevel: 'none' } },
      },
    },
    configObjectFullPath: join(LIB, 'api-extractor.json'),
    packageJsonFullPath: join(LIB, 'package.json'),
  });
  const result = Extractor.invoke(config, { localBuild: update, showVerboseMessages: false });
  if (!result.succeeded || (!update && result.apiReportChanged)) {
    failed++;
    console.error(
      `API report of '${entry}' ${result.apiReportChanged ? 'changed' : 'failed'}: ` +
        'if the change is intended, run `npm run api:update` and commit etc/api/.',
    );
  }
}
if (failed) process.exit(1);
console.log(`API reports ${update ? 'updated' : 'match'}: ${ENTRIES.length} entries`);
