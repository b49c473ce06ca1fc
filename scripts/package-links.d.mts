/** Types of scripts/package-links.mjs for the TypeScript tests. */
export interface MarkdownLink {
  target: string;
  line: number;
}
export function markdownLinks(text: string): MarkdownLink[];
export function headingSlugs(text: string): Set<string>;
export function checkPackageLinks(dir: string): string[];
