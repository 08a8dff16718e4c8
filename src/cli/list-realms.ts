// `parley list-realms`: the organizations, as one JSON line.
import { Command } from 'commander';
import { realmUrl } from '../lib/state/realm.js';
import { configOf, withApp, withServerOptions, type CliIO } from './common.js';

export function listRealmsCommand(io: CliIO): Command {
  return withServerOptions(new Command('list-realms').description('list the organizations; prints {"realms":[{"realm_id","subdomain","name","realm_url","users","deactivated"}]}')).action(async (opts) => {
    const config = configOf(opts, io.env);
    const realms = await withApp(config, async (app) => {
      const rows = await app.store.db.selectFrom('realms').select(['id', 'string_id', 'name', 'deactivated']).orderBy('id').execute();
      const counts = await app.store.db.selectFrom('users').select(['realm_id', (eb) => eb.fn.countAll<number>().as('n')]).where('is_bot', '=', 0).groupBy('realm_id').execute();
      const byRealm = new Map(counts.map((c) => [c.realm_id, Number(c.n)]));
      return rows.map((r) => ({ realm_id: r.id, subdomain: r.string_id, name: r.name, realm_url: realmUrl(config.externalUrl, r.string_id), users: byRealm.get(r.id) ?? 0, deactivated: !!r.deactivated }));
    });
    io.print(JSON.stringify({ realms }));
    io.code = 0;
  });
}
