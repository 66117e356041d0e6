// An object's retention and legal hold (object lock), in its details
// panel: shown only when the bucket has object lock on.

import * as api from '../api.js';
import { h, button, submit, form, saver } from '../dom.js';
import { parseObjectLock, legalHoldXML, retentionXML } from '../xml.js';

/** lockSection returns the section for bucket/key, or null when the bucket has no object lock. */
export async function lockSection(bucket, key, versionId, headers, reload) {
  let enabled = false;
  try {
    enabled = parseObjectLock(await api.s3text('GET', bucket, '', { query: { 'object-lock': '' } })).enabled;
  } catch {
    return null; // no object lock, or not allowed to read it
  }
  if (!enabled) return null;
  const msg = h('p', { class: 'section-msg', role: 'status' });
  const say = (t) => (msg.textContent = t);
  const query = (name) => ({ [name]: '', ...(versionId ? { versionId } : {}) });
  const hold = headers.get('x-amz-object-lock-legal-hold') === 'ON';
  const mode = h(
    'select',
    { 'aria-label': 'Retention mode' },
    ['GOVERNANCE', 'COMPLIANCE'].map((m) => h('option', { value: m, selected: headers.get('x-amz-object-lock-mode') === m }, m)),
  );
  const until = h('input', { type: 'date', 'aria-label': 'Retain until', required: true });
  const cur = headers.get('x-amz-object-lock-retain-until-date');
  if (cur) until.value = cur.slice(0, 10);
  const bypass = h('input', { type: 'checkbox' });
  const run = (fn) => saver(fn, say)().then((ok) => ok && reload());
  const toggle = () => run(() => api.s3('PUT', bucket, key, { query: query('legal-hold'), body: legalHoldXML(!hold) }));
  const retain = () => {
    const date = new Date(`${until.value}T00:00:00Z`).toISOString();
    return run(() =>
      api.s3('PUT', bucket, key, {
        query: query('retention'),
        headers: bypass.checked ? { 'x-amz-bypass-governance-retention': 'true' } : {},
        body: retentionXML(mode.value, date),
      }),
    );
  };
  return h(
    'section',
    { class: 'sub', 'data-test': 'detail-lock' },
    h('h3', null, 'Retention and legal hold'),
    h(
      'div',
      { class: 'row' },
      h('span', null, `Legal hold: ${hold ? 'on' : 'off'}`),
      button(hold ? 'Release legal hold' : 'Place legal hold', toggle, 'secondary', { 'data-test': 'legal-hold-toggle' }),
    ),
    form(
      { class: 'row' },
      retain,
      mode,
      until,
      h('label', { class: 'check' }, bypass, ' bypass governance'),
      submit('Set retention', 'secondary'),
    ),
    msg,
  );
}
