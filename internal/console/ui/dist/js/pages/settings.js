// A bucket's settings, each an S3 subresource read and written through the
// proxy: versioning, object lock default retention, lifecycle rules, tags,
// the bucket policy (JSON checked before saving), quota and reservations.

import * as api from '../api.js';
import { h, fill, errText } from '../dom.js';
import {
  parseVersioning,
  versioningXML,
  parseObjectLock,
  objectLockXML,
  parseLifecycle,
  parseXML,
  parseTagging,
  parseQuota,
  quotaXML,
  parseReservations,
  reservationXML,
} from '../xml.js';
import { bytes, date } from '../format.js';
import { link, bucketHref } from '../nav.js';
import { MiB } from '../multipart.js';
import { tagsForm } from '../tags.js';

/** section draws a titled block whose body load(box, reload) fills; its errors show inside it. */
function section(title, test, load) {
  const box = h('div', { class: 'section-body' });
  const msg = h('p', { class: 'section-msg', role: 'status' });
  const reload = async () => {
    msg.textContent = '';
    try {
      await load(box, reload, (t) => (msg.textContent = t));
    } catch (e) {
      fill(box, h('p', { class: 'hint' }, errText(e)));
    }
  };
  reload();
  return h('section', { class: 'card settings', 'data-test': test }, h('h2', null, title), box, msg);
}

/** saver wraps a save action: errors show as "Code: Message" under the section. */
function saver(fn, say, done = 'Saved.') {
  return async (e) => {
    if (e) e.preventDefault();
    try {
      await fn();
      say(done);
    } catch (x) {
      say(errText(x));
    }
  };
}

/** missing says whether an error is the "nothing configured" answer of a subresource GET. */
function missing(e) {
  return e.status === 404 && e.code !== 'NoSuchBucket';
}

