// TestConsoleXSS's Firefox half (test/console/xss_test.go): signed in to
// the console as the root, open each object the Go test stored (a page
// with a script, under one of issue 37's Content-Type values) through
// its presigned link, and fail if any script ran. A script that runs
// marks its document (data-jog-xss: "ran", then "done" once it has tried
// the console's API); the Go test then checks its recorder and that no
// IAM user was created. The control page (the payload served as
// text/html by the recorder) must show its mark, else this could not
// see a script run.

import { env, launch, until, visible, click, type, hook } from './harness.mjs';

const base = env('JOG_URL');
const cases = JSON.parse(env('JOG_XSS_CASES'));
const t = await launch(env('JOG_FIREFOX'));
const { page } = t;
console.log(`firefox ${await t.browser.version()}: ${cases.length} objects`);

await page.goto(base + '/console/');
await type(page, hook('signin-access-key'), env('JOG_ACCESS_KEY'));
await type(page, hook('signin-secret-key'), env('JOG_SECRET_KEY'));
await click(page, hook('signin-submit'));
await visible(page, hook('whoami'));

// DOWNLOAD_WAIT bounds a navigation: one that shows nothing (Firefox
// saves the object) never ends. The mark is read after it all the same.
const DOWNLOAD_WAIT = 20_000;

// mark opens url in a tab of its own (a download leaves its tab stuck) and
// reads the mark its script left: '' when none ran; error when the
// navigation did not end (a download).
const mark = async (url) => {
  const tab = await t.browser.newPage();
  const read = () => (document.documentElement && document.documentElement.getAttribute('data-jog-xss')) || '';
  let error;
  try {
    await tab.goto(url, { timeout: DOWNLOAD_WAIT, waitUntil: 'load' });
  } catch (e) {
    error = String(e.message || e).split('\n')[0];
  }
  const m = await tab.evaluate(read).catch(() => '');
  if (m) await until(tab, 'the script to end', () => document.documentElement.getAttribute('data-jog-xss') === 'done').catch(() => {});
  await tab.close().catch(() => {});
  return { mark: m, error };
};

let failed = 0;
const control = await mark(env('JOG_XSS_CONTROL'));
if (control.mark !== 'ran' && control.mark !== 'done') {
  console.log(`FAIL the control page's script left no mark (${JSON.stringify(control)}): this test cannot see a script run`);
  failed++;
} else {
  console.log('ok   the control page: its script ran, and is seen');
}
for (const c of cases) {
  const r = await mark(c.url);
  if (r.mark) {
    console.log(`FAIL Content-Type ${JSON.stringify(c.ct)}: the object's script ran`);
    failed++;
  } else if (r.error) {
    console.log(`     Content-Type ${JSON.stringify(c.ct)}: ${r.error} (not shown: downloaded)`);
  } else {
    console.log(`ok   Content-Type ${JSON.stringify(c.ct)}: no script ran`);
  }
}
t.problems.splice(0); // the objects' pages log their blocked scripts: expected here
await t.browser.close();
console.log(`Firefox: ${cases.length - failed} objects ran no script, ${failed} failed`);
process.exit(failed ? 1 : 0);
