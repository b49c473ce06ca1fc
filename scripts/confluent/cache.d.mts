/** Types of scripts/confluent/cache.mjs for the TypeScript tests and the bench. */
export declare const CONFLUENT_VERSION: string;
export declare const CONFLUENT_PACKAGE: string;
export declare const MACHINE_CACHE_DIR: string;
export function cacheRoot(env?: NodeJS.ProcessEnv): string;
export function libc(): 'glibc' | 'musl';
export function cacheKey(): string;
export function cachedBuildDir(env?: NodeJS.ProcessEnv): string;
export function cachedPackage(env?: NodeJS.ProcessEnv): string | undefined;
