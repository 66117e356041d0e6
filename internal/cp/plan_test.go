package cp

import (
	"testing"
)

func TestPartSize(t *testing.T) {
	for _, tc := range []struct {
		size, want, got int64
	}{
		{0, 0, DefaultPartSize},
		{1 << 30, 0, DefaultPartSize},
		{1 << 30, 1 << 20, MinPartSize},                  // raised to S3's minimum
		{1 << 30, 32 << 20, 32 << 20},                    // as asked
		{200 << 30, 0, 21 << 20},                         // 200 GiB / 10,000 = 20.48 MiB → 21 MiB
		{MaxParts * DefaultPartSize, 0, DefaultPartSize}, // exactly 10,000 parts
		{MaxParts*DefaultPartSize + 1, 0, DefaultPartSize + 1<<20},
	} {
		got, err := PartSize(tc.size, tc.want)
		if err != nil || got != tc.got {
			t.Errorf("PartSize(%d, %d) = %d, %v; want %d", tc.size, tc.want, got, err, tc.got)
		}
		if tc.size > 0 && (tc.size+got-1)/got > MaxParts {
			t.Errorf("PartSize(%d, %d) = %d makes more than %d parts", tc.size, tc.want, got, MaxParts)
		}
	}
	if _, err := PartSize(MaxParts*int64(MaxPartSize)+1, 0); err == nil {
		t.Error("PartSize of an object over 5 GiB × 10,000: no error")
	}
}

func TestSections(t *testing.T) {
	secs := sections(12, 5)
	want := []section{{1, 0, 5}, {2, 5, 5}, {3, 10, 2}}
	if len(secs) != len(want) {
		t.Fatalf("sections(12, 5) = %v, want %v", secs, want)
	}
	for i := range want {
		if secs[i] != want[i] {
			t.Fatalf("sections(12, 5) = %v, want %v", secs, want)
		}
	}
	if s := sections(10, 5); len(s) != 2 || s[1] != (section{2, 5, 5}) {
		t.Fatalf("sections(10, 5) = %v: want two whole parts", s)
	}
	if s := sections(0, 5); len(s) != 1 || s[0] != (section{Number: 1}) {
		t.Fatalf("sections(0, 5) = %v: want one empty part", s)
	}
}

func TestResumePartSize(t *testing.T) {
	const mib = 1 << 20
	for _, tc := range []struct {
		name  string
		parts []Part
		want  int64
	}{
		{"none", nil, 16 * mib},
		{"only one part: may be the last", []Part{{Number: 1, Size: 8 * mib}}, 16 * mib},
		{"the first whole part", []Part{{Number: 3, Size: 2 * mib}, {Number: 2, Size: 8 * mib}}, 8 * mib},
		{"below S3's minimum", []Part{{Number: 1, Size: mib}, {Number: 2, Size: mib}}, 16 * mib},
	} {
		if got := resumePartSize(tc.parts, 16*mib); got != tc.want {
			t.Errorf("%s: resumePartSize = %d, want %d", tc.name, got, tc.want)
		}
	}
}

func TestReusable(t *testing.T) {
	existing := map[int]Part{
		1: {Number: 1, ETag: `"e1"`, Size: 5, CRC: "AAAAAAAAAAE="},
		2: {Number: 2, ETag: `"e2"`, Size: 5, CRC: "AAAAAAAAAAI="},
		3: {Number: 3, ETag: `"e3"`, Size: 2}, // no checksum: cannot be checked
	}
	for _, tc := range []struct {
		name string
		s    section
		crc  string
		want string
	}{
		{"same size and checksum", section{1, 0, 5}, "AAAAAAAAAAE=", `"e1"`},
		{"the file changed", section{2, 5, 5}, "AAAAAAAAAAE=", ""},
		{"another size", section{2, 5, 4}, "AAAAAAAAAAI=", ""},
		{"no checksum there", section{3, 10, 2}, "AAAAAAAAAAM=", ""},
		{"not uploaded", section{4, 12, 1}, "AAAAAAAAAAQ=", ""},
	} {
		if got := reusable(existing, tc.s, tc.crc); got != tc.want {
			t.Errorf("%s: reusable = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestParseLocation(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Location
		bad  bool
	}{
		{in: "s3://b/k/x", want: Location{Bucket: "b", Key: "k/x"}},
		{in: "s3://b", want: Location{Bucket: "b"}},
		{in: "s3://b/", want: Location{Bucket: "b"}},
		{in: "s3://b/dir/", want: Location{Bucket: "b", Key: "dir/"}},
		{in: "./local", want: Location{Path: "./local"}},
		{in: "s3:///k", bad: true},
		{in: "", bad: true},
	} {
		got, err := ParseLocation(tc.in)
		if (err != nil) != tc.bad || got != tc.want {
			t.Errorf("ParseLocation(%q) = %+v, %v; want %+v (error: %v)", tc.in, got, err, tc.want, tc.bad)
		}
	}
}

func TestLocalPath(t *testing.T) {
	for _, rel := range []string{"a/b", "a/./b", "x"} {
		if _, err := localPath("/dst", rel); err != nil {
			t.Errorf("localPath(%q): %v", rel, err)
		}
	}
	for _, rel := range []string{"../x", "a/../../x", "/etc/passwd", ".."} {
		if p, err := localPath("/dst", rel); err == nil {
			t.Errorf("localPath(%q) = %q: want it refused", rel, p)
		}
	}
}
