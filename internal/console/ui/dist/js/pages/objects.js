// Objects: a bucket's keys under a prefix, one page of 100 at a time
// (ListObjectsV2 with delimiter "/" and continuation tokens), a server-side
// prefix filter, folders, uploads by picker or drop, and the bucket's
// deletion. The details panel is details.js's.

import * as api from '../api.js';
import { h, fill, dialog, field, buttons, button, toolbar, thead, emptyRow } from '../dom.js';
import { parseListObjectsV2 } from '../xml.js';
import { bytes, date, baseName, crumbs, parentPrefix } from '../format.js';
import { link, bucketHref, ROOT } from '../nav.js';
import { detailsPanel } from './details.js';
import { enqueue, filesFromDrop } from '../upload.js';
import { confirmTyped } from '../confirm.js';
import { ask, deny, why, uploadKey } from '../permissions.js';

export const PAGE = 100;

export function objectsPage(app, main, bucket, rest, search) {
  const detailsKey = search.has('details') ? rest : '';
  const prefix = detailsKey ? parentPrefix(detailsKey) : rest.endsWith('/') || rest === '' ? rest : rest + '/';
  document.title = `${bucket}/${prefix} · JOG`;
  const st = { alive: true, tokens: [''], page: 0, filter: '', seq: 0, selected: detailsKey, upload: true };

  const body = h('tbody');
  const status = h('p', { class: 'hint', 'aria-live': 'polite' });
  const prev = button('← Previous', () => turn(-1), 'secondary', { 'data-test': 'prev-page', disabled: true });
  const next = button('Next →', () => turn(1), 'secondary', { 'data-test': 'next-page', disabled: true });
  const filter = h('input', {
    type: 'search',
    placeholder: 'Filter by prefix',
    'aria-label': 'Filter by prefix',
    'data-test': 'filter-input',
    autocomplete: 'off',
    spellcheck: 'false',
  });
  let timer = 0;
  const applyFilter = () => {
    clearTimeout(timer);
    st.filter = filter.value;
    st.tokens = [''];
    st.page = 0;
    load();
  };
  filter.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(applyFilter, 250);
  });
  filter.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') applyFilter();
  });

  const fileInput = h('input', { type: 'file', multiple: true, class: 'visually-hidden', tabindex: '-1', 'data-test': 'upload-input' });
  const folderInput = h('input', {
    type: 'file',
    multiple: true,
    webkitdirectory: true,
    class: 'visually-hidden',
    tabindex: '-1',
    'data-test': 'upload-folder-input',
  });
  const picked = (input) => () => {
    const files = [...input.files].map((f) => ({ file: f, name: f.webkitRelativePath || f.name }));
    input.value = '';
    upload(files);
  };
  fileInput.addEventListener('change', picked(fileInput));
  folderInput.addEventListener('change', picked(folderInput));

  const deleteBtn = button('Delete bucket', () => deleteBucket(app, bucket), 'danger', { 'data-test': 'bucket-delete' });
  const writers = [
    button('New folder', () => createFolder(app, bucket, prefix, load), 'secondary', { 'data-test': 'folder-create-open' }),
    button('Upload folder', () => folderInput.click(), 'secondary', { 'data-test': 'upload-folder-open' }),
    button('Upload files', () => fileInput.click(), 'primary', { 'data-test': 'upload-open' }),
  ];
  // What the principal may not do here is disabled, with the reason below the title.
  const notes = h('div', { class: 'notes', 'data-test': 'bucket-notes' });
  Promise.all([ask(bucket, '', ['s3:DeleteBucket']), ask(bucket, uploadKey(prefix), ['s3:PutObject'])]).then(([b, o]) => {
    if (!st.alive) return;
    if (!b.may('s3:DeleteBucket')) notes.append(deny('s3:DeleteBucket', 'Delete bucket', deleteBtn));
    if (!o.may('s3:PutObject')) {
      st.upload = false;
      notes.append(deny('s3:PutObject', 'Upload and New folder', ...writers));
    }
  });

  const details = h('aside', { class: 'details', hidden: true });
  const table = h(
    'table',
    { class: 'list objects', 'data-test': 'object-list' },
    thead(['Name', h('th', { class: 'num' }, 'Size'), h('th', { class: 'hide-narrow' }, 'Last modified')]),
    body,
  );
  const drop = h('section', { class: 'drop', 'aria-label': 'Objects' }, table, h('div', { class: 'pager' }, prev, next), status);
  drop.addEventListener('dragover', (e) => {
    e.preventDefault();
    drop.classList.add('dragging');
  });
  drop.addEventListener('dragleave', () => drop.classList.remove('dragging'));
  drop.addEventListener('drop', async (e) => {
    e.preventDefault();
    drop.classList.remove('dragging');
    if (!st.upload) {
      app.showError(new Error(`Upload: ${why('s3:PutObject')}`));
      return;
    }
    try {
      upload(await filesFromDrop(e.dataTransfer));
    } catch (x) {
      app.showError(x);
    }
  });

  fill(
    main,
    toolbar(
      'h1',
      bucket,
      h(
        'div',
        { class: 'actions' },
        link(`${ROOT}settings/${encodeURIComponent(bucket)}`, { class: 'button secondary', 'data-test': 'bucket-settings' }, 'Settings'),
        deleteBtn,
      ),
    ),
    notes,
    breadcrumb(bucket, prefix),
    h('div', { class: 'toolbar' }, filter, h('div', { class: 'actions' }, writers, fileInput, folderInput)),
    h('div', { class: 'split' }, drop, details),
  );

  function upload(files) {
    if (files.length === 0) return;
    enqueue(
      bucket,
      files.map((f) => ({ ...f, key: prefix + f.name })),
    );
  }

  function turn(d) {
    st.page += d;
    load();
  }

  async function load() {
    const seq = ++st.seq;
    status.textContent = 'Loading…';
    let res;
    try {
      const q = { 'list-type': '2', delimiter: '/', 'encoding-type': 'url', 'max-keys': String(PAGE), prefix: prefix + st.filter };
      if (st.tokens[st.page]) q['continuation-token'] = st.tokens[st.page];
      res = parseListObjectsV2(await api.s3text('GET', bucket, '', { query: q }));
    } catch (e) {
      if (seq !== st.seq || !st.alive) return;
      status.textContent = '';
      app.showError(e);
      return;
    }
    if (seq !== st.seq || !st.alive) return;
    st.tokens[st.page + 1] = res.next;
    prev.disabled = st.page === 0;
    next.disabled = !res.truncated;
    const rows = [
      ...res.prefixes.map((p) =>
        h(
          'tr',
          { 'data-test': 'prefix-row', 'data-prefix': p },
          h('td', null, link(bucketHref(bucket, p), { class: 'folder' }, baseName(p))),
          h('td', { class: 'num' }, ''),
          h('td', { class: 'hide-narrow' }, ''),
        ),
      ),
      ...res.objects
        .filter((o) => o.key !== prefix)
        .map((o) =>
          h(
            'tr',
            {
              'data-test': 'object-row',
              'data-key': o.key,
              'aria-selected': String(o.key === st.selected),
              class: o.key === st.selected ? 'selected' : null,
            },
            h(
              'td',
              null,
              button(baseName(o.key), () => openDetails(o.key), 'linkish'),
            ),
            h('td', { class: 'num' }, bytes(o.size)),
            h('td', { class: 'hide-narrow' }, date(o.lastModified)),
          ),
        ),
    ];
    if (rows.length === 0)
      rows.push(emptyRow(3, st.filter ? 'Nothing matches.' : st.upload ? 'Empty. Drop files here or use Upload.' : 'Empty.'));
    fill(body, rows);
    status.textContent = `Page ${st.page + 1}${res.truncated ? '' : ' (last)'}`;
  }

  // select marks the row of key (none: '') as the one the details panel shows.
  function select(key) {
    st.selected = key;
    for (const tr of body.querySelectorAll('tr[data-key]')) {
      const on = tr.getAttribute('data-key') === key;
      tr.setAttribute('aria-selected', String(on));
      tr.classList.toggle('selected', on);
    }
  }

  function openDetails(key, push = true) {
    if (push) history.pushState(null, '', `${bucketHref(bucket, key)}?details`);
    select(key);
    details.hidden = false;
    details.scrollIntoView({ block: 'nearest' });
    detailsPanel(app, details, bucket, key, {
      onClose: () => {
        select('');
        details.hidden = true;
        details.replaceChildren();
        history.replaceState(null, '', bucketHref(bucket, prefix));
      },
      onDeleted: () => {
        select('');
        details.hidden = true;
        details.replaceChildren();
        history.replaceState(null, '', bucketHref(bucket, prefix));
        load();
      },
    });
  }

  // Uploads that finish here refresh the page (at most once a second).
  let refreshTimer = 0;
  const onUploaded = (e) => {
    if (e.detail.bucket !== bucket || parentPrefix(e.detail.key).indexOf(prefix) !== 0) return;
    if (!refreshTimer) refreshTimer = setTimeout(() => ((refreshTimer = 0), load()), 1000);
  };
  window.addEventListener('jog-uploaded', onUploaded);

  load();
  if (detailsKey) openDetails(detailsKey, false);
  return () => {
    st.alive = false;
    clearTimeout(timer);
    clearTimeout(refreshTimer);
    window.removeEventListener('jog-uploaded', onUploaded);
  };
}

