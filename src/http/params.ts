// Kept for routes written before the move: parameters and validators live in src/core/params.ts.
export * from '../core/params.js';
