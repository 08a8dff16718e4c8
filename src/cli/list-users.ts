// `parley list-users`: the accounts of one organization, as one JSON line.
import { Command } from 'commander';
import { configOf, realmNamed, urlOf, withApp, withServerOptions, type CliIO } from './common.js';

export function listUsersCommand(io: CliIO): Command {
  return withServerOptions(
    new Command('list-users')
      .description('list the accounts of an organization; prints {"realm_id","realm_url","users":[{"user_id","email","full_name","role","is_bot","is_active"}]}')
      .requiredOption('--realm <subdomain>', 'the organization\'s subdomain; --realm "" is the root organization'),
  ).action(async (opts) => {
    const config = configOf(opts, io.env);
    const out = await withApp(config, async (app) => {
      const realm = await realmNamed(app, opts.realm);
      const rows = await app.store.db.selectFrom('users').select(['id', 'email', 'full_name', 'role', 'is_bot', 'is_active']).where('realm_id', '=', realm.id).orderBy('id').execute();
      const users = rows.map((u) => ({ user_id: u.id, email: u.email, full_name: u.full_name, role: u.role, is_bot: !!u.is_bot, is_active: !!u.is_active }));
      return { realm_id: realm.id, realm_url: urlOf(config, realm), users };
    });
    io.print(JSON.stringify(out));
    io.code = 0;
  });
}
