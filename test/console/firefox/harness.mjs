// The pieces of the Firefox test that are not flows: the browser, the
// page's problem watcher, waits named for their failure messages, steps
// with prerequisites, and the share of a colour in a screenshot.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import puppeteer from 'puppeteer-core';
import { PNG } from 'pngjs';

/** WAIT bounds a wait for the page (a bound against a wedged page, not a timing asserted). */
export const WAIT = 45_000;

/** env is the environment variable name, which TestFirefox sets. */
export function env(name) {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: run this script through TestFirefox (test/console)`);
  return v;
}

/** launch starts headless Firefox over WebDriver BiDi with one 1280×800 page watched for problems. */
export async function launch(executablePath) {
  const browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath,
    headless: true,
    defaultViewport: { width: 1280, height: 800 },
  });
  const page = await browser.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`uncaught error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console error: ${m.text()}`);
  });
  // In every document, before its scripts: CSP violations, uncaught
  // errors and unhandled rejections into window.__jogProblems.
  await page.evaluateOnNewDocument(() => {
    window.__jogProblems = [];
    document.addEventListener('securitypolicyviolation', (e) =>
      window.__jogProblems.push(`CSP violation: ${e.violatedDirective} ${e.blockedURI || ''} ${e.sourceFile || ''}:${e.lineNumber}`),
    );
    window.addEventListener('error', (e) => window.__jogProblems.push(`uncaught error: ${e.message} ${e.filename || ''}:${e.lineno}`));
    window.addEventListener('unhandledrejection', (e) =>
      window.__jogProblems.push(`unhandled rejection: ${(e.reason && (e.reason.stack || e.reason.message)) || e.reason}`),
    );
  });
  return { browser, page, problems };
}

/** takeProblems returns what went wrong in the page since the last call (the watcher's and the listeners'). */
export async function takeProblems(t) {
  const inPage = await t.page
    .evaluate(() => {
      const p = window.__jogProblems || [];
      window.__jogProblems = [];
      return p;
    })
    .catch(() => []);
  return [...t.problems.splice(0), ...inPage];
}

/** goto loads url, first keeping what the page it leaves recorded (takeProblems reports it). */
export async function goto(t, url) {
  const inPage = await t.page.evaluate(() => window.__jogProblems || []).catch(() => []);
  t.problems.push(...inPage);
  await t.page.goto(url);
}

/** sleep waits ms. */
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** until evaluates fn(...args) in the page every 50 ms until it returns a truthy value, returned; it throws, naming what, after ms. */
export async function until(page, what, fn, args = [], ms = WAIT) {
  try {
    const v = await page.waitForFunction(fn, { timeout: ms, polling: 50 }, ...args);
    return await v.jsonValue();
  } catch (e) {
    throw new Error(`${what}: ${e.message}`);
  }
}

/** sel is the CSS selector of a data-test hook, with attributes. */
export function hook(name, attrs = {}) {
  return (
    `[data-test="${name}"]` +
    Object.entries(attrs)
      .map(([k, v]) => `[${k}="${CSS_escape(v)}"]`)
      .join('')
  );
}

function CSS_escape(v) {
  return String(v).replace(/["\\]/g, (c) => `\\${c}`);
}

/** visible waits until an element matching css is shown and returns its handle. */
export async function visible(page, css, ms = WAIT) {
  try {
    return await page.waitForSelector(css, { visible: true, timeout: ms });
  } catch (e) {
    throw new Error(`${css} to show: ${e.message}`);
  }
}

/** present waits until an element matching css is in the page (a hidden file input) and returns its handle. */
export async function present(page, css) {
  try {
    return await page.waitForSelector(css, { timeout: WAIT });
  } catch (e) {
    throw new Error(`${css} to be in the page: ${e.message}`);
  }
}

/** gone waits until no element matches css. */
export async function gone(page, css) {
  await until(page, `${css} to go`, (css) => !document.querySelector(css), [css]);
}

/** click clicks the element css once shown (a real pointer click at its middle). */
export async function click(page, css) {
  const e = await visible(page, css);
  await e.click();
}

/** type types text into the field css (keyboard events). */
export async function type(page, css, text) {
  const e = await visible(page, css);
  await e.type(text);
}

/** colorShare is the fraction of a PNG's pixels within 8 levels of rgb on every channel. */
export function colorShare(png, [r, g, b]) {
  const img = PNG.sync.read(Buffer.from(png));
  const near = (x, y) => Math.abs(x - y) <= 8;
  let n = 0;
  for (let i = 0; i < img.data.length; i += 4) {
    if (near(img.data[i], r) && near(img.data[i + 1], g) && near(img.data[i + 2], b)) n++;
  }
  return n / (img.width * img.height);
}

/**
 * steps runs named steps in order, each after its prerequisites passed,
 * logging each result; a failed step leaves a screenshot in JOG_ARTIFACTS
 * and so does not stop the others. It returns the number that failed.
 */
export function stepper(t) {
  const passed = new Set();
  const results = [];
  const artifacts = env('JOG_ARTIFACTS');
  mkdirSync(artifacts, { recursive: true });
  const step = async (name, needs, fn) => {
    const missing = needs.filter((n) => !passed.has(n));
    if (missing.length) {
      console.log(`SKIP ${name}: needs ${missing.map((m) => JSON.stringify(m)).join(', ')}, which did not pass`);
      results.push('skip');
      return;
    }
    const start = Date.now();
    let err = null;
    try {
      await fn();
    } catch (e) {
      err = e;
    }
    // The page's problems belong to this step, failed or not.
    const problems = await takeProblems(t);
    if (!err && !problems.length) {
      passed.add(name);
      results.push('pass');
      console.log(`ok   ${name} (${((Date.now() - start) / 1000).toFixed(1)} s)`);
      return;
    }
    results.push('fail');
    const file = join(artifacts, `${name.replace(/[^\w]+/g, '-')}.png`);
    let shot = '(none)';
    try {
      writeFileSync(file, await t.page.screenshot());
      shot = file;
    } catch {}
    const at = await t.page.evaluate(() => location.href).catch(() => '?');
    const recorded = problems.length ? `\n  the page recorded:\n    ${problems.join('\n    ')}` : '';
    console.log(`FAIL ${name}: ${err ? err.stack || err : 'the page recorded problems'}${recorded}\n  page: ${at}\n  screenshot: ${shot}`);
  };
  const summary = () => {
    const count = (r) => results.filter((x) => x === r).length;
    return { passed: count('pass'), failed: count('fail'), skipped: count('skip') };
  };
  return { step, summary };
}
