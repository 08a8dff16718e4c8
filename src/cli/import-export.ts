// `parley import` and `parley export`: an organization from another server's export, and one out in the original's format.
import { Command, Option } from 'commander';
import { configOf, withApp, withServerOptions, type CliIO } from './common.js';
import { IMPORT_FORMATS, runImport, terminalProgress } from '../import/command.js';
import { runExport } from '../export/command.js';

export function importCommand(io: CliIO): Command {
  return withServerOptions(
    new Command('import')
      .description('create a new organization from an export (a directory, .zip or .tar.gz); prints one JSON line of counts with its realm_url')
      .argument('<path>', 'the export: directory, .zip or .tar.gz')
      .addOption(new Option('--format <format>', 'the export\'s format').choices([...IMPORT_FORMATS]).makeOptionMandatory())
      .option('--subdomain <subdomain>', 'subdomain of the new organization (default: the export\'s own, or "" for the root)')
      .option('--name <name>', 'name of the new organization (default: the export\'s own)')
      .option('--team <team>', 'Mattermost: the team to import (one organization per import)'),
  ).action(async (exportPath: string, opts) => {
    const config = configOf(opts, io.env);
    const out = await withApp(config, (app) =>
      runImport(app, { format: opts.format, path: exportPath, subdomain: opts.subdomain, name: opts.name, team: opts.team, progress: terminalProgress('importing messages') }),
    );
    io.print(JSON.stringify(out));
    io.code = 0;
  });
}

export function exportCommand(io: CliIO): Command {
  return withServerOptions(
    new Command('export')
      .description('write an organization in the original server\'s export format (a directory, or .tar.gz when PATH ends so); prints one JSON line')
      .argument('<path>', 'where to write the export')
      .option('--realm <subdomain>', 'the organization\'s subdomain; --realm "" (the default) is the root organization', ''),
  ).action(async (exportPath: string, opts) => {
    const config = configOf(opts, io.env);
    const subdomain = opts.realm === '""' ? '' : opts.realm;
    io.print(JSON.stringify(await withApp(config, (app) => runExport(app, subdomain, exportPath))));
    io.code = 0;
  });
}
