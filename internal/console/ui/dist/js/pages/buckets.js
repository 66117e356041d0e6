// Buckets: the list (name, created, objects and bytes from GetBucketQuota), and
// creating one (versioning, object lock).

import * as api from '../api.js';
import { h, fill, dialog, field, buttons, button, submit, form, toolbar, thead, emptyRow } from '../dom.js';
import { parseListBuckets, parseQuota, versioningXML } from '../xml.js';
import { bytes, date, validBucketName } from '../format.js';
import { runPool } from '../multipart.js';
import { link, bucketHref } from '../nav.js';

/** USAGE_ROWS bounds the GetBucketQuota calls one list makes. */
const USAGE_ROWS = 200;

export function bucketsPage(app, main) {
  document.title = 'Buckets · JOG';
  let alive = true;
  const body = h('tbody');
  const table = h(
    'table',
    { class: 'list', 'data-test': 'bucket-list' },
    thead(['Name', 'Created', h('th', { class: 'num' }, 'Objects'), h('th', { class: 'num' }, 'Size')]),
    body,
  );
  fill(
    main,
    toolbar(
      'h1',
      'Buckets',
      button('Create bucket', () => createBucket(app), 'primary', { 'data-test': 'bucket-create-open' }),
    ),
    table,
    h(
      'p',
      { class: 'hint' },
      'Objects are the keys whose latest version is not a delete marker; size is the bytes a bucket stores (all versions), as its quota counts them.',
    ),
    openByName(app),
  );
  (async () => {
    const buckets = [];
    try {
      let token = '';
      do {
        const page = parseListBuckets(await api.s3text('GET', '', '', { query: token ? { 'continuation-token': token } : null }));
        buckets.push(...page.buckets);
        token = page.next;
      } while (token && alive);
    } catch (e) {
      app.showError(e);
      return;
    }
    if (!alive) return;
    if (buckets.length === 0) {
      fill(body, emptyRow(4, 'No buckets yet.'));
      return;
    }
    const usage = new Map();
    fill(
      body,
      buckets.map((b) => {
        const count = h('td', { class: 'num', 'data-test': 'bucket-objects' }, '');
        const size = h('td', { class: 'num', 'data-test': 'bucket-size' }, '');
        usage.set(b.name, { count, size });
        return h(
          'tr',
          { 'data-test': 'bucket-row', 'data-bucket': b.name },
          h('td', null, link(bucketHref(b.name), null, b.name)),
          h('td', null, date(b.created)),
          count,
          size,
        );
      }),
    );
    // Usage: one GetBucketQuota per bucket, four at a time; a bucket the
    // principal may not read the quota of shows nothing.
    await runPool(buckets.slice(0, USAGE_ROWS), 4, async (b) => {
      if (!alive) return;
      try {
        const q = parseQuota(await api.s3text('GET', b.name, '', { query: { quota: '' } }));
        const u = usage.get(b.name);
        u.count.textContent = q.objects.toLocaleString('en-US');
        u.size.textContent = bytes(q.used) + (q.quota ? ` of ${bytes(q.quota)}` : '');
      } catch {
        /* not allowed or not supported: leave it blank */
      }
    });
  })();
  return () => {
    alive = false;
  };
}

// openByName lets a principal allowed into a bucket but not to list
// buckets (s3:ListAllMyBuckets) go to it by name.
function openByName(app) {
  const name = h('input', {
    'aria-label': 'Bucket name',
    placeholder: 'bucket name',
    autocomplete: 'off',
    spellcheck: 'false',
    'data-test': 'bucket-open-name',
  });
  const open = () => {
    const n = name.value.trim();
    if (n) app.navigate(bucketHref(n));
  };
  return form({ class: 'row' }, open, h('span', { class: 'hint' }, 'Open a bucket by name:'), name, submit('Open', 'secondary'));
}

function createBucket(app) {
  const name = h('input', { name: 'name', required: true, 'data-test': 'bucket-create-name', autocomplete: 'off', spellcheck: 'false' });
  const versioning = h('input', { type: 'checkbox', name: 'versioning', 'data-test': 'bucket-create-versioning' });
  const lock = h('input', { type: 'checkbox', name: 'lock', 'data-test': 'bucket-create-lock' });
  lock.addEventListener('change', () => {
    if (lock.checked) versioning.checked = true;
    versioning.disabled = lock.checked;
  });
  dialog(
    'Create bucket',
    (form, close) => [
      field('Name', name),
      h('label', { class: 'check' }, versioning, ' Versioning (keep every version of an object)'),
      h('label', { class: 'check' }, lock, ' Object lock (retention and legal holds; turns versioning on)'),
      buttons(close, 'Create', { 'data-test': 'bucket-create-submit' }),
    ],
    async () => {
      const n = name.value.trim();
      const why = validBucketName(n);
      if (why) throw new Error(why);
      const headers = lock.checked ? { 'x-amz-bucket-object-lock-enabled': 'true' } : {};
      await api.s3('PUT', n, '', { headers });
      if (versioning.checked && !lock.checked) {
        await api.s3('PUT', n, '', { query: { versioning: '' }, body: versioningXML('Enabled') });
      }
      return n;
    },
  ).then((n) => {
    if (n) app.navigate(bucketHref(n));
  });
  name.focus();
}
