// `parley grant-permission`: the operator grants (or revokes) one of the original's special permissions, never grantable through the API; prints one JSON line.
import { Command, Option } from 'commander';
import { userByEmail } from '../lib/users.js';
import { CommandError, configOf, realmNamed, urlOf, withApp, withServerOptions, type CliIO } from './common.js';

/** The special permissions, each a users column of 0 or 1 (POST /users; new_email in PATCH /users/{id}). */
const PERMISSIONS = ['can_create_users', 'can_change_user_emails'] as const;
type Permission = (typeof PERMISSIONS)[number];

export function grantPermissionCommand(io: CliIO): Command {
  return withServerOptions(
    new Command('grant-permission')
      .description('grant or revoke a special permission; prints {"realm_id","realm_url","user_id","email","permission","granted"}')
      .requiredOption('--realm <subdomain>', 'the organization\'s subdomain; --realm "" is the root organization')
      .requiredOption('--email <email>', "the account's email")
      .addOption(new Option('--permission <name>', 'can_create_users: create accounts through POST /users (administrators); can_change_user_emails: change emails (owners)').choices(PERMISSIONS).makeOptionMandatory())
      .option('--revoke', 'take the permission away instead'),
  ).action(async (opts) => {
    const permission = opts.permission as Permission;
    const granted = !opts.revoke;
    const config = configOf(opts, io.env);
    const out = await withApp(config, async (app) => {
      const realm = await realmNamed(app, opts.realm);
      const user = await userByEmail(app.store.db, realm.id, opts.email);
      if (!user) throw new CommandError(`no account ${opts.email} in this organization`);
      await app.store.write((tx) => tx.updateTable('users').set({ [permission]: granted ? 1 : 0 }).where('id', '=', user.id).execute());
      // Servers on the same bus drop their cached row at once; others within the user cache's lifetime (30 s).
      app.caches.userChanged(user.id);
      return { realm_id: realm.id, realm_url: urlOf(config, realm), user_id: user.id, email: user.email, permission, granted };
    });
    io.print(JSON.stringify(out));
    io.code = 0;
  });
}
