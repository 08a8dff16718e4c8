// Sign-in, "forgot password" and the page a reset link opens.
import { useState } from 'preact/hooks';
import { account, setCsrfToken } from '../api.js';
import { session } from '../store.js';

export function Login() {
  const [mode, setMode] = useState<'login' | 'forgot' | 'sent'>('login');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  async function logIn(e: Event) {
    e.preventDefault();
    setBusy(true);
    setError('');
    try {
      const r = await account('POST', 'login', { username: email, password });
      setCsrfToken(r.csrf_token);
      session.value = { user_id: r.user_id, email: r.email, full_name: r.full_name };
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  }

  async function sendReset(e: Event) {
    e.preventDefault();
    setBusy(true);
    setError('');
    try {
      await account('POST', 'password/reset', { email });
      setMode('sent');
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  }

  return (
    <main class="auth">
      <h1>Parley</h1>
      {mode === 'login' && (
        <form onSubmit={logIn} aria-label="Log in">
          <label>
            Email
            <input type="email" name="email" autocomplete="username" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
          </label>
          <label>
            Password
            <input type="password" name="password" autocomplete="current-password" required value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
          </label>
          {error && (
            <p class="error" role="alert">
              {error}
            </p>
          )}
          <button type="submit" disabled={busy}>
            Log in
          </button>
          <button type="button" class="link" onClick={() => setMode('forgot')}>
            Forgot your password?
          </button>
        </form>
      )}
      {mode === 'forgot' && (
        <form onSubmit={sendReset} aria-label="Reset password">
          <p>We will email you a link to set a new password.</p>
          <label>
            Email
            <input type="email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
          </label>
          {error && (
            <p class="error" role="alert">
              {error}
            </p>
          )}
          <button type="submit" disabled={busy}>
            Send reset link
          </button>
          <button type="button" class="link" onClick={() => setMode('login')}>
            Back to log in
          </button>
        </form>
      )}
      {mode === 'sent' && (
        <p role="status">
          If an account uses {email}, a link to set a new password is on its way.{' '}
          <button type="button" class="link" onClick={() => setMode('login')}>
            Back to log in
          </button>
        </p>
      )}
    </main>
  );
}

export function ResetPassword() {
  const key = new URLSearchParams(location.search).get('key') ?? '';
  const [password, setPassword] = useState('');
  const [error, setError] = useState('');
  const [done, setDone] = useState(false);
  async function submit(e: Event) {
    e.preventDefault();
    setError('');
    try {
      await account('POST', 'password/set', { key, new_password: password });
      setDone(true);
    } catch (err) {
      setError((err as Error).message);
    }
  }
  return (
    <main class="auth">
      <h1>Set a new password</h1>
      {done ? (
        <p role="status">
          Your password is set. <a href="/">Log in</a>
        </p>
      ) : (
        <form onSubmit={submit} aria-label="Set a new password">
          <label>
            New password
            <input type="password" autocomplete="new-password" minLength={6} required value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
          </label>
          {error && (
            <p class="error" role="alert">
              {error}
            </p>
          )}
          <button type="submit">Set password</button>
        </form>
      )}
    </main>
  );
}
