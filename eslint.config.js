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
  { files: ['src/models/**'], rules: restrict(['**/store/*', 'Models hold types and tables, no I/O.'], ['**/lib/*', 'Models do not depend on rules.'], ACTIONS, VIEWS, ['**/events/*', 'Models do not depend on events.'], ['**/http/*', 'Models do not depend on HTTP.']) },
  { files: ['src/store/**'], rules: restrict(['**/lib/*', 'The store does not depend on rules.'], ACTIONS, VIEWS, ['**/events/*', 'The store does not know about events.'], ['**/http/*', 'The store does not know about HTTP.']) },
  { files: ['src/presenters/**'], rules: restrict(ACTIONS, VIEWS, PUBLISH, ['**/events/registry*', 'Presenters are pure.'], HTTP_SERVER) },
  { files: ['src/lib/**'], rules: restrict(ACTIONS, VIEWS, PUBLISH, ['**/events/registry*', 'lib reads; it does not touch queues.'], HTTP_SERVER) },
  { files: ['src/events/**'], ignores: ['src/events/register.ts'], rules: restrict(ACTIONS, VIEWS, HTTP_SERVER) },
  { files: ['src/events/apply*.ts'], rules: restrict(['**/store/*', 'Event application is pure.'], ['**/lib/*', 'Event application is pure.'], ACTIONS, VIEWS) },
  { files: ['src/actions/**'], rules: restrict(VIEWS, HTTP_SERVER) },
  { files: ['src/views/**'], rules: restrict(PUBLISH, VIEWS, HTTP_SERVER) },
  { files: ['src/workers/**'], rules: restrict(VIEWS, HTTP_SERVER) },
);
