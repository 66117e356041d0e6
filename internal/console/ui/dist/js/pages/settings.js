// A bucket's settings, each an S3 subresource read and written through the
// proxy: versioning, default encryption, object lock default retention, lifecycle rules, tags,
// the bucket policy (JSON checked before saving), quota, reservations,
// event notifications (notify.js) and replication rules (replication.js).

import * as api from '../api.js';
import { h, fill, errText, button, submit, form, saver, toolbar, table } from '../dom.js';
import {
  parseVersioning,
  versioningXML,
  parseObjectLock,
  objectLockXML,
  parseLifecycle,
  parseXML,
  parseTagging,
  parseIAMResult,
  parseQuota,
  quotaXML,
  parseReservations,
  reservationXML,
  parseEncryption,
  encryptionXML,
} from '../xml.js';
import { bytes, date, ENCRYPTION_NAMES } from '../format.js';
import { link, bucketHref } from '../nav.js';
import { MiB } from '../multipart.js';
import { tagsForm } from '../tags.js';
import { notifyLoad } from './notify.js';
import { replicationLoad } from './replication.js';
import { lifecycleRuleForm } from './lifecycle-form.js';
import { policyForms } from './policy-form.js';
import { ask, deny, readOnly } from '../permissions.js';

/** ACTIONS are each section's read and write actions (internal/s3api's operation table). */
const ACTIONS = {
  versioning: { read: 's3:GetBucketVersioning', write: 's3:PutBucketVersioning' },
  encryption: { read: 's3:GetEncryptionConfiguration', write: 's3:PutEncryptionConfiguration' },
  lock: { read: 's3:GetBucketObjectLockConfiguration', write: 's3:PutBucketObjectLockConfiguration' },
  lifecycle: { read: 's3:GetLifecycleConfiguration', write: 's3:PutLifecycleConfiguration' },
  tags: { read: 's3:GetBucketTagging', write: 's3:PutBucketTagging' },
  policy: { read: 's3:GetBucketPolicy', write: 's3:PutBucketPolicy' },
  quota: { read: 'jog:GetBucketQuota', write: 'jog:PutBucketQuota' },
  reservations: { read: 'jog:ListReservations', write: 'jog:CreateReservation' },
  notify: { read: 's3:GetBucketNotification', write: 's3:PutBucketNotification' },
  replication: { read: 's3:GetReplicationConfiguration', write: 's3:PutReplicationConfiguration' },
};

/**
 * section draws a titled block whose body load(box, reload, say) fills; its errors show inside it. When perms
 * (a promise of a Permissions) does not allow the section's write action, its controls are disabled and a note
 * says why; a read S3 refuses says which action it needed.
 */
function section(title, test, load, perms, { read, write }) {
  const box = h('div', { class: 'section-body' });
  const msg = h('p', { class: 'section-msg', role: 'status' });
  const reload = async () => {
    msg.textContent = '';
    try {
      await load(box, reload, (t) => (msg.textContent = t));
      readOnly(await perms, write, box);
    } catch (e) {
      fill(box, e.code === 'AccessDenied' ? deny(read, '') : h('p', { class: 'hint' }, errText(e)));
    }
  };
  reload();
  return h('section', { class: 'card settings', 'data-test': test }, h('h2', null, title), box, msg);
}

/** LIFECYCLE_EXAMPLE is the lifecycle configuration the empty editor shows as its placeholder, never as its value. */
export const LIFECYCLE_EXAMPLE =
  '<LifecycleConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/">\n  <Rule>\n    <ID>expire-tmp</ID>\n    <Filter><Prefix>tmp/</Prefix></Filter>\n    <Status>Enabled</Status>\n    <Expiration><Days>7</Days></Expiration>\n  </Rule>\n</LifecycleConfiguration>';

/**
 * lifecycleForm is the lifecycle rules' editor: a textarea holding the bucket's configuration xml ('' when it
 * has none: the example is only a placeholder, so that nothing that deletes objects is saved by one click),
 * saved with save(text) once it parses as XML; extra goes beside Save rules.
 */
