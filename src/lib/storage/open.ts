// Picks the app's one FileStorage from the configuration (PARLEY_FILE_STORE / --file-store).
import type { Config } from '../../config.js';
import type { Store } from '../../store/store.js';
import type { Clock } from '../../context.js';
import { LocalFileStorage, type FileStorage } from './index.js';
import { DatabaseFileStorage } from './database.js';

/** local (default): files under the data directory, one node; database: rows every node on the database reads. */
export function openFileStorage(config: Config, store: Store, clock: Clock): FileStorage {
  return config.fileStore === 'database' ? new DatabaseFileStorage(store, () => clock.now()) : new LocalFileStorage(config.dataDir);
}
