// The secrets grep: every text a secured test captured (log lines, errors, health details,
// CLI or demo output) is searched for every password the test used.
import { expect } from 'vitest';

/** Fails naming where a secret showed up; `captured` maps a source name to its texts. */
export function expectNoSecrets(secrets: readonly string[], captured: Record<string, string[]>) {
  const total = Object.values(captured).reduce((n, texts) => n + texts.length, 0);
  expect(total, 'something was captured to search').toBeGreaterThan(0);
  const leaks = Object.entries(captured).flatMap(([source, texts]) =>
    texts.flatMap((text) =>
      secrets.filter((secret) => text.includes(secret)).map((secret) => `${source}: ${secret}`),
    ),
  );
  expect(leaks).toEqual([]);
}
