package console

import (
	"bytes"
	"context"
	"fmt"
	"image/color"
	"image/png"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/chromedp/chromedp"

	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// pdfColor is the colour the test PDF's page is filled with: a magenta no
// page of the console, no browser's PDF viewer chrome and no anti-aliased
// text is drawn in, so a screenshot holding much of it shows the PDF
// drawn.
var pdfColor = color.RGBA{204, 51, 153, 255} // 0.8 0.2 0.6 rg

// solidPDF is a valid one-page PDF 1.4 of w×h points whose page is one
// rectangle filled with pdfColor, written by hand: a catalog, a page tree,
// a page, its content stream, and a cross-reference table with each
// object's byte offset.
func solidPDF(w, h int) []byte {
	content := fmt.Sprintf("%.1f %.1f %.1f rg\n0 0 %d %d re\nf\n",
		float64(pdfColor.R)/255, float64(pdfColor.G)/255, float64(pdfColor.B)/255, w, h)
	objects := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %d %d] /Resources << >> /Contents 4 0 R >>", w, h),
		fmt.Sprintf("<< /Length %d >>\nstream\n%sendstream", len(content), content),
	}
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	offsets := make([]int, len(objects))
	for i, o := range objects {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	// Each entry is exactly 20 bytes: 10-digit offset, 5-digit generation,
	// n or f, and a two-byte end of line.
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objects)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objects)+1, xref)
	return b.Bytes()
}

// colorShare is the fraction of a PNG's pixels within a few levels of c
// on every channel.
func colorShare(shot []byte, c color.RGBA) (float64, error) {
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		return 0, err
	}
	r := img.Bounds()
	near := func(a, b uint8) bool { return max(a, b)-min(a, b) <= 8 }
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			p := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			if near(p.R, c.R) && near(p.G, c.G) && near(p.B, c.B) {
				n++
			}
		}
	}
	return float64(n) / float64(r.Dx()*r.Dy()), nil
}

// pdfMinShare is how much of the preview must be the PDF's colour: the
// viewer's toolbar and margins take the rest (in both browsers the page,
// fitted to the frame, covers well over half of it).
const pdfMinShare = 0.4

// TestPDFPreview uploads a PDF through the console, opens its details and
// requires the preview frame to show the page: a screenshot of the
// preview mostly of the page's colour, which only a drawn PDF gives. A PDF
// stored as an attachment (Content-Disposition: attachment, as some
// clients store downloads) is drawn too: the preview's presigned URL asks
// for inline. Headless Chromium draws PDFs with its built-in viewer
// (PDFium); this is Chromium's half, TestFirefox's script checks the same
// in Firefox (pdf.js).
func TestPDFPreview(t *testing.T) {
	srv, b := startConsole(t)
	c := srv.s3(t)
	itest.CreateBucket(t, c, "docs")
	pdf := solidPDF(400, 300)
	itest.Put(t, c, "docs", "attachment.pdf", pdf, contentType("application/pdf"), func(in *s3.PutObjectInput) {
		in.ContentDisposition = aws.String(`attachment; filename="attachment.pdf"`)
	})
	dir := writeFiles(t, t.TempDir(), "up", map[string][]byte{"poster.pdf": pdf})
	p := b.on(t)
	p.signIn(testutil.AccessKey, testutil.SecretKey)
	p.visible(hook("whoami"))
	p.open("/console/b/docs/")
	p.upload(hook("upload-input"), filepath.Join(dir, "poster.pdf"))
	if state := waitUploads(p, "poster.pdf"); state != "done" {
		t.Fatalf("upload of poster.pdf ended %s", state)
	}
	itest.WantObject(t, c, "docs", "poster.pdf", pdf)
	for _, key := range []string{"poster.pdf", "attachment.pdf"} {
		t.Run(key, func(t *testing.T) {
			p := b.on(t)
			openObject(p, "docs", "", key)
			if ct := p.text(hook("detail-content-type")); !strings.Contains(ct, "application/pdf") {
				t.Fatalf("detail-content-type %q, want application/pdf (for poster.pdf: the browser's type for a .pdf file)", ct)
			}
			frame := hook("preview").in("iframe")
			p.visible(frame)
			frameHeaders(t, p.eval(fmt.Sprintf(`document.querySelector(%q).src`, frame.css)))
			pdfShown(t, func() ([]byte, error) {
				ctx, cancel := context.WithTimeout(p.b.ctx, wait)
				defer cancel()
				return chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS(frame.css)))
			})
			p.checkProblems()
		})
	}
}

// pdfShown takes screenshots of the preview until pdfColor covers
// pdfMinShare of one (the viewer draws after loading), failing after
// wait with the last one kept in the artifact directory.
func pdfShown(t *testing.T, shoot func() ([]byte, error)) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for {
		shot, err := shoot()
		if err != nil {
			t.Fatalf("screenshot of the preview: %v", err)
		}
		share, err := colorShare(shot, pdfColor)
		if err != nil {
			t.Fatalf("screenshot of the preview: %v", err)
		}
		if share >= pdfMinShare {
			t.Logf("the PDF preview shows the page: %.0f%% of its pixels are the page's colour", share*100)
			return
		}
		if time.Now().After(deadline) {
			name := filepath.Join(t.ArtifactDir(), "pdf-preview.png")
			_ = os.WriteFile(name, shot, 0o644)
			t.Fatalf("the PDF preview: %.1f%% of its pixels are the page's colour after %s, want %.0f%% (screenshot %s, kept with go test -artifacts)",
				share*100, wait, pdfMinShare*100, name)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// frameHeaders fetches the preview frame's address (a presigned GET on
// the S3 port) and fails on a header that would keep a browser from
// drawing it in a frame of the console: not a PDF, an attachment, framing
// refused (X-Frame-Options, frame-ancestors) or a sandbox (which pdf.js
// cannot run in).
func frameHeaders(t *testing.T, src string) {
	t.Helper()
	resp, err := http.Get(src)
	if err != nil {
		t.Fatalf("GET the preview frame's address: %v", err)
	}
	resp.Body.Close()
	h := resp.Header
	csp := h.Get("Content-Security-Policy")
	if resp.StatusCode != http.StatusOK || h.Get("Content-Type") != "application/pdf" ||
		strings.HasPrefix(strings.ToLower(h.Get("Content-Disposition")), "attachment") ||
		h.Get("X-Frame-Options") != "" || strings.Contains(csp, "frame-ancestors") || strings.Contains(csp, "sandbox") {
		t.Errorf("the preview frame's address answers %d with Content-Type %q, Content-Disposition %q, X-Frame-Options %q, Content-Security-Policy %q: "+
			"want 200, application/pdf, not an attachment, framing allowed, no sandbox",
			resp.StatusCode, h.Get("Content-Type"), h.Get("Content-Disposition"), h.Get("X-Frame-Options"), csp)
	}
}
