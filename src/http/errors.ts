// Kept for routes written before the move: the errors live in src/core/api-error.ts.
export * from '../core/api-error.js';
