// The tag editor of a bucket (key '') or an object: key/value rows, saved
// with PUT ?tagging, or DELETE ?tagging when none are left.

import * as api from './api.js';
import { h, errText } from './dom.js';
import { taggingXML } from './xml.js';

/** tagsForm edits tags [{key, value}]; say(text) reports the outcome; saved() runs after a save. */
export function tagsForm(bucket, key, tags, say, saved = () => {}) {
  const rows = h('div', { class: 'tags' });
  const addRow = (t = { key: '', value: '' }) => {
    const row = h(
      'div',
      { class: 'row' },
      h('input', { value: t.key, placeholder: 'Key', 'aria-label': 'Tag key', class: 'tag-key' }),
      h('input', { value: t.value, placeholder: 'Value', 'aria-label': 'Tag value', class: 'tag-value' }),
      h('button', { type: 'button', class: 'linkish', onclick: () => row.remove() }, 'Remove'),
    );
    rows.append(row);
    return row;
  };
  tags.forEach(addRow);
  const q = { query: { tagging: '' } };
  return h(
    'form',
    {
      'data-test': 'tags-form',
      onsubmit: async (e) => {
        e.preventDefault();
        const set = [...rows.children]
          .map((r) => ({ key: r.querySelector('.tag-key').value.trim(), value: r.querySelector('.tag-value').value }))
          .filter((t) => t.key);
        try {
          if (set.length === 0) await api.s3('DELETE', bucket, key, q);
          else await api.s3('PUT', bucket, key, { ...q, body: taggingXML(set) });
          say('Saved.');
          saved();
        } catch (x) {
          say(errText(x));
        }
      },
    },
    rows,
    h(
      'div',
      { class: 'row' },
      h('button', { type: 'button', class: 'secondary', onclick: () => addRow().querySelector('input').focus() }, 'Add tag'),
      h('button', { type: 'submit', class: 'primary' }, 'Save tags'),
    ),
  );
}
