// The parley command line: one JSON line per data command, --help/--version, usage errors (exit 2),
// --realm "" for the root organization, README's --role 400, the config file and its precedence,
// realm_url matching the running server, the first owner's login file, change-password,
// grant-permission, list-*.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { request } from './helpers/server.js';
import { freshStorage, startServeProcess } from './helpers/storage.js';
import { cli, cliProcess, freePort, jsonLine, root } from './helpers/cli.js';
import { resolveConfig } from '../src/config-file.js';

const COMMANDS = ['serve', 'create-realm', 'create-user', 'change-password', 'grant-permission', 'list-realms', 'list-users', 'migrate', 'backup', 'restore'];

test('create-realm and create-user print one JSON line each', async () => {
  const st = await freshStorage();
  try {
    const r = jsonLine(await cli(['create-realm', '--name', 'Acme', '--subdomain', 'acme', '--owner-email', 'boss@acme.test', '--owner-name', 'Boss', '--owner-password', 'pw1', ...st.args]));
    assert.deepEqual(Object.keys(r).sort(), ['api_key', 'email', 'realm_id', 'realm_url', 'user_id']);
    assert.equal(r.email, 'boss@acme.test');
    assert.match(r.realm_url, /acme\./);
    const u = jsonLine(await cli(['create-user', '--realm', 'acme', '--email', 'ann@acme.test', '--name', 'Ann', '--password', 'pw2', '--role', '600', ...st.args]));
    assert.deepEqual(Object.keys(u).sort(), ['api_key', 'email', 'realm_id', 'realm_url', 'user_id']);
    assert.equal(u.email, 'ann@acme.test');
    assert.equal(u.realm_id, r.realm_id);
    assert.notEqual(u.api_key, r.api_key);
    const dup = await cli(['create-user', '--realm', 'acme', '--email', 'ann@acme.test', '--name', 'Ann', '--password', 'pw2', ...st.args]);
    assert.equal(dup.code, 1, 'a failing command (not a usage error) exits 1');
    assert.match(dup.stderr, /^parley create-user: /);
  } finally {
    await st.cleanup();
  }
});

test('every command answers --help with its own usage, exit 0; --version prints package.json version', async () => {
  for (const command of COMMANDS) {
    const r = await cli([command, '--help']);
    assert.equal(r.code, 0, `${command} --help: ${r.stderr}`);
    assert.match(r.lines.join('\n'), new RegExp(`^Usage: parley ${command} `), command);
    assert.match(r.lines.join('\n'), /--data-dir <dir>/, `${command} --help lists the shared options`);
  }
  const help = await cli(['--help']);
  assert.equal(help.code, 0);
  for (const command of COMMANDS) assert.match(help.lines.join('\n'), new RegExp(`\\n  ${command} `));
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  const version = await cli(['--version']);
  assert.equal(version.code, 0);
  assert.deepEqual(version.lines, [pkg.version]);
  const bare = await cli([]);
  assert.equal(bare.code, 2, 'no command is a usage error');
  assert.match(bare.stderr, /Usage: parley/);
});

