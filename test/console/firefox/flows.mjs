// The console's end-to-end flows in Firefox (Debian's firefox-esr,
// headless, over WebDriver BiDi, with puppeteer-core), against the real
// `jog server` TestFirefox (test/console/firefox_test.go) started. The Go
// test made the files, the buckets and the users and passes them in the
// environment; it checks what this script did on the server afterwards.
// The script exits 1 when a step failed.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { env, launch, goto, stepper, until, visible, present, gone, click, type, hook, colorShare, sleep, WAIT } from './harness.mjs';

const base = env('JOG_URL');
const s3 = env('JOG_S3_URL');
const files = env('JOG_FILES');
const bucket = 'ff-versioned';
const UPLOAD_WAIT = 5 * 60_000;

const t = await launch(env('JOG_FIREFOX'));
const { page } = t;
console.log(`firefox ${await t.browser.version()}, puppeteer-core over WebDriver BiDi`);
const { step, summary } = stepper(t);

const open = (path) => goto(t, base + path);

// signInPage opens the sign-in page, signing out first when a session is open.
const signInPage = async () => {
  await open('/console/');
  const shown = await until(page, 'the sign-in page or a session', () =>
    document.querySelector('[data-test="signin-access-key"]') ? 'signin' : document.querySelector('[data-test="signout"]') ? 'session' : '',
  );
  if (shown === 'session') {
    await click(page, hook('signout'));
    await visible(page, hook('signin-access-key'));
  }
};

const signIn = async (access, secret) => {
  await signInPage();
  await type(page, hook('signin-access-key'), access);
  await type(page, hook('signin-secret-key'), secret);
  await click(page, hook('signin-submit'));
};

// openObject opens key's details from its folder's page (in bucket b).
const openObject = async (prefix, key, b = bucket) => {
  await open(`/console/b/${b}/${prefix}`);
  await click(page, hook('object-row', { 'data-key': key }) + ' :is(a[href], button)');
  await visible(page, hook('object-details'));
};

// recordProgress logs in window.__jogProgress every "state:fraction" the
// upload row of name shows, on each DOM change.
const recordProgress = (name) =>
  page.evaluate((name) => {
    window.__jogProgress = [];
    const read = () => {
      const row = document.querySelector(`[data-test="upload-row"][data-name="${name}"]`);
      const e = row && row.querySelector('progress');
      if (!row) return;
      const s = `${row.dataset.state}:${e && e.hasAttribute('value') ? e.value / e.max : 'none'}`;
      const log = window.__jogProgress;
      if (log[log.length - 1] !== s) log.push(s);
    };
    new MutationObserver(read).observe(document.documentElement, { subtree: true, childList: true, attributes: true, characterData: true });
  }, name);

// waitUploads waits until the rows of names (base names) ended: 'done'
// when all are done, else the first other end.
const waitUploads = (names) =>
  until(
    page,
    `the uploads of ${names.join(', ')} to end`,
    (names) => {
      const rows = [...document.querySelectorAll('[data-test="upload-row"]')];
      let done = 0;
      for (const n of names) {
        const r = rows.find((r) => r.dataset.name === n || (r.dataset.name || '').endsWith('/' + n));
        if (!r) return '';
        if (r.dataset.state === 'failed' || r.dataset.state === 'cancelled')
          return `${r.dataset.state} (${r.dataset.name}: ${r.innerText})`;
        if (r.dataset.state === 'done') done++;
      }
      return done === names.length ? 'done' : '';
    },
    [names],
    UPLOAD_WAIT,
  );

const expectDone = async (names) => {
  const state = await waitUploads(names);
  if (state !== 'done') throw new Error(`uploads ended ${state}`);
};

const upload = async (css, ...paths) => {
  const input = await present(page, css);
  await input.uploadFile(...paths);
};

const fail = (msg) => {
  throw new Error(msg);
};

await step('a wrong secret is refused', [], async () => {
  await signIn(env('JOG_ACCESS_KEY'), 'not-the-secret-0000000000000000000000000');
  const msg = await until(page, 'signin-error to show a message', () => {
    const e = document.querySelector('[data-test="signin-error"]');
    return e && !e.hidden && e.innerText.trim();
  });
  if (await page.$(hook('whoami'))) fail('refused, yet the page shows whoami');
  if ((await page.cookies()).some((c) => c.name === 'jog_console')) fail('refused, yet the browser holds a jog_console cookie');
  console.log(`     signin-error: ${msg}`);
});

