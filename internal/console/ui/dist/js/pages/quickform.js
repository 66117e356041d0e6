// What the bucket settings' quick forms (lifecycle-form.js, policy-form.js)
// share: their text inputs, and the checks they make before they send
// anything, each returning why the value is refused, or '' when it is not.

import { h } from '../dom.js';

/** textInput is a quick form's text input, empty, with its data-test hook and label; attrs add or replace. */
export function textInput(test, label, attrs) {
  return h('input', {
    type: 'text',
    value: '',
    'data-test': test,
    'aria-label': label,
    autocomplete: 'off',
    spellcheck: 'false',
    ...attrs,
  });
}

/** MAX_PREFIX is S3's longest key, in UTF-8 bytes: no longer prefix selects anything. */
const MAX_PREFIX = 1024;

/**
 * checkPrefix says why prefix is not a key prefix the forms take. S3 matches a prefix literally, and a bucket
 * policy's Resource reads * and ? as wildcards and ${…} as a variable, so none of them is taken: "logs/*" is
 * what a careless user means by "logs/", and in a policy it would widen to more than the prefix. A key seldom
 * starts with /, so a prefix that does is a path typed by habit; a space before or after it, a slip. required: '' is refused too.
 */
export function checkPrefix(prefix, required = false) {
  if (prefix === '') return required ? 'Give a prefix, such as public/.' : '';
  if (new TextEncoder().encode(prefix).length > MAX_PREFIX) return `A prefix is at most ${MAX_PREFIX} bytes.`;
  if (/[\u0000-\u001f\u007f]/.test(prefix)) return 'A prefix has no control characters.';
  if (prefix.trim() !== prefix) return `A prefix here has no space before or after it: write “${prefix.trim()}”.`;
  if (/[*?]/.test(prefix))
    return `A prefix is matched as it is written, with no wildcards: write ${prefix.replace(/[*?].*$/, '') || 'logs/'}, not ${prefix}.`;
  if (prefix.includes('${')) return 'A prefix has no ${…}: in a policy it is a variable.';
  if (prefix.startsWith('/')) return `Keys do not start with /: write ${prefix.replace(/^\/+/, '') || 'logs/'}, not ${prefix}.`;
  return '';
}

/** checkDays says why days (what the user typed) is not a whole number of days, 1 or more; '' when it is. */
export function checkDays(days) {
  if (!/^\d+$/.test(days) || Number(days) < 1 || Number(days) > 2147483647) return `Days are a whole number, 1 or more (not “${days}”).`;
  return '';
}
