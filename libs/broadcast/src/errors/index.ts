export * from './broadcast.messages.js';
export * from './broadcast-options.error.js';
export * from './broadcast-allocation.error.js';
export * from './broadcast-startup.error.js';
