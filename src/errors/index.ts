export * from './api-errors.js';
export * from './config-error.js';
export * from './delivery-record-error.js';
export * from './reportd-error.js';
export * from './template-error.js';
export * from './theme-error.js';
export * from './usage-error.js';
