// Confirmation dialogs: one the user must type a word into (deleting a
// bucket), one plain (deleting an object, a version, a user).

import { h, dialog, field } from './dom.js';

/** confirmTyped asks the user to type word before action runs. */
export function confirmTyped(title, message, word, action, label = 'Delete') {
  const input = h('input', {
    name: 'confirm',
    autocomplete: 'off',
    spellcheck: 'false',
    'data-test': 'confirm-input',
    'aria-label': `Type ${word} to confirm`,
  });
  const submit = h('button', { type: 'submit', class: 'danger', 'data-test': 'confirm-submit', disabled: true }, label);
  input.addEventListener('input', () => (submit.disabled = input.value !== word));
  const p = dialog(
    title,
    (form, close) => [
      h('p', null, message),
      field(`Type “${word}” to confirm`, input),
      h('div', { class: 'buttons' }, h('button', { type: 'button', class: 'secondary', onclick: () => close(false) }, 'Cancel'), submit),
    ],
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
  let submit;
  const p = dialog(
    title,
    (form, close) => {
      submit = h('button', { type: 'submit', class: 'danger', 'data-test': 'confirm-submit' }, label);
      return [
        h('p', null, message),
        h('div', { class: 'buttons' }, h('button', { type: 'button', class: 'secondary', onclick: () => close(false) }, 'Cancel'), submit),
      ];
    },
    action,
  );
  submit.focus();
  return p;
}
