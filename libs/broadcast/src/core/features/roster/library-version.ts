/** This library's version, announced in each instance's group membership (see the roster). */
export const LIBRARY_VERSION = '0.1.0';