await step('sign in with the keyboard', [], async () => {
  await signInPage();
  // The access key field has the focus; Tab goes to the secret, Enter submits.
  await until(page, 'the access key field to have the focus', () => document.activeElement?.dataset.test === 'signin-access-key');
  await page.keyboard.type(env('JOG_ACCESS_KEY'));
  await page.keyboard.press('Tab');
  await page.keyboard.type(env('JOG_SECRET_KEY'));
  await page.keyboard.press('Enter');
  await until(page, 'whoami to name root', () => document.querySelector('[data-test="whoami"]')?.innerText.includes('root'));
});

await step('create a versioned bucket', ['sign in with the keyboard'], async () => {
  await open('/console/');
  await click(page, hook('bucket-create-open'));
  await type(page, hook('bucket-create-name'), bucket);
  await click(page, hook('bucket-create-versioning'));
  await click(page, hook('bucket-create-submit'));
  await gone(page, hook('bucket-create-name'));
  await open('/console/');
  await visible(page, hook('bucket-row', { 'data-bucket': bucket }));
});

await step('upload a small file, a PDF and 20 MiB (multipart) with progress', ['create a versioned bucket'], async () => {
  await open(`/console/b/${bucket}/`);
  await present(page, hook('upload-input'));
  await recordProgress('big.bin');
  await upload(hook('upload-input'), join(files, 'notes.txt'), join(files, 'poster.pdf'), join(files, 'big.bin'));
  await expectDone(['notes.txt', 'poster.pdf', 'big.bin']);
  const log = await page.evaluate(() => window.__jogProgress);
  let last = -1;
  let between = 0;
  for (const e of log) {
    const x = Number(e.split(':')[1]);
    if (Number.isNaN(x)) continue;
    if (x < last) fail(`the progress of big.bin went down: ${log}`);
    if (x > 0 && x < 1) between++;
    last = x;
  }
  if (!between || !log.at(-1).startsWith('done')) fail(`the progress of big.bin: ${log}; want values between 0 and 1, then done`);
  console.log(`     big.bin: ${log.length} progress states, ${between} between 0 and 1`);
  await visible(page, hook('object-row', { 'data-key': 'big.bin' }));
});

// Firefox's WebDriver BiDi input.setFiles takes files only: a directory
// fails (File.createFromFileName: NS_ERROR_FILE_IS_DIRECTORY), so the
// folder picker (webkitdirectory) cannot be driven in Firefox 153. The step
// says so and passes while that holds; once a Firefox can, the step checks
// the folder's upload.
await step('upload a folder with the folder picker', ['create a versioned bucket'], async () => {
  await open(`/console/b/${bucket}/`);
  try {
    await upload(hook('upload-folder-input'), join(files, 'trip'));
  } catch (e) {
    if (!/unsupported operation.*(Is directory|NS_ERROR_FILE_IS_DIRECTORY)/s.test(e.message)) throw e;
    console.log(`     not possible in this Firefox: WebDriver BiDi input.setFiles takes no directory (${e.message.split('\n')[0]})`);
    return;
  }
  await expectDone(JSON.parse(env('JOG_TRIP')));
});

// The 20 files go into a folder made with the console: "New folder", then
// the file picker (multiple) inside it.
await step('upload a folder', ['create a versioned bucket'], async () => {
  await open(`/console/b/${bucket}/`);
  await click(page, hook('folder-create-open'));
  await type(page, hook('folder-create-name'), 'album');
  await click(page, hook('folder-create-submit'));
  await gone(page, hook('folder-create-name'));
  await click(page, hook('prefix-row', { 'data-prefix': 'album/' }) + ' :is(a[href], button)');
  await until(page, 'the album/ folder to open', () => location.pathname.endsWith('/album/'));
  const names = JSON.parse(env('JOG_ALBUM'));
  await upload(hook('upload-input'), ...names.map((n) => join(files, 'album', n)));
  await expectDone(names);
  await open(`/console/b/${bucket}/album/`);
  const n = await until(page, '20 object rows', () => {
    const n = document.querySelectorAll('[data-test="object-row"]').length;
    return n >= 20 ? n : 0;
  });
  if (n !== 20) fail(`the folder lists ${n} objects, want 20`);
});

