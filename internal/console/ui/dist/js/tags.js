// The tag editor of a bucket (key '') or an object: key/value rows, saved
// with PUT ?tagging, or DELETE ?tagging when none are left.

import * as api from './api.js';
import { h, button, submit, form, saver } from './dom.js';
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
      button('Remove', () => row.remove(), 'linkish'),
    );
    rows.append(row);
    return row;
  };
  tags.forEach(addRow);
  const q = { query: { tagging: '' } };
  const save = saver(() => {
    const set = [...rows.children]
      .map((r) => ({ key: r.querySelector('.tag-key').value.trim(), value: r.querySelector('.tag-value').value }))
      .filter((t) => t.key);
    return set.length === 0 ? api.s3('DELETE', bucket, key, q) : api.s3('PUT', bucket, key, { ...q, body: taggingXML(set) });
  }, say);
  return form(
    { 'data-test': 'tags-form' },
    async () => (await save()) && saved(),
    rows,
    h(
      'div',
      { class: 'row' },
      button('Add tag', () => addRow().querySelector('input').focus()),
      submit('Save tags'),
    ),
  );
}
