package emulatortest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/spanner/admin/database/apiv1/databasepb"
)

func TestMain(m *testing.M) {
	switch os.Getenv("EMULATORTEST_CHILD") {
	case "":
	case "none":
		noEmulatorChild()
		return
	default:
		child()
		return
	}
	os.Exit(Main(m))
}

// child starts an emulator, prints its endpoint and blocks until killed.
func child() {
	emu.mu.Lock()
	ep, err := endpointLocked()
	emu.mu.Unlock()
	if err != nil || ep == "" {
		fmt.Println("ERROR", err, emu.skip)
		os.Exit(1)
	}
	fmt.Println("ENDPOINT", ep)
	select {}
}

// outcomeTB records how Endpoint ends a test; Skipf and Fatalf stop the
// calling goroutine as the real ones do.
type outcomeTB struct {
	testing.TB
	outcome string
}

func (o *outcomeTB) Helper() {}
func (o *outcomeTB) Skipf(format string, args ...any) {
	o.outcome = "SKIP " + fmt.Sprintf(format, args...)
	runtime.Goexit()
}
func (o *outcomeTB) Fatalf(format string, args ...any) {
	o.outcome = "FAIL " + fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// noEmulatorChild calls Endpoint on a machine without an emulator (no
// PATH, no SDK, no Debian package) and prints what it did to the test.
func noEmulatorChild() {
	debianPath = "/nonexistent/emulator_main"
	tb := &outcomeTB{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Endpoint(tb)
		tb.outcome = "RAN"
	}()
	<-done
	_, err := Start()
	fmt.Println(tb.outcome, "| Start:", errors.Is(err, ErrNotInstalled), err)
}

// TestNoEmulator: without an emulator, Endpoint skips the test with a
// message naming the package to install, and fails it when CI is set.
func TestNoEmulator(t *testing.T) {
	for _, ci := range []string{"", "1"} {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "EMULATORTEST_CHILD=none", "PATH=", EmulatorHostEnv+"=", "CI="+ci)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("CI=%q: %v", ci, err)
		}
		got := string(out)
		want := "SKIP "
		if ci != "" {
			want = "FAIL "
		}
		if !strings.HasPrefix(got, want) || !strings.Contains(got, Package) {
			t.Errorf("CI=%q: %q, want %q... naming %s", ci, got, want, Package)
		}
		// Start, for programs, says the same with an error that is
		// ErrNotInstalled.
		if _, start, _ := strings.Cut(got, "| Start: "); !strings.HasPrefix(start, "true ") || !strings.Contains(start, Package) {
			t.Errorf("CI=%q: Start without an emulator: %q, want ErrNotInstalled naming %s", ci, start, Package)
		}
	}
}

func TestNewDatabaseDialects(t *testing.T) {
	ctx := context.Background()
	g := NewDatabase(t, WithDDL("CREATE TABLE T (K INT64 NOT NULL, V STRING(MAX)) PRIMARY KEY (K)"))
	p := NewDatabase(t, WithDialect(PostgreSQL), WithDDL("CREATE TABLE t (k bigint primary key, v varchar)"))
	if g.ID == p.ID || len(g.ID) > 30 || len(p.ID) > 30 {
		t.Fatalf("ids %q %q: want distinct, at most 30 characters", g.ID, p.ID)
	}
	// The emulator leaves GetDatabase's dialect unset; each DDL above is
	// valid in its own dialect only, so its acceptance shows the dialect.
	for _, c := range []struct {
		db    *Database
		table string
	}{{g, "CREATE TABLE T"}, {p, "CREATE TABLE t"}} {
		ddl, err := emu.dbAdmin.GetDatabaseDdl(ctx, &databasepb.GetDatabaseDdlRequest{Database: c.db.Path()})
		if err != nil {
			t.Fatal(err)
		}
		if len(ddl.Statements) != 1 || !strings.HasPrefix(ddl.Statements[0], c.table) {
			t.Errorf("%s: DDL %q, want the table", c.db.ID, ddl.Statements)
		}
	}
	if want := g.Endpoint + "/projects/emulatortest/instances/emulatortest/databases/" + g.ID + ";usePlainText=true;a=b"; g.DSN("a=b") != want {
		t.Errorf("DSN %q, want %q", g.DSN("a=b"), want)
	}
}

func TestDropAtCleanup(t *testing.T) {
	var path string
	t.Run("db", func(t *testing.T) { path = NewDatabase(t).Path() })
	_, err := emu.dbAdmin.GetDatabase(context.Background(), &databasepb.GetDatabaseRequest{Name: path})
	if err == nil {
		t.Fatalf("%s still exists after its test ended", path)
	}
}

// TestEmulatorDiesWithBinary kills a test binary that started an emulator
// and checks that the emulator went with it.
func TestEmulatorDiesWithBinary(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("parent-death signal is Linux only")
	}
	if os.Getenv(EmulatorHostEnv) != "" {
		t.Skip(EmulatorHostEnv + " is set: this binary starts no emulator")
	}
	Endpoint(t) // skips when none is installed
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "EMULATORTEST_CHILD=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "ENDPOINT ") {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("child: %q %v", line, err)
	}
	addr := strings.TrimSpace(strings.TrimPrefix(line, "ENDPOINT "))
	if !ready(addr) {
		t.Fatalf("child's emulator at %s is not serving", addr)
	}
	cmd.Process.Kill()
	cmd.Wait()
	for deadline := time.Now().Add(30 * time.Second); ; {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			return // gone
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatalf("the emulator at %s outlived the test binary that started it", addr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestFindEmulatorOrder: emulator_main on PATH wins; else the one next to
// gcloud in its SDK root (gcloud found through a symlink, as the Debian
// package installs it).
func TestFindEmulatorOrder(t *testing.T) {
	dir := t.TempDir()
	write := func(p string) string {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	sdk := filepath.Join(dir, "sdk")
	write(filepath.Join(sdk, "bin", "gcloud"))
	inSDK := write(filepath.Join(sdk, "bin", "cloud_spanner_emulator", "emulator_main"))
	bin := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(sdk, "bin", "gcloud"), filepath.Join(bin, "gcloud")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	if got := findEmulator(); got != inSDK {
		t.Fatalf("with gcloud on PATH: %q, want %q", got, inSDK)
	}
	onPath := write(filepath.Join(dir, "path", "emulator_main"))
	t.Setenv("PATH", filepath.Dir(onPath)+string(os.PathListSeparator)+bin)
	if got := findEmulator(); got != onPath {
		t.Fatalf("with emulator_main on PATH: %q, want %q", got, onPath)
	}
}

// TestStartProcess: Start, for programs, runs an emulator of its own (even
// with SPANNER_EMULATOR_HOST set) that answers gRPC until Stop, and Stop
// can be called twice. Without emulator_main it skips, also under CI when
// SPANNER_EMULATOR_HOST names the emulator the tests use.
func TestStartProcess(t *testing.T) {
	p, err := Start()
	if errors.Is(err, ErrNotInstalled) && (os.Getenv("CI") == "" || os.Getenv(EmulatorHostEnv) != "") {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if !ready(p.Addr) {
		p.Stop()
		t.Fatalf("the emulator at %s is not serving", p.Addr)
	}
	p.Stop()
	p.Stop()
	if c, err := net.DialTimeout("tcp", p.Addr, time.Second); err == nil {
		c.Close()
		t.Fatalf("the emulator at %s still accepts connections after Stop", p.Addr)
	}
}