export function lifecycleForm(xml, save, say, extra) {
  const area = h('textarea', {
    rows: 10,
    spellcheck: 'false',
    class: 'mono',
    'aria-label': 'Lifecycle configuration XML',
    'data-test': 'lifecycle-xml',
    placeholder: `For example:\n${LIFECYCLE_EXAMPLE}`,
    value: xml || '',
  });
  const submitted = saver(async () => {
    if (!area.value.trim()) throw new Error('Write a lifecycle configuration first (the example shows one).');
    parseXML(area.value);
    await save(area.value);
  }, say);
  return form(null, submitted, area, h('div', { class: 'row' }, submit('Save rules', 'primary', { 'data-test': 'lifecycle-save' }), extra));
}

/**
 * encryptionForm shows a bucket's default encryption, cur ({mode, keyId} or null: none), and sets it: SSE-S3, or
 * SSE-KMS with a key ID ('' for the server's default key), saved with save({mode, keyId}); extra goes beside Save.
 */
export function encryptionForm(cur, save, say, extra) {
  const current = cur
    ? `${ENCRYPTION_NAMES[cur.mode] || cur.mode}${cur.keyId ? `, key ${cur.keyId}` : ''}${cur.bucketKey ? ', bucket key' : ''}`
    : 'None: objects are stored as they are sent, unless a request asks for encryption.';
  const mode = h(
    'select',
    { 'aria-label': 'Default encryption', 'data-test': 'encryption-mode' },
    Object.entries(ENCRYPTION_NAMES).map(([v, name]) => h('option', { value: v, selected: cur && cur.mode === v }, name)),
  );
  const keyId = h('input', {
    type: 'text',
    value: (cur && cur.keyId) || '',
    placeholder: "KMS key ID (empty: the server's default key)",
    'aria-label': 'KMS key ID',
    'data-test': 'encryption-key',
  });
  const showKey = () => (keyId.hidden = mode.value !== 'aws:kms');
  mode.addEventListener('change', showKey);
  showKey();
  const submitted = saver(() => save({ mode: mode.value, keyId: mode.value === 'aws:kms' ? keyId.value.trim() : '' }), say);
  return h(
    'div',
    null,
    h('p', { 'data-test': 'encryption-current' }, current),
    form({ class: 'row' }, submitted, mode, keyId, submit('Save', 'primary', { 'data-test': 'encryption-save' }), extra),
  );
}

/** missing says whether an error is the "nothing configured" answer of a subresource GET. */
function missing(e) {
  return e.status === 404 && e.code !== 'NoSuchBucket';
}

