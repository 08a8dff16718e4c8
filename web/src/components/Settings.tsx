// Settings: personal settings (PATCH /settings), channel subscriptions, and the administration pages.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { state } from '../store.js';
import { Admin } from './Admin.js';
import { enterSendsPreference, setEnterSends } from '../preferences.js';

const TABS: [id: string, label: string, adminOnly: boolean][] = [
  ['profile', 'Profile', false],
  ['display', 'Display', false],
  ['notifications', 'Notifications', false],
  ['channels', 'Channels', false],
  ['organization', 'Organization', true],
];

export function Settings({ tab }: { tab: string }) {
  const st = state.value!;
  const tabs = TABS.filter(([, , adminOnly]) => !adminOnly || st.isAdmin);
  return (
    <section class="settings" aria-labelledby="settings-title">
      <h1 id="settings-title">Settings</h1>
      <nav aria-label="Settings sections">
        <ul class="tabs">
          {tabs.map(([id, label]) => (
            <li key={id}>
              <a href={`#settings/${id}`} aria-current={tab === id ? 'page' : undefined}>
                {label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      {tab === 'profile' && <Profile />}
      {tab === 'display' && <Display />}
      {tab === 'notifications' && <Notifications />}
      {tab === 'channels' && <Channels />}
      {tab === 'organization' && st.isAdmin && <Admin />}
    </section>
  );
}

/** A setting saved as soon as it changes; the user_settings event updates the state. */
function useSaver() {
  const [message, setMessage] = useState('');
  const save = (params: Record<string, unknown>, done = 'Saved.') =>
    api('PATCH', 'settings', params)
      .then(() => setMessage(done))
      .catch((e: Error) => setMessage(e.message));
  const status = (
    <p class="status" role="status">
      {message}
    </p>
  );
  return { save, status };
}

function Profile() {
  const st = state.value!;
  const me = st.users[st.me];
  const [name, setName] = useState(me?.full_name ?? '');
  const [email, setEmail] = useState('');
  const [oldPassword, setOldPassword] = useState('');
  const [newPassword, setNewPassword] = useState('');
  const { save, status } = useSaver();
  return (
    <div class="panel">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void save({ full_name: name });
        }}
      >
        <label>
          Name
          <input value={name} onInput={(e) => setName(e.currentTarget.value)} required />
        </label>
        <button type="submit">Save name</button>
      </form>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void save({ email }, 'Check your new address for a confirmation link.');
        }}
      >
        <label>
          New email address
          <input type="email" value={email} onInput={(e) => setEmail(e.currentTarget.value)} required />
        </label>
        <button type="submit">Change email</button>
      </form>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void save({ old_password: oldPassword, new_password: newPassword }, 'Password changed.');
        }}
      >
        <label>
          Current password
          <input type="password" autocomplete="current-password" value={oldPassword} onInput={(e) => setOldPassword(e.currentTarget.value)} required />
        </label>
        <label>
          New password
          <input type="password" autocomplete="new-password" minLength={6} value={newPassword} onInput={(e) => setNewPassword(e.currentTarget.value)} required />
        </label>
        <button type="submit">Change password</button>
      </form>
      {status}
    </div>
  );
}

function Display() {
  const s = state.value!.settings;
  const { save, status } = useSaver();
  const zones = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return (
    <div class="panel">
      <label>
        Theme
        <select value={String(s.color_scheme ?? 1)} onChange={(e) => void save({ color_scheme: Number(e.currentTarget.value) })}>
          <option value="1">Automatic</option>
          <option value="3">Light</option>
          <option value="2">Dark</option>
        </select>
      </label>
      <label>
        Font size
        <select value={String(s.web_font_size_px ?? 14)} onChange={(e) => void save({ web_font_size_px: Number(e.currentTarget.value) })}>
          {[12, 14, 16, 18, 20].map((px) => (
            <option key={px} value={px}>
              {px} px
            </option>
          ))}
        </select>
      </label>
      <label class="check">
        <input type="checkbox" checked={s.twenty_four_hour_time === true} onChange={(e) => void save({ twenty_four_hour_time: e.currentTarget.checked })} />
        24-hour time
      </label>
      <label class="check">
        <input type="checkbox" checked={enterSendsPreference.value} onChange={(e) => setEnterSends(e.currentTarget.checked)} />
        Enter sends (otherwise Ctrl+Enter; kept in this browser)
      </label>
      <label>
        Time zone
        <select value={String(s.timezone ?? '')} onChange={(e) => void save({ timezone: e.currentTarget.value })}>
          <option value="">Browser default</option>
          {zones.map((z) => (
            <option key={z} value={z}>
              {z}
            </option>
          ))}
        </select>
      </label>
      <label>
        Language
        <select value={String(s.default_language ?? 'en')} onChange={(e) => void save({ default_language: e.currentTarget.value })}>
          {['en', 'de', 'es', 'fr', 'it', 'ja', 'pt', 'ru', 'zh-hans'].map((l) => (
            <option key={l} value={l}>
              {l}
            </option>
          ))}
        </select>
      </label>
      {status}
    </div>
  );
}

