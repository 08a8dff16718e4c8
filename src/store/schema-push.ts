// Table types of migration 022: users' mobile push devices (legacy APNs / FCM tokens).
import type { Generated } from 'kysely';

export interface PushDeviceTable {
  id: Generated<number>;
  user_id: number;
  /** "apns" or "fcm". */
  kind: string;
  token: string;
  /** The app's bundle ID (APNs only; the original requires it there). */
  app_id: string | null;
  created_at: number;
}

export interface ClientDeviceTable {
  id: Generated<number>;
  user_id: number;
  created_at: number;
}

export interface PushTables {
  push_devices: PushDeviceTable;
  client_devices: ClientDeviceTable;
}