await step('browse into the folder and back by the breadcrumb', ['upload a folder'], async () => {
  await open(`/console/b/${bucket}/`);
  await click(page, hook('prefix-row', { 'data-prefix': 'album/' }) + ' :is(a[href], button)');
  await visible(page, hook('object-row', { 'data-key': 'album/readme.txt' }));
  const path = await page.evaluate(() => location.pathname);
  if (!path.endsWith(`/b/${bucket}/album/`)) fail(`in the folder, the address is ${path}`);
  await click(page, hook('breadcrumb') + ' [data-prefix=""]');
  await visible(page, hook('object-row', { 'data-key': 'big.bin' }));
  await gone(page, hook('object-row', { 'data-key': 'album/readme.txt' }));
});

await step('preview a text file', ['upload a folder'], async () => {
  await openObject('album/', 'album/readme.txt');
  const first = readFileSync(join(files, 'album', 'readme.txt'), 'utf8').split('\n')[0];
  await until(
    page,
    'the preview to show the text',
    (first) => document.querySelector('[data-test="preview"] pre')?.innerText.includes(first),
    [first],
  );
});

await step('preview an image', ['upload a folder'], async () => {
  await openObject('album/', 'album/cat.png');
  const size = await until(page, "the preview's image to load", () => {
    const i = document.querySelector('[data-test="preview"] img');
    return i && i.complete && i.naturalWidth > 0 ? `${i.naturalWidth}x${i.naturalHeight}` : '';
  });
  if (size !== '64x48') fail(`the preview shows a ${size} image, want 64x48`);
});

// pdfShown opens a PDF's details and takes screenshots of its preview
// frame until the page's colour covers JOG_PDF_MIN_SHARE of one (pdf.js
// draws after loading).
const pdfShown = async (bucket, key) => {
  await openObject('', key, bucket);
  const ct = await until(page, 'detail-content-type', () => document.querySelector('[data-test="detail-content-type"]')?.innerText);
  if (!ct.includes('application/pdf')) fail(`detail-content-type ${ct}, want application/pdf`);
  const frame = await visible(page, hook('preview') + ' iframe');
  const rgb = env('JOG_PDF_RGB').split(',').map(Number);
  const min = Number(env('JOG_PDF_MIN_SHARE'));
  const deadline = Date.now() + WAIT;
  for (;;) {
    const shot = await frame.screenshot();
    const share = colorShare(shot, rgb);
    if (share >= min) {
      console.log(`     ${key}: the preview shows the page, ${Math.round(share * 100)}% of its pixels are the page's colour`);
      return;
    }
    if (Date.now() > deadline) {
      const file = join(env('JOG_ARTIFACTS'), `pdf-preview-${key}.png`);
      writeFileSync(file, shot);
      fail(`the preview of ${key}: ${(share * 100).toFixed(1)}% of its pixels are the page's colour, want ${min * 100}% (${file})`);
    }
    await sleep(200);
  }
};

// poster.pdf was uploaded by the page (the browser's type for a .pdf);
// shared/attachment.pdf was stored by the Go test with Content-Disposition:
// attachment, which the preview's presigned URL overrides with inline.
await step('preview a PDF', ['upload a small file, a PDF and 20 MiB (multipart) with progress'], async () => {
  await pdfShown(bucket, 'poster.pdf');
  await pdfShown('shared', 'attachment.pdf');
});

await step('share a link and fetch it', ['upload a folder'], async () => {
  await openObject('album/', 'album/cat.png');
  await click(page, hook('share-open'));
  const expires = await page.$eval(hook('share-expires'), (s) => {
    s.value = '3600';
    s.dispatchEvent(new Event('change', { bubbles: true }));
    return s.value;
  });
  await click(page, hook('share-create'));
  const link = await until(page, 'the share URL', () => document.querySelector('[data-test="share-url"]')?.value);
  const u = new URL(link);
  if (u.origin !== s3) fail(`share URL ${link} is not on the S3 port's address ${s3}`);
  if (u.searchParams.get('X-Amz-Expires') !== expires)
    fail(`share URL expires in ${u.searchParams.get('X-Amz-Expires')} s, the page chose ${expires}`);
  const res = await fetch(link);
  const got = Buffer.from(await res.arrayBuffer());
  const want = readFileSync(join(files, 'album', 'cat.png'));
  if (res.status !== 200 || !got.equals(want))
    fail(`GET the share URL: ${res.status}, ${got.length} bytes; want the ${want.length} bytes of cat.png`);
});

