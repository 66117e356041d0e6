// An object's details panel: HEAD's answer (size, ETag, checksums, type,
// metadata, retention, legal hold), its tags and versions, a preview,
// download, delete (of the object or one version) and a share link.

import * as api from '../api.js';
import { h, fill, add, dialog, field, buttons, button, table, KEEP } from '../dom.js';
import { parseTagging, parseListVersions, parseVersioning } from '../xml.js';
import { bytes, date, baseName, objectEncryption } from '../format.js';
import { deleteButton } from '../confirm.js';
import { tagsForm } from '../tags.js';
import { ask, deny } from '../permissions.js';
import { lockSection } from './lock.js';

/** TEXT_PREVIEW is the most of a text object a preview reads (a Range request). */
export const TEXT_PREVIEW = 256 * 1024;
/** PREVIEW_URL_SECONDS: how long the presigned URL behind an image or PDF preview lives. */
const PREVIEW_URL_SECONDS = 900;

const TEXT_TYPES = /^(text\/|application\/(json|xml|javascript|x-yaml|yaml|toml|x-sh|csv)|image\/svg\+xml$)/;
const TEXT_EXT = /\.(txt|md|log|csv|tsv|json|xml|ya?ml|toml|ini|conf|go|js|ts|py|rs|c|h|java|sh|html|css|sql)$/i;
const IMAGE_TYPES = /^image\/(png|jpe?g|gif|webp|avif|bmp)$/;
const IMAGE_EXT = /\.(png|jpe?g|gif|webp|avif|bmp)$/i;
/** GENERIC_TYPES say nothing about the bytes (what many clients store): the key's extension decides. */
const GENERIC_TYPES = /^(|application\/octet-stream|binary\/octet-stream)$/;

/** previewKind is how an object of content type type and key key is previewed: image, pdf, text or ''. */
export function previewKind(type, key) {
  const generic = GENERIC_TYPES.test(type);
  if (IMAGE_TYPES.test(type) || (generic && IMAGE_EXT.test(key))) return 'image';
  // A PDF only by its type: an iframe of an octet-stream would download it.
  if (type === 'application/pdf') return 'pdf';
  if (TEXT_TYPES.test(type) || (generic && TEXT_EXT.test(key))) return 'text';
  return '';
}