function breadcrumb(bucket, prefix) {
  const steps = crumbs(prefix);
  return h(
    'nav',
    { class: 'breadcrumb', 'data-test': 'breadcrumb', 'aria-label': 'Folders' },
    link(bucketHref(bucket, ''), { 'data-prefix': '' }, bucket),
    steps.map((s, i) => [
      h('span', { class: 'sep', 'aria-hidden': 'true' }, '/'),
      i === steps.length - 1
        ? h('span', { 'data-prefix': s.prefix, 'aria-current': 'page' }, s.name)
        : link(bucketHref(bucket, s.prefix), { 'data-prefix': s.prefix }, s.name),
    ]),
  );
}

function createFolder(app, bucket, prefix, reload) {
  const name = h('input', { name: 'folder', required: true, 'data-test': 'folder-create-name', autocomplete: 'off' });
  dialog(
    'New folder',
    (form, close) => [
      field(`Name (inside ${prefix || 'the bucket root'})`, name),
      buttons(close, 'Create', { 'data-test': 'folder-create-submit' }),
    ],
    async () => {
      const n = name.value.trim().replace(/^\/+|\/+$/g, '');
      if (!n) throw new Error('Give the folder a name.');
      await api.s3('PUT', bucket, `${prefix}${n}/`, { body: '', headers: { 'Content-Type': 'application/x-directory' } });
    },
  ).then((ok) => ok && reload());
  name.focus();
}

function deleteBucket(app, bucket) {
  confirmTyped('Delete bucket', `Delete the bucket ${bucket}? It must be empty (S3 refuses otherwise: BucketNotEmpty).`, bucket, () =>
    api.s3('DELETE', bucket),
  ).then((ok) => ok && app.navigate(ROOT));
}
