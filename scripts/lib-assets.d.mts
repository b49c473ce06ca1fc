// Types for scripts/lib-assets.mjs.

/** The library's *.cjs sources (libs/broadcast/src), absolute paths. */
export declare function libAssets(dir?: string): string[];

/** Copies every *.cjs source into each output directory, at its path relative to src/. */
export declare function copyLibAssets(outDirs: string[]): void;
