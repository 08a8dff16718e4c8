// Lint: TypeScript recommendations plus the dependency rules of docs/architecture.md.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const restrict = (...groups) => ({
  'no-restricted-imports': ['error', { patterns: groups.map(([group, message]) => ({ group: [group], message })) }],
});

const PUBLISH = ['**/events/publish*', 'Only actions may send events (src/events/publish.ts).'];
const ACTIONS = ['**/actions/*', 'This layer may not call actions.'];
const VIEWS = ['**/views/*', 'Nothing imports views except the route table.'];
const HTTP_SERVER = ['**/http/server*', 'Only the composition root builds the HTTP server.'];
const HTTP = ['**/http/*', 'Only views and the composition root know HTTP: errors, parameters and validators live in src/core/.'];
const ROUTES = ['**/http/routes*', 'The route table imports views, never the other way round (RouteList is in src/http/router.ts).'];
const UPPER = (layer) => [[`**/${layer}/*`, 'src/core/ is the bottom layer: it imports nothing of Parley.']];
/** Views call lib reads and actions; they never build queries themselves. */
const NO_QUERIES = {
  'no-restricted-syntax': [
    'error',
    ...['selectFrom', 'insertInto', 'updateTable', 'deleteFrom', 'selectNoFrom'].map((name) => ({
      selector: `MemberExpression[property.name='${name}']`,
      message: 'Views never query the database: put the query in src/lib/ (a read) or src/actions/ (a write).',
    })),
  ],
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', 'bin/**', 'scripts/**', 'eslint.config.js'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-control-regex': 'off',
    },
  },
  { files: ['src/core/**'], rules: restrict(...['models', 'store', 'lib', 'actions', 'views', 'events', 'http', 'presenters', 'workers'].flatMap(UPPER)) },
  { files: ['src/models/**'], rules: restrict(['**/store/*', 'Models hold types and tables, no I/O.'], ['**/lib/*', 'Models do not depend on rules.'], ACTIONS, VIEWS, ['**/events/*', 'Models do not depend on events.'], HTTP) },
  { files: ['src/store/**'], rules: restrict(['**/lib/*', 'The store does not depend on rules.'], ACTIONS, VIEWS, ['**/events/*', 'The store does not know about events.'], HTTP) },
  { files: ['src/presenters/**'], rules: restrict(ACTIONS, VIEWS, PUBLISH, ['**/events/registry*', 'Presenters are pure.'], HTTP) },
  { files: ['src/lib/**'], rules: restrict(ACTIONS, VIEWS, PUBLISH, ['**/events/registry*', 'lib reads; it does not touch queues.'], HTTP) },
  { files: ['src/events/**'], ignores: ['src/events/register.ts'], rules: restrict(ACTIONS, VIEWS, HTTP) },
  { files: ['src/events/register.ts'], rules: restrict(VIEWS, HTTP) },
  { files: ['src/events/apply*.ts'], rules: restrict(['**/store/*', 'Event application is pure.'], ['**/lib/*', 'Event application is pure.'], ACTIONS, VIEWS, HTTP) },
  { files: ['src/actions/**'], rules: restrict(VIEWS, HTTP) },
  { files: ['src/views/**'], rules: { ...restrict(PUBLISH, VIEWS, HTTP_SERVER, ROUTES, ['kysely', 'Views never query the database (see src/lib/).']), ...NO_QUERIES } },
  { files: ['src/workers/**'], rules: restrict(VIEWS, HTTP) },
);
