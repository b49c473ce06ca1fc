export * from './broadcast.messages.js';
export * from './broadcast-options.error.js';
export * from './broadcast-allocation.error.js';
export * from './broadcast-publish.error.js';
export * from './broadcast-validation.error.js';
export * from './broadcast-receipt.error.js';
export * from './broadcast-startup.error.js';
export * from './broadcast-stopped.error.js';
