// Package console holds the end-to-end tests of the web console: headless
// Chromium (Debian's /usr/bin/chromium), driven with chromedp, and headless
// Firefox (Debian's firefox-esr, over WebDriver BiDi with puppeteer-core from
// the node script in firefox/), against a real `jog server` process built
// from this tree, using only the data-test hooks the console's pages carry
// (docs/CONSOLE.md). The package has no code of its own; its tests are:
//
//   - TestConsoleFlows: root signs in, creates buckets, uploads a 50 MiB file
//     (multipart, progress watched), cancels one, uploads a folder of 20
//     files, browses with the breadcrumb, previews, shares and downloads
//     (fetched with net/http), deletes, creates a folder, pages and filters a
//     long listing, and signs out.
//   - TestConsoleAccess: a wrong secret is refused; an IAM user allowed only to
//     list and read sees AccessDenied when uploading.
//   - TestConsoleOwnAddress: by default the console is on a port of its own
//     (the banner's), which serves no object, and not on the S3 port; its
//     share and download links name the S3 port, and an image preview
//     loads from there; with --console-addr=same it is on the S3 port.
//   - TestConsoleXSS (issue 37): pages with a script stored under 40
//     Content-Type values (lists, parameters, SVG, XML, x-mixed-replace…),
//     opened through presigned links in Chromium and Firefox (firefox/xss.mjs)
//     signed in as the root, the console on its own origin and on the S3
//     port: no script may run, no console call succeed, no user appear.
//   - TestFirefox: the flows again in Firefox (firefox/flows.mjs, needing
//     `npm ci` in firefox/): sign-in by keyboard, a wrong secret, uploads (20
//     MiB multipart with progress, 20 files into a new folder), the
//     breadcrumb, text, image and PDF previews, a share link, versions, a
//     delete, the dashboard, 375 px, sign-out, a user's denial; then the
//     server's state is checked with aws-sdk-go-v2.
//   - TestPDFPreview: a hand-written PDF (and one stored as an attachment)
//     is drawn in the preview frame: a screenshot of it mostly of the page's
//     colour.
//   - TestScreenshots: the pages at 1280×800 and one at 375×800; with -update
//     it rewrites docs/console/*.png (scripts/console-screenshots.sh).
//   - TestConsoleFirstPage: a measurement, not an assertion, run only with
//     JOG_CONSOLE_BENCH=1 (bench/console.sh): time from navigation to the
//     first object row of a bucket of 10,000 objects.
//
// Without Chromium (or, for TestFirefox, Firefox, node or firefox/node_modules)
// the tests skip, except when CI is set.
package console