export function settingsPage(app, main, bucket) {
  document.title = `${bucket} settings · JOG`;
  const q = (name) => ({ query: { [name]: '' } });
  const get = (name) => api.s3text('GET', bucket, '', q(name));
  const put = (name, body, type) => api.s3('PUT', bucket, '', { ...q(name), headers: type && { 'Content-Type': type }, body });
  // configured reads a subresource that may be unset: '' when it is.
  const configured = (name) =>
    get(name).catch((e) => {
      if (!missing(e)) throw e;
      return '';
    });
  // del deletes a subresource, then reloads the section.
  const del = (query, reload) => async () => {
    await api.s3('DELETE', bucket, '', { query });
    await reload();
  };
  const remover = (label, name, reload, say) => button(label, saver(del({ [name]: '' }, reload), say, 'Removed.'), 'danger');
  const perms = ask(
    bucket,
    '',
    Object.values(ACTIONS).map((a) => a.write),
  );
  const part = (title, test, what, load) => section(title, test, load, perms, ACTIONS[what]);
  fill(
    main,
    toolbar('h1', `${bucket}: settings`, link(bucketHref(bucket), { class: 'button secondary' }, 'Objects')),
    part('Versioning', 'settings-versioning', 'versioning', async (box, reload, say) => {
      const status = parseVersioning(await get('versioning'));
      const sel = h(
        'select',
        { 'aria-label': 'Versioning' },
        !status && h('option', { value: '' }, 'Never enabled'),
        h('option', { value: 'Enabled', selected: status === 'Enabled' }, 'Enabled'),
        h('option', { value: 'Suspended', selected: status === 'Suspended' }, 'Suspended'),
      );
      const save = saver(async () => {
        if (!sel.value) throw new Error('Choose Enabled or Suspended.');
        await put('versioning', versioningXML(sel.value));
      }, say);
      fill(box, form({ class: 'row' }, save, sel, submit('Save')));
    }),
    part('Default encryption', 'settings-encryption', 'encryption', async (box, reload, say) => {
      const xml = await configured('encryption');
      fill(
        box,
        encryptionForm(
          xml ? parseEncryption(xml) : null,
          async (cfg) => {
            await put('encryption', encryptionXML(cfg), 'application/xml');
            await reload();
          },
          say,
          xml !== '' && remover('Remove default encryption', 'encryption', reload, say),
        ),
      );
    }),
    part('Object lock', 'settings-object-lock', 'lock', async (box, reload, say) => {
      const xml = await configured('object-lock');
      if (!xml) {
        fill(box, h('p', { class: 'hint' }, 'Object lock is off for this bucket; it can only be turned on when a bucket is created.'));
        return;
      }
      const cfg = parseObjectLock(xml);
      const mode = h(
        'select',
        { 'aria-label': 'Default retention mode' },
        h('option', { value: '' }, 'No default retention'),
        ['GOVERNANCE', 'COMPLIANCE'].map((m) => h('option', { value: m, selected: cfg.mode === m }, m)),
      );
      const days = h('input', { type: 'number', min: '1', value: String(cfg.days || cfg.years * 365 || 1), 'aria-label': 'Days' });
      const save = saver(() => put('object-lock', objectLockXML({ mode: mode.value, days: Number(days.value), years: 0 })), say);
      fill(box, form({ class: 'row' }, save, mode, days, h('span', null, 'days'), submit('Save')));
    }),
    part('Lifecycle rules', 'settings-lifecycle', 'lifecycle', async (box, reload, say) => {
      const xml = await configured('lifecycle');
      const rules = xml ? parseLifecycle(xml) : [];
      const days = (n) => (n ? `${n} d` : '');
      const save = async (text) => {
        await put('lifecycle', text, 'application/xml');
        await reload();
      };
      fill(
        box,
        rules.length
          ? table(
              { class: 'list compact' },
              ['ID', 'Status', 'Prefix', 'Expire after', 'Noncurrent after', 'Abort uploads after'],
              rules.map((r) =>
                h(
                  'tr',
                  null,
                  [r.id, r.status, r.prefix || '(all)', days(r.expirationDays), days(r.noncurrentDays), days(r.abortDays)].map((t) =>
                    h('td', null, t),
                  ),
                ),
              ),
            )
          : h('p', { class: 'hint' }, 'No rules.'),
        lifecycleRuleForm(() => configured('lifecycle'), save, say),
        h('h3', null, 'The rules as XML'),
        lifecycleForm(xml, save, say, rules.length > 0 && remover('Remove all rules', 'lifecycle', reload, say)),
      );
    }),
    part('Tags', 'settings-tags', 'tags', async (box, reload, say) => {
      const xml = await configured('tagging');
      fill(box, tagsForm(bucket, '', xml ? parseTagging(xml) : [], say));
    }),
    part('Bucket policy', 'settings-policy', 'policy', async (box, reload, say) => {
      let text = await configured('policy');
      try {
        text = JSON.stringify(JSON.parse(text), null, 2);
      } catch {
        /* none, or not JSON: show it as it is */
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
      const save = saver(async () => {
        const why = validJSON(area.value);
        if (why) throw new Error(why);
        await put('policy', area.value, 'application/json');
      }, say);
      fill(
        box,
        policyForms(
          bucket,
          () => configured('policy'),
          async (doc) => {
            await put('policy', doc, 'application/json');
            await reload();
          },
          async (name) => parseIAMResult(await api.iam('GetUser', { UserName: name }), 'User').Arn,
          say,
        ),
        form(
          null,
          save,
          area,
          check,
          h(
            'div',
            { class: 'row' },
            submit('Save policy', 'primary', { 'data-test': 'policy-save' }),
            text && remover('Remove policy', 'policy', reload, say),
          ),
        ),
      );
    }),
    part('Quota', 'settings-quota', 'quota', async (box, reload, say) => {
      const cur = parseQuota(await get('quota'));
      const gib = h('input', {
        type: 'number',
        min: '0.001',
        step: 'any',
        value: cur.quota ? String(cur.quota / 1024 / MiB) : '',
        'aria-label': 'Quota in GiB',
      });
      const save = saver(async () => {
        const n = Number(gib.value) * 1024 * MiB;
        if (!(n > 0)) throw new Error('Give a quota above 0 GiB.');
        await put('quota', quotaXML(n));
        await reload();
      }, say);
      fill(
        box,
        h('p', null, `Used: ${bytes(cur.used)}${cur.quota ? ` of ${bytes(cur.quota)}` : ' (no quota)'}`),
        form(
          { class: 'row' },
          save,
          gib,
          h('span', null, 'GiB'),
          submit('Set quota'),
          cur.quota > 0 && remover('Remove quota', 'quota', reload, say),
        ),
      );
    }),
    part('Throughput reservations', 'settings-reservations', 'reservations', async (box, reload, say) => {
      const res = parseReservations(await get('reservations'));
      const mib = (n) => `${(n / MiB).toFixed(1)} MiB/s`;
      const read = h('input', { type: 'number', min: '0', step: 'any', value: '10', 'aria-label': 'Read MiB/s' });
      const write = h('input', { type: 'number', min: '0', step: 'any', value: '10', 'aria-label': 'Write MiB/s' });
      const hours = h('input', { type: 'number', min: '1', value: '1', 'aria-label': 'Hours from now' });
      const reserve = saver(
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
      );
      const capacity = res.capacity.read > 0 || res.capacity.write > 0;
      fill(
        box,
        capacity
          ? h('p', { class: 'hint' }, `Server capacity: read ${mib(res.capacity.read)}, write ${mib(res.capacity.write)}.`)
          : h('p', { class: 'hint', 'data-test': 'no-capacity' }, NO_CAPACITY),
        res.reservations.length
          ? table(
              { class: 'list compact' },
              ['Id', 'Read', 'Write', 'Start', 'End', 'State', ''],
              res.reservations.map((r) =>
                h(
                  'tr',
                  null,
                  h('td', { class: 'mono' }, r.id),
                  [mib(r.read), mib(r.write), date(r.start), date(r.end), r.state].map((t) => h('td', null, t)),
                  h('td', null, button('Cancel', saver(del({ reservation: r.id }, reload), say, 'Cancelled.'), 'linkish danger-text')),
                ),
              ),
            )
          : h('p', { class: 'hint' }, 'No reservations.'),
        capacity &&
          form(
            { class: 'row' },
            reserve,
            h('span', null, 'Read'),
            read,
            h('span', null, 'Write'),
            write,
            h('span', null, 'MiB/s for'),
            hours,
            h('span', null, 'h, from a minute from now'),
            submit('Reserve'),
          ),
      );
    }),
    part('Event notifications', 'settings-notify', 'notify', notifyLoad(bucket, perms)),
    part('Replication', 'settings-replication', 'replication', replicationLoad(app, bucket, perms)),
  );
  return () => {};
}

/** NO_CAPACITY says why nothing can be reserved on a server without a capacity, and what to set (docs/QOS.md). */
export const NO_CAPACITY =
  'Nothing can be reserved: this server has no throughput capacity configured. ' +
  'Start jog server with --qos-read-capacity and --qos-write-capacity (e.g. 300MB/s; jog calibrate measures them) to offer reservations.';

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
