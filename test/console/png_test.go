package console

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"sort"
)

// smallPNG re-encodes a screenshot as a paletted PNG of at most 256
// colours: the page's most used colours, every other pixel mapped to the
// nearest of them. A console page is flat colours and anti-aliased text,
// so the result looks the same at a fraction of the size.
func smallPNG(shot []byte) ([]byte, error) {
	src, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		return nil, err
	}
	r := src.Bounds()
	counts := map[color.RGBA]int{}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			counts[color.RGBAModel.Convert(src.At(x, y)).(color.RGBA)]++
		}
	}
	colors := make([]color.RGBA, 0, len(counts))
	for c := range counts {
		colors = append(colors, c)
	}
	sort.Slice(colors, func(i, j int) bool {
		if counts[colors[i]] != counts[colors[j]] {
			return counts[colors[i]] > counts[colors[j]]
		}
		a, b := colors[i], colors[j]
		return uint32(a.R)<<24|uint32(a.G)<<16|uint32(a.B)<<8|uint32(a.A) < uint32(b.R)<<24|uint32(b.G)<<16|uint32(b.B)<<8|uint32(b.A)
	})
	if len(colors) > 256 {
		colors = colors[:256]
	}
	pal := make(color.Palette, len(colors))
	for i, c := range colors {
		pal[i] = c
	}
	dst := image.NewPaletted(r, pal)
	index := map[color.RGBA]uint8{}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			c := color.RGBAModel.Convert(src.At(x, y)).(color.RGBA)
			i, ok := index[c]
			if !ok {
				i = uint8(pal.Index(c))
				index[c] = i
			}
			dst.SetColorIndex(x, y, i)
		}
	}
	var out bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&out, dst); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}
