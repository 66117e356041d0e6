package bench

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

func TestKeyShapes(t *testing.T) {
	const warpChars = `[a-zA-Z0-9()]`
	cases := []struct {
		shape string
		re    *regexp.Regexp
	}{
		{KeysSeq, regexp.MustCompile(`^run/w3/[0-9]+$`)},
		{KeysWarp, regexp.MustCompile(`^run/` + warpChars + `{8}/` + warpChars + `{16}\.rnd$`)},
		{KeysWarpFresh, regexp.MustCompile(`^run/` + warpChars + `{8}/` + warpChars + `{16}\.rnd$`)},
		{KeysDeep, regexp.MustCompile(`^run/host-3/2026/11/24/vol-[0-9]+/chunk-[0-9]+$`)},
		{KeysFlat, regexp.MustCompile(`^run/[a-zA-Z0-9]{20}$`)},
	}
	for _, c := range cases {
		t.Run(c.shape, func(t *testing.T) {
			env := &Env{Cfg: DefaultConfig(), Prefix: "run/"}
			env.Cfg.Keys = c.shape
			w := newWorker(t.Context(), 3, env, 42)
			other := newWorker(t.Context(), 4, env, 42)
			seen := map[string]bool{}
			dirs := map[string]bool{}
			chars := map[byte]bool{}
			const n = 2000
			for range n {
				k := w.NewKey()
				if !c.re.MatchString(k) {
					t.Fatalf("key %q does not match %s", k, c.re)
				}
				if seen[k] {
					t.Fatalf("key %q twice", k)
				}
				seen[k] = true
				dirs[k[:strings.LastIndexByte(k, '/')]] = true
				base := k[strings.LastIndexByte(k, '/')+1:]
				for i := range len(base) {
					chars[base[i]] = true
				}
			}
			switch c.shape {
			case KeysWarp:
				// One random directory per worker, as warp's per-worker
				// generator.Source; random names drawn from all 64 characters.
				if len(dirs) != 1 {
					t.Errorf("%d directories for one worker, want 1", len(dirs))
				}
				dir := func(k string) string { return k[:strings.LastIndexByte(k, '/')] }
				if ko := other.NewKey(); dirs[dir(ko)] {
					t.Errorf("workers 3 and 4 share a directory: %q", ko)
				}
				if len(chars) < 60 {
					t.Errorf("names use %d characters, want (nearly) all 64 of warp's", len(chars))
				}
			case KeysWarpFresh:
				if len(dirs) != n {
					t.Errorf("%d directories for %d objects, want one each", len(dirs), n)
				}
			case KeysDeep:
				if want := n/deepChunksPerVolume + 1; len(dirs) != want {
					t.Errorf("%d directories, want %d (256 chunks per volume)", len(dirs), want)
				}
			case KeysFlat:
				if len(chars) < 58 {
					t.Errorf("names use %d characters, want (nearly) all 62", len(chars))
				}
			}
		})
	}
}

// TestPreparedKeyShapes checks that prepared objects take the run's shape
// under obj/ and that their names are a function of the index.
func TestPreparedKeyShapes(t *testing.T) {
	for _, shape := range KeyShapes {
		env := &Env{Cfg: DefaultConfig(), Prefix: "run/"}
		env.Cfg.Keys = shape
		seen := map[string]bool{}
		for i := range 500 {
			k := env.key(i)
			if !strings.HasPrefix(k, "run/obj/") || k != env.key(i) || seen[k] {
				t.Fatalf("%s: key %d is %q (seen %v, again %q)", shape, i, k, seen[k], env.key(i))
			}
			seen[k] = true
		}
	}
	// Two runs of the same shape draw different random names.
	w1 := newWorker(t.Context(), 0, &Env{Cfg: Config{Keys: KeysFlat}, Prefix: "p/"}, rand.Uint64())
	w2 := newWorker(t.Context(), 0, &Env{Cfg: Config{Keys: KeysFlat}, Prefix: "p/"}, rand.Uint64())
	if a, b := w1.NewKey(), w2.NewKey(); a == b {
		t.Errorf("two seeds named an object %q alike", a)
	}
}
