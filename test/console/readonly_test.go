package console

import (
	"strings"
	"testing"

	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// readOnlyPolicy is AWS's AmazonS3ReadOnlyAccess: every Get and List.
const readOnlyPolicy = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["s3:Get*","s3:List*"],"Resource":"*"}]}`

// TestConsoleReadOnly: on a server with no throughput capacity and no
// notification targets, a user allowed only to read (AWS's
// AmazonS3ReadOnlyAccess) is shown what it may do and told why the rest
// is unavailable: Delete bucket, the uploads, New folder and Delete object
// disabled with "Your policy doesn't allow …"; settings read only with
// their reason; the reservation form replaced by the flag to set, the
// notification form by how to add a target; the dashboard, whose
// metrics it may not read, says so instead of drawing empty charts. The
// root, on the same pages, is offered all of it. The object whose details
// are open is the highlighted row (aria-selected), and the root's charts
// have labelled axes.
func TestConsoleReadOnly(t *testing.T) {
	srv, b := startConsole(t)
	c := srv.s3(t)
	itest.CreateBucket(t, c, "shelf")
	for _, k := range []string{"a.txt", "b.txt"} {
		itest.Put(t, c, "shelf", k, []byte("text of "+k))
	}
	readerKey, readerSecret := srv.newUser(t, "reader", readOnlyPolicy)
	f := &flow{t: t, b: b, passed: map[string]bool{}}
	notAllowed := func(p *tab, scope sel, action string) string {
		p.t.Helper()
		note := scope.in(`[data-test="not-allowed"][data-action="` + action + `"]`)
		p.visible(note)
		got := p.text(note)
		if !strings.Contains(got, "Your policy doesn't allow "+action) {
			p.t.Errorf("the note for %s says %q", action, got)
		}
		return got
	}
	disabled := func(p *tab, s sel) bool {
		p.t.Helper()
		p.present(s)
		return p.eval(`document.querySelector('`+s.css+`').disabled ? 'yes' : ''`) == "yes"
	}

	f.step("a read-only user is offered no delete, upload or new folder, and told why", nil, func(p *tab) {
		p.need("bucket-notes", "not-allowed", "upload-open", "upload-folder-open")
		p.signIn(readerKey, readerSecret)
		p.open("/console/b/shelf/")
		p.visible(hook("object-row", "data-key", "a.txt"))
		notAllowed(p, hook("bucket-notes"), "s3:DeleteBucket")
		notAllowed(p, hook("bucket-notes"), "s3:PutObject")
		for _, h := range []string{"bucket-delete", "upload-open", "upload-folder-open", "folder-create-open"} {
			if !disabled(p, hook(h)) {
				p.t.Errorf("%s is offered to the read-only user", h)
			}
		}
		p.visible(hook("bucket-settings"))
	})

	f.step("an object's details: no delete for the read-only user, its row highlighted", nil, func(p *tab) {
		p.signIn(readerKey, readerSecret)
		openObject(p, "shelf", "", "a.txt")
		notAllowed(p, hook("object-details"), "s3:DeleteObject")
		if !disabled(p, hook("object-delete")) {
			p.t.Error("Delete object is offered to the read-only user")
		}
		selected, other := hook("object-row", "data-key", "a.txt"), hook("object-row", "data-key", "b.txt")
		p.until("a.txt's row selected, b.txt's not", wait, `(() => {
			const a = document.querySelector('`+selected.css+`'), b = document.querySelector('`+other.css+`');
			return a && b && a.getAttribute('aria-selected') === 'true' && b.getAttribute('aria-selected') === 'false' ? 'yes' : '';
		})()`)
		bg := func(s sel) string {
			return p.eval(`getComputedStyle(document.querySelector('` + s.css + ` td')).backgroundColor`)
		}
		if a, b := bg(selected), bg(other); a == b {
			p.t.Errorf("the selected row's background %s is the other rows' (%s)", a, b)
		}
		p.click(hook("object-details").in(`[aria-label="Close details"]`))
		p.until("no row selected once the details close", wait,
			`document.querySelector('[data-test="object-row"][aria-selected="true"]') ? '' : 'none'`)
	})

	f.step("a read-only user's settings say what it may not change and what the server lacks", nil, func(p *tab) {
		p.need("no-capacity", "no-targets", "settings-versioning")
		p.signIn(readerKey, readerSecret)
		p.open("/console/settings/shelf")
		notAllowed(p, hook("settings-versioning"), "s3:PutBucketVersioning")
		if !disabled(p, hook("settings-versioning").in("select")) {
			p.t.Error("the read-only user may change versioning")
		}
		notAllowed(p, hook("settings-tags"), "s3:PutBucketTagging")
		// Not allowed to read the quota (a jog: action): said, not "AccessDenied".
		notAllowed(p, hook("settings-quota"), "jog:GetBucketQuota")
		p.visible(hook("no-targets"))
		if got := p.text(hook("no-targets")); !strings.Contains(got, "--notify-webhook") {
			p.t.Errorf("the notifications section says %q, want how to add a target", got)
		}
		p.gone(hook("notify-add"))
	})

	f.step("the root is offered everything, and told what the server lacks", nil, func(p *tab) {
		p.signIn(testutil.AccessKey, testutil.SecretKey)
		p.open("/console/b/shelf/")
		p.visible(hook("object-row", "data-key", "a.txt"))
		p.visible(hook("upload-open"))
		// The answers come after the list: wait for them as the reader's page does, then see none.
		p.until("the permissions asked", wait, `performance.getEntriesByType('resource').filter((e) => e.name.includes('permissions')).length >= 2 ? 'yes' : ''`)
		for _, h := range []string{"bucket-delete", "upload-open", "folder-create-open"} {
			if disabled(p, hook(h)) {
				p.t.Errorf("%s is disabled for the root", h)
			}
		}
		if n := p.eval(`String(document.querySelectorAll('[data-test="not-allowed"]').length)`); n != "0" {
			p.t.Errorf("the root is shown %s not-allowed notes", n)
		}
		p.open("/console/settings/shelf")
		p.visible(hook("no-capacity"))
		if got := p.text(hook("no-capacity")); !strings.Contains(got, "--qos-read-capacity") {
			p.t.Errorf("the reservations section says %q, want the flag to set", got)
		}
		if strings.Contains(p.text(hook("settings-reservations")), "0.0 MiB/s") {
			p.t.Error("the reservations section offers a capacity of 0.0 MiB/s")
		}
		p.visible(hook("no-targets"))
		p.visible(hook("settings-versioning").in("select"))
		if disabled(p, hook("settings-versioning").in("select")) {
			p.t.Error("versioning is read only for the root")
		}
	})

	f.step("the dashboard: the read-only user is told why it is empty, the root sees labelled axes", nil, func(p *tab) {
		p.need("dashboard-denied", "y-ticks", "x-axis")
		p.signIn(readerKey, readerSecret)
		p.open("/console/dashboard")
		p.visible(hook("dashboard-denied"))
		if got := p.text(hook("dashboard-denied")); !strings.Contains(got, "Your policy doesn't allow jog:GetMetrics") {
			p.t.Errorf("the dashboard says %q to the read-only user", got)
		}
		p.gone(hook("chart-requests"))

		p.signIn(testutil.AccessKey, testutil.SecretKey)
		p.open("/console/dashboard")
		ticks := hook("chart-requests").in(`[data-test="y-ticks"]`)
		p.until("the requests chart's y ticks with their unit", wait, `(() => {
			const t = document.querySelector('`+ticks.css+`');
			return t && t.children.length >= 2 && t.lastElementChild.textContent.endsWith('/s') ? 'yes' : '';
		})()`)
		if got := p.text(hook("chart-throughput").in(`[data-test="x-axis"]`)); !strings.Contains(got, "now") || !strings.Contains(got, "min") {
			p.t.Errorf("the throughput chart's time axis says %q", got)
		}
	})
}