export function detailsPanel(app, panel, bucket, key, { onClose, onDeleted }) {
  const dl = h('dl', { class: 'props' });
  const preview = h('div', { class: 'preview', 'data-test': 'preview' });
  const extra = h('div');
  const download = h('a', { class: 'button primary', 'data-test': 'download', href: '#', 'aria-disabled': 'true' }, 'Download');
  const del = deleteButton(
    'Delete object',
    `Delete ${key}? In a versioned bucket this adds a delete marker; older versions stay.`,
    () => api.s3('DELETE', bucket, key),
    onDeleted,
    { class: 'danger', 'data-test': 'object-delete' },
  );
  const notes = h('div', { class: 'notes' });
  const perms = ask(bucket, key, ['s3:DeleteObject', 's3:PutObjectTagging']);
  perms.then((p) => p.may('s3:DeleteObject') || notes.append(deny('s3:DeleteObject', 'Delete object', del)));
  fill(
    panel,
    h(
      'div',
      { class: 'panel', 'data-test': 'object-details', tabindex: '-1' },
      h(
        'div',
        { class: 'panel-head' },
        h('h2', { title: key }, baseName(key)),
        button('×', onClose, 'close', { 'aria-label': 'Close details' }),
      ),
      h(
        'div',
        { class: 'actions' },
        download,
        button('Share', () => share(bucket, key), 'secondary', { 'data-test': 'share-open' }),
        del,
      ),
      notes,
      dl,
      preview,
      extra,
    ),
  );
  panel.firstChild.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && !document.querySelector('dialog[open]')) onClose();
  });
  panel.firstChild.focus();
  load();

  async function load() {
    let res;
    try {
      res = await api.s3('HEAD', bucket, key, { headers: { 'x-amz-checksum-mode': 'ENABLED' } });
    } catch (e) {
      app.showError(e);
      fill(dl, h('dt', null, 'Error'), h('dd', null, `${e.code}: ${e.message}`));
      return;
    }
    const hd = res.headers;
    const size = Number(hd.get('Content-Length') || '0');
    const type = hd.get('Content-Type') || '';
    const rows = [
      ['Key', key, ''],
      ['Size', `${bytes(size)} (${size} bytes)`, 'detail-size'],
      ['ETag', hd.get('ETag') || '', 'detail-etag'],
      ['Content type', type, 'detail-content-type'],
      ['Last modified', date(hd.get('Last-Modified') || ''), ''],
    ];
    if (hd.get('x-amz-version-id')) rows.push(['Version', hd.get('x-amz-version-id'), 'detail-version']);
    for (const alg of ['crc32', 'crc32c', 'crc64nvme', 'sha1', 'sha256']) {
      const v = hd.get(`x-amz-checksum-${alg}`);
      if (v) rows.push([`Checksum ${alg.toUpperCase()}`, v, 'detail-checksum']);
    }
    const enc = objectEncryption(hd);
    rows.push(['Encryption', enc.mode, 'detail-encryption']);
    if (enc.keyId) rows.push(['KMS key ID', enc.keyId, 'detail-kms-key']);
    const replication = hd.get('x-amz-replication-status'); // PENDING, COMPLETED, FAILED or REPLICA
    if (replication) rows.push(['Replication', replication, 'detail-replication']);
    for (const [name, v] of [
      ['Cache-Control', hd.get('Cache-Control')],
      ['Content-Encoding', hd.get('Content-Encoding')],
      ['Content-Disposition', hd.get('Content-Disposition')],
      ['Storage class', hd.get('x-amz-storage-class')],
      ['Retention mode', hd.get('x-amz-object-lock-mode')],
      ['Retain until', hd.get('x-amz-object-lock-retain-until-date')],
      ['Legal hold', hd.get('x-amz-object-lock-legal-hold')],
    ]) {
      if (v) rows.push([name, v, '']);
    }
    hd.forEach((v, k) => {
      if (k.startsWith('x-amz-meta-')) rows.push([`Metadata ${k.slice(11)}`, v, 'detail-metadata']);
    });
    fill(
      dl,
      rows.map(([k, v, t]) => [h('dt', null, k), h('dd', t ? { 'data-test': t } : null, v)]),
    );
    try {
      download.href = await api.presign(bucket, key, PREVIEW_URL_SECONDS, { download: true });
      download.setAttribute('download', baseName(key));
      download.removeAttribute('aria-disabled');
    } catch (e) {
      download.textContent = `Download (${e.code})`;
    }
    showPreview(size, type);
    await showTags();
    const lock = await lockSection(bucket, key, hd.get('x-amz-version-id') || '', hd, () =>
      detailsPanel(app, panel, bucket, key, { onClose, onDeleted }),
    );
    if (lock) extra.append(lock);
    showVersions();
  }

  async function showPreview(size, type) {
    try {
      const kind = previewKind(type, key);
      if (kind === 'image') {
        const url = await api.presign(bucket, key, PREVIEW_URL_SECONDS);
        fill(preview, h('img', { src: url, alt: `Preview of ${baseName(key)}` }));
      } else if (kind === 'pdf') {
        // inline: a PDF stored as an attachment would download, not show.
        const url = await api.presign(bucket, key, PREVIEW_URL_SECONDS, { inline: true });
        fill(preview, h('iframe', { src: url, title: `Preview of ${baseName(key)}` }));
      } else if (kind === 'text') {
        if (size === 0) {
          fill(preview, h('pre', null, ''), h('p', { class: 'hint' }, 'Empty.'));
          return;
        }
        const res = await api.s3('GET', bucket, key, { headers: { Range: `bytes=0-${TEXT_PREVIEW - 1}` } });
        const text = await res.text();
        fill(
          preview,
          h('pre', null, text),
          size > TEXT_PREVIEW ? h('p', { class: 'hint' }, `The first ${bytes(TEXT_PREVIEW)} of ${bytes(size)}.`) : null,
        );
      } else {
        fill(preview, h('p', { class: 'hint' }, `No preview for ${type || 'this type'}.`));
      }
    } catch (e) {
      fill(preview, h('p', { class: 'hint' }, `No preview: ${e.code}: ${e.message}`));
    }
  }

  async function showTags() {
    const msg = h('p', { class: 'section-msg', role: 'status' });
    const box = h('section', { class: 'sub', 'data-test': 'detail-tags' }, h('h3', null, 'Tags'));
    extra.append(box);
    try {
      const tags = parseTagging(await api.s3text('GET', bucket, key, { query: { tagging: '' } }));
      const editTags = () => {
        list.replaceWith(tagsForm(bucket, key, tags, (t) => (msg.textContent = t)));
        edit.remove();
      };
      const edit = button('Edit tags', editTags, 'linkish', { 'data-test': 'tags-edit' });
      perms.then((p) => p.may('s3:PutObjectTagging') || box.append(deny('s3:PutObjectTagging', 'Edit tags', edit)));
      const list = tags.length
        ? h(
            'dl',
            { class: 'props' },
            tags.map((t) => [h('dt', null, t.key), h('dd', null, t.value)]),
          )
        : h('p', { class: 'hint' }, 'None.');
      add(box, list, edit, msg);
    } catch (e) {
      box.append(h('p', { class: 'hint' }, `${e.code}: ${e.message}`));
    }
  }

  async function showVersions() {
    let status = '';
    try {
      status = parseVersioning(await api.s3text('GET', bucket, '', { query: { versioning: '' } }));
    } catch {
      return;
    }
    if (!status) return;
    const box = h('section', { class: 'sub', 'data-test': 'detail-versions' }, h('h3', null, 'Versions'));
    extra.append(box);
    try {
      const res = parseListVersions(
        await api.s3text('GET', bucket, '', { query: { versions: '', prefix: key, 'encoding-type': 'url', 'max-keys': '100' } }),
      );
      const rows = res.versions.filter((v) => v.key === key);
      add(
        box,
        table(
          { class: 'list compact' },
          null,
          rows.map((v) =>
            h(
              'tr',
              { 'data-test': 'version-row', 'data-version': v.versionId },
              h('td', { class: 'mono' }, v.versionId.slice(0, 12) + (v.isLatest ? ' (latest)' : '')),
              h('td', { class: 'num' }, v.deleteMarker ? 'delete marker' : bytes(v.size)),
              h('td', { class: 'hide-narrow' }, date(v.lastModified)),
              h(
                'td',
                null,
                !v.deleteMarker && button('Download', () => downloadVersion(v.versionId), 'linkish'),
                ' ',
                deleteButton(
                  'Delete version',
                  `Delete version ${v.versionId} of ${key} for good?`,
                  () => api.s3('DELETE', bucket, key, { query: { versionId: v.versionId } }),
                  () => detailsPanel(app, panel, bucket, key, { onClose, onDeleted }),
                  { 'data-test': 'version-delete' },
                ),
              ),
            ),
          ),
        ),
        res.truncated ? h('p', { class: 'hint' }, 'Showing the first 100 versions.') : null,
      );
    } catch (e) {
      box.append(h('p', { class: 'hint' }, `${e.code}: ${e.message}`));
    }
  }

  async function downloadVersion(versionId) {
    try {
      const url = await api.presign(bucket, key, PREVIEW_URL_SECONDS, { versionId, download: true });
      const a = h('a', { href: url, download: baseName(key), hidden: true });
      document.body.append(a);
      a.click();
      a.remove();
    } catch (e) {
      app.showError(e);
    }
  }
}

