/** npm's pack report of the library tarball, plus its absolute path. */
export interface PackedLibrary {
  filename: string;
  path: string;
  size: number;
  unpackedSize: number;
  entryCount: number;
}
export declare const PACK_DIR: string;
export declare function packLibrary(): PackedLibrary;
