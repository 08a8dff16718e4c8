// `parley change-password`: the operator sets an account's password; prints one JSON line.
import fs from 'node:fs';
import { Command } from 'commander';
import { doResetPassword } from '../actions/account.js';
import { userByEmail } from '../lib/users.js';
import { CommandError, configOf, realmNamed, urlOf, withApp, withServerOptions, type CliIO } from './common.js';

export function changePasswordCommand(io: CliIO): Command {
  return withServerOptions(
    new Command('change-password')
      .description('set the password of an account; prints {"realm_id","realm_url","user_id","email"}')
      .requiredOption('--realm <subdomain>', 'the organization\'s subdomain; --realm "" is the root organization')
      .requiredOption('--email <email>', "the account's email")
      .option('--password <password>', 'the new password (visible to other local users in the process list)')
      .option('--password-stdin', 'read the new password from the first line of standard input'),
  ).action(async (opts) => {
    if ((opts.password === undefined) === !opts.passwordStdin) throw new CommandError('give exactly one of --password and --password-stdin');
    const password: string = opts.passwordStdin ? fs.readFileSync(0, 'utf8').split(/\r?\n/)[0] : opts.password;
    const config = configOf(opts, io.env);
    const out = await withApp(config, async (app) => {
      const realm = await realmNamed(app, opts.realm);
      const user = await userByEmail(app.store.db, realm.id, opts.email);
      if (!user) throw new CommandError(`no account ${opts.email} in this organization`);
      await doResetPassword(app, user, password);
      return { realm_id: realm.id, realm_url: urlOf(config, realm), user_id: user.id, email: user.email };
    });
    io.print(JSON.stringify(out));
    io.code = 0;
  });
}