await step('list the versions of an object', ['upload a small file, a PDF and 20 MiB (multipart) with progress'], async () => {
  await open(`/console/b/${bucket}/`);
  await upload(hook('upload-input'), join(files, 'v2', 'notes.txt'));
  await expectDone(['notes.txt']);
  await openObject('', 'notes.txt');
  const n = await until(page, 'two version rows', () => {
    const n = document.querySelectorAll('[data-test="detail-versions"] [data-test="version-row"]').length;
    return n >= 2 ? n : 0;
  });
  console.log(`     notes.txt: ${n} versions listed`);
});

await step('delete an object', ['upload a folder'], async () => {
  await openObject('album/', 'album/file-05.txt');
  await click(page, hook('object-delete'));
  await click(page, hook('confirm-submit'));
  await gone(page, hook('confirm-submit'));
  await open(`/console/b/${bucket}/album/`);
  await visible(page, hook('object-row', { 'data-key': 'album/file-04.txt' }));
  await gone(page, hook('object-row', { 'data-key': 'album/file-05.txt' }));
});

await step('draw the dashboard', ['sign in with the keyboard'], async () => {
  await open('/console/dashboard');
  await until(
    page,
    'the requests chart to draw a line',
    () => {
      const l = document.querySelector('[data-test="chart-requests"] polyline');
      const r = l && l.getBoundingClientRect();
      return l && l.getAttribute('points').trim().split(/\s+/).length >= 2 && r.width > 0 ? 'drawn' : '';
    },
    [],
    WAIT,
  );
});

await step("fit a phone's 375 px", ['upload a folder'], async () => {
  await page.setViewport({ width: 375, height: 800 });
  try {
    for (const [path, css] of [
      ['/console/', hook('bucket-row', { 'data-bucket': bucket })],
      [`/console/b/${bucket}/album/`, hook('object-row', { 'data-key': 'album/cat.png' })],
    ]) {
      await open(path);
      await visible(page, css);
      const w = await page.evaluate(() => document.documentElement.scrollWidth);
      if (w > 375) fail(`${path} is ${w} px wide on a 375 px screen: it scrolls sideways`);
    }
  } finally {
    await page.setViewport({ width: 1280, height: 800 });
  }
});

await step('sign out: the session is refused', ['sign in with the keyboard'], async () => {
  const cookie = (await page.cookies(base + '/console/')).find((c) => c.name === 'jog_console');
  if (!cookie) fail('signed in, yet the browser holds no jog_console cookie');
  const session = () => fetch(base + '/console/api/session', { headers: { Cookie: `jog_console=${cookie.value}` } }).then((r) => r.status);
  if ((await session()) !== 200) fail('GET /console/api/session with the cookie before signing out is not 200');
  await open('/console/');
  await click(page, hook('signout'));
  await visible(page, hook('signin-access-key'));
  const st = await session();
  if (st !== 401) fail(`GET /console/api/session with the signed-out session's cookie: ${st}, want 401`);
});

await step('a user without permission sees the S3 error', [], async () => {
  await signIn(env('JOG_VIEWER_KEY'), env('JOG_VIEWER_SECRET'));
  await until(page, 'whoami to name viewer', () => document.querySelector('[data-test="whoami"]')?.innerText.includes('viewer'));
  await open('/console/b/shared/');
  await visible(page, hook('object-row', { 'data-key': 'hello.txt' }));
  await upload(hook('upload-input'), join(files, 'denied.txt'));
  const state = await waitUploads(['denied.txt']);
  if (!state.startsWith('failed')) fail(`the denied upload ended ${state}, want failed`);
  await until(page, 'AccessDenied in the error banner', () => {
    const b = document.querySelector('[data-test="error-banner"]');
    return b && b.offsetParent !== null && b.innerText.includes('AccessDenied');
  });
});

await t.browser.close();
const s = summary();
console.log(`Firefox: ${s.passed} steps passed, ${s.failed} failed, ${s.skipped} skipped`);
process.exit(s.failed || s.skipped ? 1 : 0);
