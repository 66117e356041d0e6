// Package pgtest starts a throwaway PostgreSQL cluster for tests: initdb
// into a temporary directory, postgres on a free port of 127.0.0.1 with
// fsync off, stopped and removed when the test binary's tests are done.
// PostgreSQL comes from Debian's packages (.ci/run installs them); the
// server runs as an unprivileged user, so a test run as root starts it
// as the user "postgres" (or "nobody").
//
// A package's tests share one cluster (Start is called from TestMain or
// lazily through Shared); each test that needs an empty store takes a
// database of its own with NewDatabase.
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Cluster is a running PostgreSQL server.
type Cluster struct {
	dir  string
	port int
	bin  string              // the directory of postgres
	cred *syscall.Credential // whom postgres runs as; nil: this process's user
	cmd  *exec.Cmd           // nil while halted
	done chan error
	n    atomic.Int64
}

// ErrNoPostgres reports that no PostgreSQL binaries were found.
var ErrNoPostgres = errors.New("pgtest: PostgreSQL is not installed (apt-get install postgresql)")

// BinDir finds the directory of initdb and postgres: $JOG_PG_BINDIR, else
// the newest /usr/lib/postgresql/*/bin, else the directory of initdb on
// $PATH.
func BinDir() (string, error) {
	if d := os.Getenv("JOG_PG_BINDIR"); d != "" {
		return d, nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "postgres")); err == nil {
			return d, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", ErrNoPostgres
}

func version(dir string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return v
}

// Start initialises and starts a cluster. Stop it with Stop.
func Start() (*Cluster, error) {
	bin, err := BinDir()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "jog-pgtest-")
	if err != nil {
		return nil, err
	}
	cred, err := credential()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if cred != nil {
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	data := filepath.Join(dir, "data")
	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", data, "-U", "jog", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("initdb: %v\n%s", err, out)
	}
	port, err := freePort()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	c := &Cluster{dir: dir, port: port, bin: bin, cred: cred}
	if err := c.run(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return c, nil
}

// run starts postgres on the cluster's directory and port and waits until
// it answers.
func (c *Cluster) run() error {
	c.done = make(chan error, 1)
	c.cmd = exec.Command(filepath.Join(c.bin, "postgres"), "-D", filepath.Join(c.dir, "data"), "-p", strconv.Itoa(c.port),
		"-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="+c.dir,
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
		"-c", "max_connections=300", "-c", "shared_buffers=64MB")
	c.cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred, Setpgid: true}
	logf, err := os.OpenFile(filepath.Join(c.dir, "postgres.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	c.cmd.Stdout, c.cmd.Stderr = logf, logf
	if err := c.cmd.Start(); err != nil {
		logf.Close()
		return err
	}
	done := c.done
	go func() { done <- c.cmd.Wait(); logf.Close() }()
	if err := c.waitReady(30 * time.Second); err != nil {
		log, _ := os.ReadFile(filepath.Join(c.dir, "postgres.log"))
		c.halt()
		return fmt.Errorf("%w\n%s", err, log)
	}
	return nil
}

// Halt stops the server (fast shutdown) and keeps its directory: its
// clients see the database gone until Resume starts it again, on the same
// port with the same data.
func (c *Cluster) Halt(t testing.TB) {
	t.Helper()
	c.halt()
}

// Resume starts the server Halt stopped.
func (c *Cluster) Resume(t testing.TB) {
	t.Helper()
	if err := c.run(); err != nil {
		t.Fatalf("pgtest: restart: %v", err)
	}
}

// credential is who postgres runs as: nil (this process's user) unless
// this process is root, which postgres refuses to run as.
func credential() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
	}
	return nil, errors.New("pgtest: running as root and no user postgres or nobody to run PostgreSQL as")
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func (c *Cluster) waitReady(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		conn, err := pgx.Connect(ctx, c.URL("postgres"))
		cancel()
		if err == nil {
			conn.Close(context.Background())
			return nil
		}
		select {
		case err := <-c.done:
			c.done <- err // for halt
			return fmt.Errorf("postgres exited: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("postgres not ready after %s: %v", timeout, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// URL is the connection URL of database db.
func (c *Cluster) URL(db string) string {
	return fmt.Sprintf("postgres://jog@127.0.0.1:%d/%s?sslmode=disable", c.port, db)
}

// Port is the port the cluster listens on.
func (c *Cluster) Port() int { return c.port }

// NewDatabase creates an empty database and returns its URL; it is dropped
// when t ends.
func (c *Cluster) NewDatabase(t testing.TB) string {
	t.Helper()
	name := fmt.Sprintf("t%d_%d", os.Getpid(), c.n.Add(1))
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, c.URL("postgres"))
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("pgtest: create database: %v", err)
	}
	t.Cleanup(func() {
		conn, err := pgx.Connect(ctx, c.URL("postgres"))
		if err != nil {
			return
		}
		defer conn.Close(ctx)
		_, _ = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
	})
	return c.URL(name)
}

// Stop stops the server (fast shutdown) and removes its directory.
func (c *Cluster) Stop() {
	c.halt()
	os.RemoveAll(c.dir)
}

// halt stops the server if it runs (SIGINT, a fast shutdown; SIGKILL
// after 10 s).
func (c *Cluster) halt() {
	if c.cmd != nil && c.cmd.Process != nil {
		_ = c.cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-c.done:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
			<-c.done
		}
	}
	c.cmd = nil
}

var (
	sharedOnce sync.Once
	shared     *Cluster
	sharedErr  error
)

// Shared returns the package's cluster, starting it on first use. A test
// binary that calls it stops the cluster in TestMain with StopShared.
// Without PostgreSQL installed the test is skipped, unless
// $JOG_REQUIRE_POSTGRES or $CI is set: then it fails, so that CI cannot
// pass without having run it.
func Shared(t testing.TB) *Cluster {
	t.Helper()
	sharedOnce.Do(func() { shared, sharedErr = Start() })
	need(t, sharedErr)
	return shared
}

// Own starts a cluster of the test's own, stopped when the test ends
// (after the cleanups the test registers later: servers using it stop
// first). Without PostgreSQL installed the test is skipped, as by Shared.
func Own(t testing.TB) *Cluster {
	t.Helper()
	c, err := Start()
	need(t, err)
	t.Cleanup(c.Stop)
	return c
}

// need ends t when a cluster could not start: skipped without PostgreSQL
// installed unless $JOG_REQUIRE_POSTGRES or $CI is set, failed otherwise.
func need(t testing.TB, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if errors.Is(err, ErrNoPostgres) && os.Getenv("JOG_REQUIRE_POSTGRES") == "" && os.Getenv("CI") == "" {
		t.Skip(err)
	}
	t.Fatal(err)
}

// StopShared stops the shared cluster if one was started.
func StopShared() {
	if shared != nil {
		shared.Stop()
	}
}

// Main is a TestMain for packages that use Shared.
func Main(m *testing.M) int {
	code := m.Run()
	StopShared()
	return code
}
