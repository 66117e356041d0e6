// Confirmation dialogs: one the user must type a word into (deleting a
// bucket), one plain (deleting an object, a version, a user), one showing
// what it will send (a rule, a policy statement).

import { h, dialog, field, button, buttons, submit } from './dom.js';

/** confirmTyped asks the user to type word before action runs. */
export function confirmTyped(title, message, word, action, label = 'Delete') {
  const input = h('input', {
    name: 'confirm',
    autocomplete: 'off',
    spellcheck: 'false',
    'data-test': 'confirm-input',
    'aria-label': `Type ${word} to confirm`,
  });
  const ok = submit(label, 'danger', { 'data-test': 'confirm-submit', disabled: true });
  input.addEventListener('input', () => (ok.disabled = input.value !== word));
  const p = dialog(
    title,
    (form, close) => [h('p', null, message), field(`Type “${word}” to confirm`, input), buttons(close, ok)],
    async () => {
      if (input.value !== word) throw new Error(`Type ${word} exactly.`);
      await action();
    },
  );
  input.focus();
  return p;
}

/** confirmPlain asks yes or no before action runs. */
export function confirmPlain(title, message, action, label = 'Delete') {
  return confirmShowing(title, message, '', action, label);
}

/**
 * confirmShowing asks yes or no before action runs, showing message and below it shown (text: what will be sent,
 * '' for nothing); cls is the class of the confirming button. An error of action shows in the dialog, kept open.
 */
export function confirmShowing(title, message, shown, action, label, cls = 'danger') {
  const ok = submit(label, cls, { 'data-test': 'confirm-submit' });
  const p = dialog(
    title,
    (form, close) => [
      h('p', null, message),
      shown && h('pre', { class: 'shown', 'data-test': 'confirm-shown' }, shown),
      buttons(close, ok),
    ],
    action,
  );
  ok.focus();
  return p;
}

/** deleteButton is a link-like Delete that confirms, runs action, then done(); attrs add or replace. */
export function deleteButton(title, message, action, done, attrs = null) {
  return button('Delete', () => confirmPlain(title, message, action).then((ok) => ok && done()), 'linkish danger-text', attrs);
}
