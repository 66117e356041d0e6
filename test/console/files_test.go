package console

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jogstore/jog/test/integration/itest"
)

// picture is a w×h PNG of a few flat colours (sky, sun, sea, sand), for
// previews.
func picture(w, h int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	sunX, sunY, r := w*7/10, h*3/10, h/8
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := color.RGBA{150, 200, 240, 255} // sky
			switch {
			case (x-sunX)*(x-sunX)+(y-sunY)*(y-sunY) <= r*r:
				c = color.RGBA{250, 190, 60, 255}
			case y >= h*3/4:
				c = color.RGBA{235, 215, 170, 255}
			case y >= h*11/20:
				c = color.RGBA{40, 110, 180, 255}
			}
			img.Set(x, y, c)
		}
	}
	var b bytes.Buffer
	_ = png.Encode(&b, img)
	return b.Bytes()
}

// readme is the text file the preview shows.
const readme = "Hello from the console's end-to-end test.\nThis text is previewed in the browser.\n"

// album is the folder of 20 files the test uploads: a picture, a text
// file and 18 small files, by name.
func album() map[string][]byte {
	files := map[string][]byte{"cat.png": picture(64, 48), "readme.txt": []byte(readme)}
	for i := 1; i <= 18; i++ {
		files[fmt.Sprintf("file-%02d.txt", i)] = []byte(strings.Repeat(fmt.Sprintf("line %d of file %d\n", i, i), i))
	}
	return files
}

// writeFiles writes files into a new directory dir/name and returns its
// path.
func writeFiles(t *testing.T, dir, name string, files map[string][]byte) string {
	t.Helper()
	d := filepath.Join(dir, name)
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	for n, b := range files {
		if err := os.WriteFile(filepath.Join(d, n), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

// bigFile writes n pseudo-random bytes to dir/name and returns the path
// and the bytes.
func bigFile(t *testing.T, dir, name string, n int) (string, []byte) {
	t.Helper()
	b := itest.RandBytes(26, n)
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p, b
}
