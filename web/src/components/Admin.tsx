// Administration for owners and administrators: users and roles, deactivation, invitations, custom emoji, linkifiers.
import { useEffect, useState } from 'preact/hooks';
import { api, postForm } from '../api.js';
import { state } from '../store.js';

const ROLES: [value: number, label: string][] = [
  [100, 'Owner'],
  [200, 'Administrator'],
  [300, 'Moderator'],
  [400, 'Member'],
  [600, 'Guest'],
];

export function Admin() {
  const [message, setMessage] = useState('');
  const run = (p: Promise<unknown>, done = 'Done.') =>
    p.then(() => setMessage(done)).catch((e: Error) => setMessage(e.message));
  return (
    <div class="panel">
      <Users run={run} />
      <Invitations run={run} />
      <CustomEmoji run={run} />
      <Linkifiers run={run} />
      <p role="status">{message}</p>
    </div>
  );
}

type Run = (p: Promise<unknown>, done?: string) => Promise<void>;

function Users({ run }: { run: Run }) {
  const st = state.value!;
  const people = Object.values(st.users).sort((a, b) => a.full_name.localeCompare(b.full_name));
  return (
    <section aria-labelledby="admin-users">
      <h2 id="admin-users">Users</h2>
      <table>
        <tbody>
          {people.map((u) => (
            <tr key={u.user_id}>
              <th scope="row">
                {u.full_name} <span class="small">{u.email}</span>
              </th>
              <td>
                <select aria-label={`Role of ${u.full_name}`} value={u.role} disabled={u.user_id === st.me} onChange={(e) => void run(api('PATCH', `users/${u.user_id}`, { role: Number(e.currentTarget.value) }), 'Role changed.')}>
                  {ROLES.map(([v, l]) => (
                    <option key={v} value={v}>
                      {l}
                    </option>
                  ))}
                </select>
              </td>
              <td>
                {u.user_id !== st.me && (
                  <button type="button" onClick={() => void run(api('DELETE', `users/${u.user_id}`), `${u.full_name} was deactivated.`)}>
                    Deactivate {u.full_name}
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function Invitations({ run }: { run: Run }) {
  const st = state.value!;
  const [emails, setEmails] = useState('');
  const [role, setRole] = useState(400);
  return (
    <section aria-labelledby="admin-invites">
      <h2 id="admin-invites">Invitations</h2>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void run(api('POST', 'invites', { invitee_emails: emails, invite_as: role, stream_ids: Object.keys(st.subscriptions).map(Number) }).then(() => setEmails('')), 'Invitations sent.');
        }}
      >
        <label>
          Email addresses (comma-separated)
          <input value={emails} onInput={(e) => setEmails(e.currentTarget.value)} required />
        </label>
        <label>
          Invite as
          <select value={role} onChange={(e) => setRole(Number(e.currentTarget.value))}>
            {ROLES.map(([v, l]) => (
              <option key={v} value={v}>
                {l}
              </option>
            ))}
          </select>
        </label>
        <button type="submit">Send invitations</button>
      </form>
    </section>
  );
}

function CustomEmoji({ run }: { run: Run }) {
  const [emoji, setEmoji] = useState<Record<string, { id: string; name: string; source_url: string; deactivated: boolean }>>({});
  const [name, setName] = useState('');
  const [version, setVersion] = useState(0);
  useEffect(() => {
    api('GET', 'realm/emoji')
      .then((r) => setEmoji(r.emoji))
      .catch(() => setEmoji({}));
  }, [version]);
  async function upload(file: File) {
    const form = new FormData();
    form.append('file', file);
    await postForm(`realm/emoji/${encodeURIComponent(name)}`, form);
    setName('');
    setVersion((v) => v + 1);
  }
  return (
    <section aria-labelledby="admin-emoji">
      <h2 id="admin-emoji">Custom emoji</h2>
      <ul class="emoji-admin">
        {Object.values(emoji)
          .filter((e) => !e.deactivated)
          .map((e) => (
            <li key={e.id}>
              <img src={e.source_url} alt="" width={20} height={20} /> :{e.name}:{' '}
              <button type="button" onClick={() => void run(api('DELETE', `realm/emoji/${encodeURIComponent(e.name)}`).then(() => setVersion((v) => v + 1)))}>
                Remove :{e.name}:
              </button>
            </li>
          ))}
      </ul>
      <label>
        Emoji name
        <input value={name} onInput={(e) => setName(e.currentTarget.value)} pattern="[a-z0-9_\-]+" />
      </label>
      <label class="button">
        Upload emoji image
        <input type="file" accept="image/*" class="visually-hidden" disabled={!name} onChange={(e) => e.currentTarget.files?.[0] && void run(upload(e.currentTarget.files[0]), 'Emoji added.')} />
      </label>
    </section>
  );
}

function Linkifiers({ run }: { run: Run }) {
  const [list, setList] = useState<{ id: number; pattern: string; url_template: string }[]>([]);
  const [pattern, setPattern] = useState('');
  const [template, setTemplate] = useState('');
  const [version, setVersion] = useState(0);
  useEffect(() => {
    api('GET', 'realm/linkifiers')
      .then((r) => setList(r.linkifiers))
      .catch(() => setList([]));
  }, [version]);
  return (
    <section aria-labelledby="admin-linkifiers">
      <h2 id="admin-linkifiers">Linkifiers</h2>
      <ul>
        {list.map((l) => (
          <li key={l.id}>
            <code>{l.pattern}</code> → <code>{l.url_template}</code>{' '}
            <button type="button" onClick={() => void run(api('DELETE', `realm/filters/${l.id}`).then(() => setVersion((v) => v + 1)))}>
              Remove linkifier {l.pattern}
            </button>
          </li>
        ))}
      </ul>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void run(
            api('POST', 'realm/filters', { pattern, url_template: template }).then(() => {
              setPattern('');
              setTemplate('');
              setVersion((v) => v + 1);
            }),
            'Linkifier added.',
          );
        }}
      >
        <label>
          Pattern
          <input value={pattern} onInput={(e) => setPattern(e.currentTarget.value)} required placeholder="#(?P<id>[0-9]+)" />
        </label>
        <label>
          URL template
          <input value={template} onInput={(e) => setTemplate(e.currentTarget.value)} required placeholder="https://tracker.example/{id}" />
        </label>
        <button type="submit">Add linkifier</button>
      </form>
    </section>
  );
}
