// Preferences this browser keeps for itself. Enter sends by default (the behaviour); the API's
// enter_sends setting defaults to false for the original's clients, so it is not used for this choice.
import { signal } from '@preact/signals';

const KEY = 'parley.enterSends';

function stored(): boolean {
  try {
    return localStorage.getItem(KEY) !== 'false';
  } catch {
    return true;
  }
}

export const enterSendsPreference = signal<boolean>(stored());

export function setEnterSends(on: boolean): void {
  enterSendsPreference.value = on;
  try {
    localStorage.setItem(KEY, String(on));
  } catch {
    // Private browsing without storage: the choice lasts for this page.
  }
}
