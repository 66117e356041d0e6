import { test } from 'node:test';
import assert from 'node:assert/strict';
import { previewKind } from '../dist/js/pages/details.js';

test('previewKind trusts a specific content type and falls back on the extension for generic ones', () => {
  const cases = [
    ['image/png', 'a/cat.png', 'image'],
    ['application/octet-stream', 'a/cat.PNG', 'image'],
    ['binary/octet-stream', 'scan.pdf', ''],
    ['application/pdf', 'x', 'pdf'],
    ['', 'notes.txt', 'text'],
    ['text/plain', 'README', 'text'],
    ['application/json', 'x', 'text'],
    ['image/svg+xml', 'logo.svg', 'text'],
    ['application/zip', 'cat.png', ''],
    ['application/octet-stream', 'disk.img', ''],
    ['video/mp4', 'clip.mp4', ''],
  ];
  for (const [type, key, want] of cases) assert.equal(previewKind(type, key), want, `${type} ${key}`);
});
