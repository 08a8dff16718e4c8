// The two databases Parley runs on.
export type Dialect = 'sqlite' | 'postgres';