test('unknown flags, unknown commands and missing values are usage errors (exit 2) that change nothing', async () => {
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-cwd-'));
  try {
    // Run where ./data would appear if the misspelt flag were ignored, as it once was.
    const typo = await cliProcess(['serve', '--datadir', 'x'], {}, { cwd });
    assert.equal(typo.code, 2, typo.stderr);
    assert.match(typo.stderr, /unknown option '--datadir'/);
    assert.match(typo.stderr, /--data-dir/, 'suggests the right flag');
    assert.deepEqual(fs.readdirSync(cwd), [], 'nothing was written');
  } finally {
    fs.rmSync(cwd, { recursive: true, force: true });
  }
  const cases: [string[], RegExp][] = [
    [['create-realm', '--name'], /argument missing/],
    [['create-realm', '--name', 'NoOwner'], /required option '--owner-email/],
    [['create-user', '--realm', 'acme', '--email', 'a@b.test', '--name', 'A', '--password'], /argument missing/],
    [['create-user', '--realm', 'acme', '--email', 'a@b.test', '--name', 'A', '--password', 'p', '--role', '7'], /--role/],
    [['serve', '--port', 'eighty'], /--port/],
    [['backup'], /missing required argument 'path'/],
    [['list-realms', 'extra'], /too many arguments/],
    [['frobnicate'], /unknown command 'frobnicate'/],
  ];
  for (const [args, message] of cases) {
    const r = await cli(args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, message, args.join(' '));
    assert.deepEqual(r.lines, [], 'nothing on stdout');
  }
});

test('--realm "" addresses the root organization; --role 400 and role names work', async () => {
  const st = await freshStorage();
  try {
    const root = jsonLine(await cli(['create-realm', '--name', 'Root', '--owner-email', 'o@root.test', '--owner-name', 'O', '--owner-password', 'pw', ...st.args]));
    const missing = await cli(['create-user', '--realm', 'nope', '--email', 'x@root.test', '--name', 'X', '--password', 'pw', ...st.args]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /no organization with subdomain "nope"/);
    const ann = jsonLine(await cli(['create-user', '--realm', '', '--email', 'ann@root.test', '--name', 'Ann', '--password', 'pw', '--role', '400', ...st.args]));
    assert.equal(ann.realm_id, root.realm_id);
    const bob = jsonLine(await cli(['create-user', '--realm=', '--email', 'bob@root.test', '--name', 'Bob', '--password', 'pw', '--role', 'moderator', ...st.args]));
    const cy = jsonLine(await cli(['create-user', '--realm', '""', '--email', 'cy@root.test', '--name', 'Cy', '--password', 'pw', ...st.args]));
    assert.equal(cy.realm_id, root.realm_id, "the quoted '\"\"' of older instructions still works");
    const list = jsonLine(await cli(['list-users', '--realm', '', ...st.args]));
    const roles = Object.fromEntries(list.users.map((u: any) => [u.email, u.role]));
    assert.deepEqual([roles['o@root.test'], roles['ann@root.test'], roles['bob@root.test'], roles['cy@root.test']], [100, 400, 300, 400]);
    assert.equal(list.users.find((u: any) => u.email === 'ann@root.test').user_id, ann.user_id);
    assert.equal(bob.realm_id, root.realm_id);
    const realms = jsonLine(await cli(['list-realms', ...st.args]));
    assert.deepEqual(realms.realms.map((r: any) => [r.subdomain, r.name, r.users]), [['', 'Root', 4]]);
  } finally {
    await st.cleanup();
  }
});

test('the config file: flags win over PARLEY_* variables, which win over the file; unknown keys are errors', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-conf-'));
  try {
    const toml = path.join(dir, 'parley.toml');
    fs.writeFileSync(toml, 'port = 1111\nhost = "0.0.0.0"\ndata_dir = "/srv/parley"\nbootstrap = false\nheartbeat_secs = 20\n[jwt_keys.acme]\nkey = "k"\nalgorithms = ["HS256"]\n');
    const fromFile = resolveConfig({ config: toml }, {});
    assert.equal(fromFile.port, 1111);
    assert.equal(fromFile.host, '0.0.0.0');
    assert.equal(fromFile.dataDir, '/srv/parley');
    assert.equal(fromFile.bootstrap, false);
    assert.equal(fromFile.heartbeatSecs, 20);
    assert.equal(fromFile.jwtKeys.get('acme')?.key, 'k');
    assert.equal(resolveConfig({ config: toml }, { PARLEY_PORT: '2222' }).port, 2222, 'env over file');
    assert.equal(resolveConfig({ config: toml, port: '3333' }, { PARLEY_PORT: '2222' }).port, 3333, 'flag over env');
    assert.equal(resolveConfig({}, { PARLEY_CONFIG: toml }).port, 1111, 'PARLEY_CONFIG names the file');
    const json = path.join(dir, 'parley.json');
    fs.writeFileSync(json, JSON.stringify({ port: 4444, database_url: 'postgres://db/parley' }));
    const j = resolveConfig({ config: json }, {});
    assert.deepEqual([j.port, j.databaseUrl], [4444, 'postgres://db/parley']);
    fs.writeFileSync(toml, 'prot = 1\n');
    assert.throws(() => resolveConfig({ config: toml }, {}), /unknown setting prot/);
    assert.throws(() => resolveConfig({ config: path.join(dir, 'absent.toml') }, {}), /cannot read config file/);
    fs.writeFileSync(toml, 'port = \n');
    assert.throws(() => resolveConfig({ config: toml }, {}), /not valid TOML/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('./parley.toml is the default config file; create-* print the realm_url of the server that reads it', async () => {
  const st = await freshStorage();
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-cwd-'));
  try {
    const port = await freePort();
    // The storage comes from the file too, so serve and create-realm share nothing but it.
    const lines = [`port = ${port}`, `data_dir = ${JSON.stringify(st.env.PARLEY_DATA_DIR)}`];
    if (st.env.PARLEY_DATABASE_URL) lines.push(`database_url = ${JSON.stringify(st.env.PARLEY_DATABASE_URL)}`);
    fs.writeFileSync(path.join(cwd, 'parley.toml'), lines.join('\n') + '\n');
    const made = await cliProcess(['create-realm', '--name', 'Acme', '--subdomain', 'acme', '--owner-email', 'boss@acme.test', '--owner-name', 'Boss', '--owner-password', 'pw'], { PARLEY_DATA_DIR: '', PARLEY_DATABASE_URL: '' }, { cwd });
    assert.equal(made.code, 0, made.stderr);
    const acme = JSON.parse(made.stdout);
    assert.equal(acme.realm_url, `http://acme.localhost:${port}`);
    const server = await startServeProcess(root, { args: [], env: { PARLEY_DATA_DIR: '', PARLEY_DATABASE_URL: '' }, cleanup: async () => {} }, ['--bootstrap', '0'], {}, cwd);
    try {
      assert.equal(server.url, `http://127.0.0.1:${port}`, 'serve listens on the port of the file');
      // The realm_url's host, sent as the Host header, selects the organization.
      const host = new URL(acme.realm_url).host;
      const settings = await request(server.url, 'GET', 'server_settings', {}, { host });
      assert.equal(settings.body.realm_name, 'Acme');
      assert.equal(settings.body.realm_url, acme.realm_url);
      const me = await request(server.url, 'GET', 'users/me', {}, { host, auth: { email: acme.email, apiKey: acme.api_key } });
      assert.equal(me.status, 200);
    } finally {
      await server.stop();
    }
  } finally {
    fs.rmSync(cwd, { recursive: true, force: true });
    await st.cleanup();
  }
});

test('serve creates a first organization once; off a terminal its login goes to a 0600 file, not the log', async () => {
  const st = await freshStorage();
  const start = () => startServeProcess(root, st);
  try {
    const first = await start();
    const file = /login is in (\S+) \(/.exec(first.out)?.[1];
    assert.ok(file, first.out);
    assert.equal(path.dirname(file), st.env.PARLEY_DATA_DIR);
    assert.equal(fs.statSync(file).mode & 0o777, 0o600, 'readable only by the owner');
    const printed = first.out.slice(0, first.out.indexOf('Created a first organization.', first.out.indexOf('login is in')));
    assert.doesNotMatch(printed, /Password:|API key:/, 'no secret in the output');
    const content = fs.readFileSync(file, 'utf8');
    const email = /Email:\s+(\S+)/.exec(content)?.[1];
    const key = /API key:\s+(\S+)/.exec(content)?.[1];
    const password = /Password:\s+(\S+)/.exec(content)?.[1];
    assert.ok(email && key && password, content);
    assert.match(content, new RegExp(`\\[api\\]\\nemail=${email}\\nkey=${key}\\nsite=http://localhost:`), 'a zuliprc to copy');
    const me = await request(first.url, 'GET', 'users/me', {}, { auth: { email, apiKey: key } });
    assert.equal(me.status, 200);
    assert.equal(me.body.role, 100);
    const login = await request(first.url, 'POST', 'fetch_api_key', { username: email, password });
    assert.equal(login.status, 200);
    await first.stop();
    const second = await start();
    assert.doesNotMatch(second.out, /login is in|Password:/, 'the login is given only on the first start');
    await second.stop();
  } finally {
    await st.cleanup();
  }
});

test('change-password sets a new password that the running server accepts', async () => {
  const st = await freshStorage();
  try {
    const server = await startServeProcess(root, st);
    try {
      const email = /Email:\s+(\S+)/.exec(server.out)![1];
      const old = /Password:\s+(\S+)/.exec(server.out)![1];
      const out = jsonLine(await cli(['change-password', '--realm', '', '--email', email, '--password', 'new-secret-1', ...st.args]));
      assert.deepEqual(Object.keys(out).sort(), ['email', 'realm_id', 'realm_url', 'user_id']);
      assert.equal((await request(server.url, 'POST', 'fetch_api_key', { username: email, password: 'new-secret-1' })).status, 200);
      assert.equal((await request(server.url, 'POST', 'fetch_api_key', { username: email, password: old })).status, 401);
      const viaStdin = await new Promise<number>((resolve) => {
        import('node:child_process').then(({ spawn }) => {
          const child = spawn(process.execPath, [path.join(root, 'bin/parley.js'), 'change-password', '--realm', '', '--email', email, '--password-stdin', ...st.args], { env: { ...process.env, ...st.env } });
          child.stdin.end('from-stdin-2\n');
          child.once('close', (code) => resolve(code ?? -1));
        });
      });
      assert.equal(viaStdin, 0);
      assert.equal((await request(server.url, 'POST', 'fetch_api_key', { username: email, password: 'from-stdin-2' })).status, 200);
      const both = await cli(['change-password', '--realm', '', '--email', email, ...st.args]);
      assert.equal(both.code, 1);
      assert.match(both.stderr, /exactly one of --password and --password-stdin/);
      const nobody = await cli(['change-password', '--realm', '', '--email', 'nobody@example.com', '--password', 'x', ...st.args]);
      assert.equal(nobody.code, 1);
    } finally {
      await server.stop();
    }
  } finally {
    await st.cleanup();
  }
});

test('grant-permission lets the first owner create users through the API; revoke and bad input', async () => {
  const st = await freshStorage();
  try {
    const server = await startServeProcess(root, st);
    try {
      const email = /Email:\s+(\S+)/.exec(server.out)![1];
      const password = /Password:\s+(\S+)/.exec(server.out)![1];
      // Granted before the server has read (and cached) the owner's row for a request.
      const out = jsonLine(await cli(['grant-permission', '--realm', '', '--email', email, '--permission', 'can_create_users', ...st.args]));
      assert.deepEqual(Object.keys(out).sort(), ['email', 'granted', 'permission', 'realm_id', 'realm_url', 'user_id']);
      assert.deepEqual([out.permission, out.granted], ['can_create_users', true]);
      const key = await request(server.url, 'POST', 'fetch_api_key', { username: email, password });
      const auth = { email, apiKey: key.body.api_key as string };
      const created = await request(server.url, 'POST', 'users', { email: 'made.by.api@example.com', password: 'made-password', full_name: 'Made By Api' }, { auth });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      const revoked = jsonLine(await cli(['grant-permission', '--realm', '', '--email', email, '--permission', 'can_create_users', '--revoke', ...st.args]));
      assert.equal(revoked.granted, false);
      const unknown = await cli(['grant-permission', '--realm', '', '--email', email, '--permission', 'can_forge_sender', ...st.args]);
      assert.equal(unknown.code, 2, 'an unknown permission is a usage error');
      const nobody = await cli(['grant-permission', '--realm', '', '--email', 'nobody@example.com', '--permission', 'can_create_users', ...st.args]);
      assert.equal(nobody.code, 1);
      assert.match(nobody.stderr, /no account nobody@example.com/);
    } finally {
      await server.stop();
    }
  } finally {
    await st.cleanup();
  }
});

test('migrate applies every migration once and then none', async () => {
  const st = await freshStorage();
  try {
    const first = jsonLine(await cli(['migrate', ...st.args]));
    assert.equal(first.applied.length, first.migrations);
    assert.ok(first.migrations >= 13);
    const again = jsonLine(await cli(['migrate', ...st.args]));
    assert.deepEqual(again.applied, []);
  } finally {
    await st.cleanup();
  }
});