function Notifications() {
  const s = state.value!.settings;
  const { save, status } = useSaver();
  const [permission, setPermission] = useState(typeof Notification === 'undefined' ? 'unsupported' : Notification.permission);
  const toggles: [key: string, label: string][] = [
    ['enable_desktop_notifications', 'Browser notifications for mentions and direct messages'],
    ['enable_sounds', 'Sounds'],
    ['enable_offline_email_notifications', 'Email me about direct messages while I am away'],
    ['enable_stream_desktop_notifications', 'Browser notifications for channel messages'],
  ];
  return (
    <div class="panel">
      {toggles.map(([key, label]) => (
        <label class="check" key={key}>
          <input type="checkbox" checked={s[key] === true} onChange={(e) => void save({ [key]: e.currentTarget.checked })} />
          {label}
        </label>
      ))}
      {permission === 'default' && (
        <button type="button" onClick={() => void Notification.requestPermission().then(setPermission)}>
          Allow browser notifications
        </button>
      )}
      {permission === 'denied' && <p>This browser blocks notifications from this site.</p>}
      {status}
    </div>
  );
}

function Channels() {
  const st = state.value!;
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [isPrivate, setPrivate] = useState(false);
  const [message, setMessage] = useState('');
  const [all, setAll] = useState<{ stream_id: number; name: string; description: string }[]>([]);
  const run = (p: Promise<unknown>, done = '') =>
    p.then(() => setMessage(done)).catch((e: Error) => setMessage(e.message));
  const channelCount = Object.keys(st.channels).length;
  useEffect(() => {
    api('GET', 'streams')
      .then((r) => setAll(r.streams))
      .catch(() => setAll(Object.values(st.channels)));
  }, [channelCount]);
  const prop = (stream_id: number, property: string, value: unknown) => run(api('POST', 'users/me/subscriptions/properties', { subscription_data: [{ stream_id, property, value }] }));
  return (
    <div class="panel">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void run(api('POST', 'users/me/subscriptions', { subscriptions: [{ name, description }], invite_only: isPrivate }).then(() => setName('')), `Created #${name}.`);
        }}
      >
        <h2>Create a channel</h2>
        <label>
          Channel name
          <input value={name} onInput={(e) => setName(e.currentTarget.value)} required maxLength={60} />
        </label>
        <label>
          Description
          <input value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
        </label>
        <label class="check">
          <input type="checkbox" checked={isPrivate} onChange={(e) => setPrivate(e.currentTarget.checked)} />
          Private
        </label>
        <button type="submit">Create channel</button>
      </form>
      <h2>All channels</h2>
      <table class="channels-table">
        <thead>
          <tr>
            <th scope="col">Channel</th>
            <th scope="col">Colour</th>
            <th scope="col">Muted</th>
            <th scope="col">Pinned</th>
            <th scope="col">Subscription</th>
          </tr>
        </thead>
        <tbody>
          {all.map((c) => {
            const sub = st.subscriptions[c.stream_id];
            return (
              <tr key={c.stream_id}>
                <th scope="row">
                  #{c.name}
                  <div class="small">{c.description}</div>
                </th>
                <td>{sub && <input type="color" aria-label={`Colour of ${c.name}`} value={sub.color} onChange={(e) => void prop(c.stream_id, 'color', e.currentTarget.value)} />}</td>
                <td>{sub && <input type="checkbox" aria-label={`Mute ${c.name}`} checked={sub.is_muted} onChange={(e) => void prop(c.stream_id, 'is_muted', e.currentTarget.checked)} />}</td>
                <td>{sub && <input type="checkbox" aria-label={`Pin ${c.name}`} checked={sub.pin_to_top} onChange={(e) => void prop(c.stream_id, 'pin_to_top', e.currentTarget.checked)} />}</td>
                <td>
                  {sub ? (
                    <button type="button" onClick={() => void run(api('DELETE', 'users/me/subscriptions', { subscriptions: [c.name] }))}>
                      Unsubscribe from {c.name}
                    </button>
                  ) : (
                    <button type="button" onClick={() => void run(api('POST', 'users/me/subscriptions', { subscriptions: [{ name: c.name }] }))}>
                      Subscribe to {c.name}
                    </button>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <p role="status">{message}</p>
    </div>
  );
}
