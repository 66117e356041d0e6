package config

import (
	"sync"
	"testing"
)

// TestCredentialsCreatedOnce: gateways starting together on a shared data
// dir agree on one generated pair; exactly one of them generated it.
func TestCredentialsCreatedOnce(t *testing.T) {
	dir := t.TempDir()
	const n = 8
	var wg sync.WaitGroup
	got := make([]Credentials, n)
	gen := make([]bool, n)
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() { defer wg.Done(); got[i], gen[i], errs[i] = LoadOrCreateCredentials(dir) }()
	}
	wg.Wait()
	generated := 0
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("process %d: %v", i, errs[i])
		}
		if got[i] != got[0] {
			t.Errorf("process %d got %+v, process 0 %+v", i, got[i], got[0])
		}
		if gen[i] {
			generated++
		}
	}
	if generated != 1 {
		t.Errorf("%d processes generated the pair, want 1", generated)
	}
}

// TestForgetCredentials: a failed start forgets the pair it generated,
// and only that pair: a file holding another one stays.
func TestForgetCredentials(t *testing.T) {
	dir := t.TempDir()
	c, gen, err := LoadOrCreateCredentials(dir)
	if err != nil || !gen {
		t.Fatalf("LoadOrCreateCredentials: generated %v, %v", gen, err)
	}
	if err := ForgetCredentials(dir, Credentials{AccessKey: c.AccessKey, SecretKey: "another"}); err != nil {
		t.Fatal(err)
	}
	if again, gen, err := LoadOrCreateCredentials(dir); err != nil || gen || again != c {
		t.Fatalf("after forgetting another pair: %+v, generated %v, %v; want the pair kept", again, gen, err)
	}
	if err := ForgetCredentials(dir, c); err != nil {
		t.Fatal(err)
	}
	if again, gen, err := LoadOrCreateCredentials(dir); err != nil || !gen || again == c {
		t.Fatalf("after forgetting the pair: %+v, generated %v, %v; want a new pair generated", again, gen, err)
	}
}