export function settingsPage(app, main, bucket) {
  document.title = `${bucket} settings · JOG`;
  const q = (name) => ({ query: { [name]: '' } });
  fill(
    main,
    h(
      'div',
      { class: 'toolbar' },
      h('h1', null, `${bucket}: settings`),
      link(bucketHref(bucket), { class: 'button secondary' }, 'Objects'),
    ),
    section('Versioning', 'settings-versioning', async (box, reload, say) => {
      const status = parseVersioning(await api.s3text('GET', bucket, '', q('versioning')));
      const sel = h(
        'select',
        { 'aria-label': 'Versioning' },
        !status && h('option', { value: '' }, 'Never enabled'),
        h('option', { value: 'Enabled', selected: status === 'Enabled' }, 'Enabled'),
        h('option', { value: 'Suspended', selected: status === 'Suspended' }, 'Suspended'),
      );
      fill(
        box,
        h(
          'form',
          {
            class: 'row',
            onsubmit: saver(async () => {
              if (!sel.value) throw new Error('Choose Enabled or Suspended.');
              await api.s3('PUT', bucket, '', { ...q('versioning'), body: versioningXML(sel.value) });
            }, say),
          },
          sel,
          h('button', { type: 'submit', class: 'primary' }, 'Save'),
        ),
      );
    }),
    section('Object lock', 'settings-object-lock', async (box, reload, say) => {
      let cfg;
      try {
        cfg = parseObjectLock(await api.s3text('GET', bucket, '', q('object-lock')));
      } catch (e) {
        if (!missing(e)) throw e;
        fill(box, h('p', { class: 'hint' }, 'Object lock is off for this bucket; it can only be turned on when a bucket is created.'));
        return;
      }
      const mode = h(
        'select',
        { 'aria-label': 'Default retention mode' },
        h('option', { value: '' }, 'No default retention'),
        ['GOVERNANCE', 'COMPLIANCE'].map((m) => h('option', { value: m, selected: cfg.mode === m }, m)),
      );
      const days = h('input', { type: 'number', min: '1', value: String(cfg.days || cfg.years * 365 || 1), 'aria-label': 'Days' });
      fill(
        box,
        h(
          'form',
          {
            class: 'row',
            onsubmit: saver(async () => {
              await api.s3('PUT', bucket, '', {
                ...q('object-lock'),
                body: objectLockXML({ mode: mode.value, days: Number(days.value), years: 0 }),
              });
            }, say),
          },
          mode,
          days,
          h('span', null, 'days'),
          h('button', { type: 'submit', class: 'primary' }, 'Save'),
        ),
      );
    }),
    section('Lifecycle rules', 'settings-lifecycle', async (box, reload, say) => {
      let xml = '';
      try {
        xml = await api.s3text('GET', bucket, '', q('lifecycle'));
      } catch (e) {
        if (!missing(e)) throw e;
      }
      const rules = xml ? parseLifecycle(xml) : [];
      const area = h('textarea', { rows: 10, spellcheck: 'false', class: 'mono', 'aria-label': 'Lifecycle configuration XML' });
      area.value =
        xml ||
        '<LifecycleConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/">\n  <Rule>\n    <ID>expire-tmp</ID>\n    <Filter><Prefix>tmp/</Prefix></Filter>\n    <Status>Enabled</Status>\n    <Expiration><Days>7</Days></Expiration>\n  </Rule>\n</LifecycleConfiguration>';
      fill(
        box,
        rules.length
          ? h(
              'table',
              { class: 'list compact' },
              h(
                'thead',
                null,
                h(
                  'tr',
                  null,
                  ['ID', 'Status', 'Prefix', 'Expire after', 'Noncurrent after', 'Abort uploads after'].map((t) => h('th', null, t)),
                ),
              ),
              h(
                'tbody',
                null,
                rules.map((r) =>
                  h(
                    'tr',
                    null,
                    h('td', null, r.id),
                    h('td', null, r.status),
                    h('td', null, r.prefix || '(all)'),
                    h('td', null, r.expirationDays ? `${r.expirationDays} d` : ''),
                    h('td', null, r.noncurrentDays ? `${r.noncurrentDays} d` : ''),
                    h('td', null, r.abortDays ? `${r.abortDays} d` : ''),
                  ),
                ),
              ),
            )
          : h('p', { class: 'hint' }, 'No rules.'),
        h(
          'form',
          {
            onsubmit: saver(async () => {
              parseXML(area.value);
              await api.s3('PUT', bucket, '', { ...q('lifecycle'), headers: { 'Content-Type': 'application/xml' }, body: area.value });
              await reload();
            }, say),
          },
          area,
          h(
            'div',
            { class: 'row' },
            h('button', { type: 'submit', class: 'primary' }, 'Save rules'),
            rules.length > 0 &&
              h(
                'button',
                {
                  type: 'button',
                  class: 'danger',
                  onclick: saver(
                    async () => {
                      await api.s3('DELETE', bucket, '', q('lifecycle'));
                      await reload();
                    },
                    say,
                    'Removed.',
                  ),
                },
                'Remove all rules',
              ),
          ),
        ),
      );
    }),
    section('Tags', 'settings-tags', async (box, reload, say) => {
      let tags = [];
      try {
        tags = parseTagging(await api.s3text('GET', bucket, '', q('tagging')));
      } catch (e) {
        if (!missing(e)) throw e;
      }
      fill(box, tagsForm(bucket, '', tags, say));
    }),
    section('Bucket policy', 'settings-policy', async (box, reload, say) => {
      let text = '';
      try {
        text = await api.s3text('GET', bucket, '', q('policy'));
        text = JSON.stringify(JSON.parse(text), null, 2);
      } catch (e) {
        if (e instanceof api.APIError && !missing(e)) throw e;
      }
      const area = h('textarea', {
        rows: 14,
        spellcheck: 'false',
        class: 'mono',
        'aria-label': 'Bucket policy JSON',
        'data-test': 'policy-editor',
      });
      area.value = text;
      const check = h('p', { class: 'hint', role: 'status', 'data-test': 'policy-check' });
      area.addEventListener('input', () => {
        check.textContent = validJSON(area.value);
      });
      fill(
        box,
        h(
          'form',
          {
            onsubmit: saver(async () => {
              const why = validJSON(area.value);
              if (why) throw new Error(why);
              await api.s3('PUT', bucket, '', { ...q('policy'), headers: { 'Content-Type': 'application/json' }, body: area.value });
            }, say),
          },
          area,
          check,
          h(
            'div',
            { class: 'row' },
            h('button', { type: 'submit', class: 'primary', 'data-test': 'policy-save' }, 'Save policy'),
            text &&
              h(
                'button',
                {
                  type: 'button',
                  class: 'danger',
                  onclick: saver(
                    async () => {
                      await api.s3('DELETE', bucket, '', q('policy'));
                      await reload();
                    },
                    say,
                    'Removed.',
                  ),
                },
                'Remove policy',
              ),
          ),
        ),
      );
    }),
    section('Quota', 'settings-quota', async (box, reload, say) => {
      const cur = parseQuota(await api.s3text('GET', bucket, '', q('quota')));
      const gib = h('input', {
        type: 'number',
        min: '0.001',
        step: 'any',
        value: cur.quota ? String(cur.quota / 1024 / MiB) : '',
        'aria-label': 'Quota in GiB',
      });
      fill(
        box,
        h('p', null, `Used: ${bytes(cur.used)}${cur.quota ? ` of ${bytes(cur.quota)}` : ' (no quota)'}`),
        h(
          'form',
          {
            class: 'row',
            onsubmit: saver(async () => {
              const n = Number(gib.value) * 1024 * MiB;
              if (!(n > 0)) throw new Error('Give a quota above 0 GiB.');
              await api.s3('PUT', bucket, '', { ...q('quota'), body: quotaXML(n) });
              await reload();
            }, say),
          },
          gib,
          h('span', null, 'GiB'),
          h('button', { type: 'submit', class: 'primary' }, 'Set quota'),
          cur.quota > 0 &&
            h(
              'button',
              {
                type: 'button',
                class: 'danger',
                onclick: saver(
                  async () => {
                    await api.s3('DELETE', bucket, '', q('quota'));
                    await reload();
                  },
                  say,
                  'Removed.',
                ),
              },
              'Remove quota',
            ),
        ),
      );
    }),
    section('Throughput reservations', 'settings-reservations', async (box, reload, say) => {
      const res = parseReservations(await api.s3text('GET', bucket, '', q('reservations')));
      const mib = (n) => `${(n / MiB).toFixed(1)} MiB/s`;
      const read = h('input', { type: 'number', min: '0', step: 'any', value: '10', 'aria-label': 'Read MiB/s' });
      const write = h('input', { type: 'number', min: '0', step: 'any', value: '10', 'aria-label': 'Write MiB/s' });
      const hours = h('input', { type: 'number', min: '1', value: '1', 'aria-label': 'Hours from now' });
      fill(
        box,
        h('p', { class: 'hint' }, `Server capacity: read ${mib(res.capacity.read)}, write ${mib(res.capacity.write)}.`),
        res.reservations.length
          ? h(
              'table',
              { class: 'list compact' },
              h(
                'thead',
                null,
                h(
                  'tr',
                  null,
                  ['Id', 'Read', 'Write', 'Start', 'End', 'State', ''].map((t) => h('th', null, t)),
                ),
              ),
              h(
                'tbody',
                null,
                res.reservations.map((r) =>
                  h(
                    'tr',
                    null,
                    h('td', { class: 'mono' }, r.id),
                    h('td', null, mib(r.read)),
                    h('td', null, mib(r.write)),
                    h('td', null, date(r.start)),
                    h('td', null, date(r.end)),
                    h('td', null, r.state),
                    h(
                      'td',
                      null,
                      h(
                        'button',
                        {
                          type: 'button',
                          class: 'linkish danger-text',
                          onclick: saver(
                            async () => {
                              await api.s3('DELETE', bucket, '', { query: { reservation: r.id } });
                              await reload();
                            },
                            say,
                            'Cancelled.',
                          ),
                        },
                        'Cancel',
                      ),
                    ),
                  ),
                ),
              ),
            )
          : h('p', { class: 'hint' }, 'No reservations.'),
        h(
          'form',
          {
            class: 'row',
            onsubmit: saver(
              async () => {
                const start = new Date(Math.ceil(Date.now() / 1000) * 1000 + 60000);
                const end = new Date(start.getTime() + Number(hours.value) * 3600000);
                await api.s3('POST', bucket, '', {
                  ...q('reservations'),
                  body: reservationXML({
                    read: Number(read.value) * MiB,
                    write: Number(write.value) * MiB,
                    start: rfc3339(start),
                    end: rfc3339(end),
                  }),
                });
                await reload();
              },
              say,
              'Reserved.',
            ),
          },
          h('span', null, 'Read'),
          read,
          h('span', null, 'Write'),
          write,
          h('span', null, 'MiB/s for'),
          hours,
          h('span', null, 'h, from a minute from now'),
          h('button', { type: 'submit', class: 'primary' }, 'Reserve'),
        ),
      );
    }),
  );
  return () => {};
}

/** validJSON returns '' for a JSON object, else why not. */
export function validJSON(text) {
  try {
    const v = JSON.parse(text);
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return 'A policy is a JSON object ({ "Version": …, "Statement": [...] }).';
    return '';
  } catch (e) {
    return `Not valid JSON: ${e.message}`;
  }
}

function rfc3339(d) {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