/** EXPIRIES are the share link lifetimes offered, in seconds. */
export const EXPIRIES = [
  [3600, '1 hour'],
  [86400, '1 day'],
  [7 * 86400, '7 days'],
  [900, '15 minutes'],
];

function share(bucket, key) {
  const expires = h(
    'select',
    { name: 'expires', 'data-test': 'share-expires' },
    EXPIRIES.map(([s, l]) => h('option', { value: String(s) }, l)),
  );
  const url = h('input', { readOnly: true, 'data-test': 'share-url', 'aria-label': 'Share link', placeholder: 'Create a link first' });
  const copied = h('span', { class: 'hint', 'aria-live': 'polite' });
  const copyLink = async () => {
    try {
      await navigator.clipboard.writeText(url.value);
      copied.textContent = 'Copied.';
    } catch {
      url.select();
      copied.textContent = 'Select and copy the link (the clipboard is not available).';
    }
  };
  const copy = button('Copy', copyLink, 'secondary', { 'data-test': 'share-copy', disabled: true });
  dialog(
    `Share ${baseName(key)}`,
    (form, close) => [
      h('p', null, 'Anyone with the link can download this object until it expires. The link cannot outlive your session.'),
      field('Expires after', expires),
      h('div', { class: 'row' }, url, copy),
      copied,
      buttons(close, 'Create link', { 'data-test': 'share-create' }, 'Close'),
    ],
    async () => {
      url.value = await api.presign(bucket, key, Number(expires.value));
      copy.disabled = false;
      url.select();
      return KEEP;
    },
  );
  expires.focus();
}
