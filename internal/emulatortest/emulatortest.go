package emulatortest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	database "cloud.google.com/go/spanner/admin/database/apiv1"
	"cloud.google.com/go/spanner/admin/database/apiv1/databasepb"
	instance "cloud.google.com/go/spanner/admin/instance/apiv1"
	"cloud.google.com/go/spanner/admin/instance/apiv1/instancepb"
	"google.golang.org/api/option"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
)

// EmulatorHostEnv names the variable that points at a running emulator.
const EmulatorHostEnv = "SPANNER_EMULATOR_HOST"

// Package is the Debian package that installs emulator_main.
const Package = "google-cloud-cli-spanner-emulator"

// debianPath is where the Debian package installs emulator_main (a
// variable for the package's own tests).
var debianPath = "/usr/lib/google-cloud-sdk/bin/cloud_spanner_emulator/emulator_main"

// The project and instance every database of a test binary lives in.
const (
	Project  = "emulatortest"
	Instance = "emulatortest"
)

// Main runs the tests of a test binary and stops the emulator this binary
// started (if any) before returning the code. Use in TestMain:
// os.Exit(emulatortest.Main(m)); where TestMain wraps goleak, call Stop
// before the leak check instead.
func Main(m *testing.M) int {
	code := m.Run()
	Stop()
	return code
}

// emulator is the state of this test binary's emulator.
var emu struct {
	mu       sync.Mutex
	started  bool   // find/start attempted
	endpoint string // host:port, empty when none
	skip     string // why there is none (skip or fail message)
	proc     *Process

	instanceDone bool
	instanceErr  error
	conn         *grpc.ClientConn
	dbAdmin      *database.DatabaseAdminClient
	instAdmin    *instance.InstanceAdminClient
}

// Stop closes the admin clients and stops the emulator this binary started
// (one named by SPANNER_EMULATOR_HOST is left running). Safe to call more
// than once; a later Endpoint starts a new emulator.
func Stop() {
	emu.mu.Lock()
	defer emu.mu.Unlock()
	if emu.dbAdmin != nil {
		emu.dbAdmin.Close()
		emu.dbAdmin = nil
	}
	if emu.instAdmin != nil {
		emu.instAdmin.Close()
		emu.instAdmin = nil
	}
	if emu.conn != nil {
		emu.conn.Close()
		emu.conn = nil
	}
	if emu.proc != nil {
		emu.proc.Stop()
		emu.proc = nil
	}
	emu.started, emu.endpoint, emu.skip = false, "", ""
	emu.instanceDone, emu.instanceErr = false, nil
}

// Endpoint returns host:port of the emulator for this test binary:
// SPANNER_EMULATOR_HOST when set, else an emulator_main it finds and starts
// once per binary. With none found it skips t (fails it when CI is set).
func Endpoint(t testing.TB) string {
	t.Helper()
	emu.mu.Lock()
	defer emu.mu.Unlock()
	ep, err := endpointLocked()
	if err != nil {
		t.Fatalf("emulatortest: %v", err)
	}
	if ep == "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("emulatortest: %s (CI is set: the emulator tests must run)", emu.skip)
		}
		t.Skipf("emulatortest: %s", emu.skip)
	}
	return ep
}

// endpointLocked finds or starts the emulator. An empty endpoint with a nil
// error means none is installed (emu.skip says so).
func endpointLocked() (string, error) {
	if emu.started {
		if emu.endpoint == "" && emu.skip == "" {
			return "", errors.New("the emulator failed to start earlier in this test binary")
		}
		return emu.endpoint, nil
	}
	emu.started = true
	if host := os.Getenv(EmulatorHostEnv); host != "" {
		emu.endpoint = host
		return host, nil
	}
	p, err := Start()
	if errors.Is(err, ErrNotInstalled) {
		emu.skip = err.Error()
		return "", nil
	}
	if err != nil {
		return "", err
	}
	emu.proc, emu.endpoint = p, p.Addr
	return p.Addr, nil
}

// ErrNotInstalled is Start's error when no emulator_main can be found.
var ErrNotInstalled = errors.New("no Cloud Spanner emulator")

// Process is an emulator_main started by Start.
type Process struct {
	Addr   string // host:port of its gRPC API
	cmd    *exec.Cmd
	exited chan struct{}
	logDir string
}

// Start finds emulator_main (PATH, the gcloud SDK root, the Debian package's
// path) and starts it on a free loopback port, for a program that needs an
// emulator of its own (the test helpers above use it too). It ignores
// SPANNER_EMULATOR_HOST. On Linux the emulator dies with the program.
// Without emulator_main the error is ErrNotInstalled (errors.Is).
func Start() (*Process, error) {
	bin := findEmulator()
	if bin == "" {
		return nil, fmt.Errorf("%w: emulator_main was found neither on PATH, nor under the gcloud SDK root, nor at %s; "+
			"install the %s package or set %s to a running emulator", ErrNotInstalled, debianPath, Package, EmulatorHostEnv)
	}
	var err error
	for range 3 { // a free port can be taken between choosing and binding it
		var p *Process
		if p, err = start(bin); err == nil {
			return p, nil
		}
	}
	return nil, err
}

// Stop kills the emulator and removes its log. Safe to call more than once.
func (p *Process) Stop() {
	if p.cmd != nil {
		_ = p.cmd.Process.Kill()
		<-p.exited
		p.cmd = nil
	}
	if p.logDir != "" {
		os.RemoveAll(p.logDir)
		p.logDir = ""
	}
}

// findEmulator looks for emulator_main: PATH, the gcloud SDK root, the
// Debian package's path.
func findEmulator() string {
	if p, err := exec.LookPath("emulator_main"); err == nil {
		return p
	}
	if gcloud, err := exec.LookPath("gcloud"); err == nil {
		// gcloud lives in <sdk root>/bin: that answers without running
		// `gcloud info`, which takes seconds.
		if real, err := filepath.EvalSymlinks(gcloud); err == nil {
			p := filepath.Join(filepath.Dir(real), "cloud_spanner_emulator", "emulator_main")
			if isExecutable(p) {
				return p
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		out, err := exec.CommandContext(ctx, gcloud, "info", "--format=value(installation.sdk_root)").Output()
		cancel()
		if root := strings.TrimSpace(string(out)); err == nil && root != "" {
			p := filepath.Join(root, "bin", "cloud_spanner_emulator", "emulator_main")
			if isExecutable(p) {
				return p
			}
		}
	}
	if isExecutable(debianPath) {
		return debianPath
	}
	return ""
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

// start runs bin on a free loopback port and waits until it answers gRPC.
func start(bin string) (*Process, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	logDir, err := os.MkdirTemp("", "emulatortest-")
	if err != nil {
		return nil, err
	}
	logPath := filepath.Join(logDir, fmt.Sprintf("emulator-%d.log", port))
	logFile, err := os.Create(logPath)
	if err != nil {
		os.RemoveAll(logDir)
		return nil, err
	}
	defer logFile.Close() // the child holds its own descriptor
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	cmd := exec.Command(bin, "--host_port", addr)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		os.RemoveAll(logDir)
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()

	failed := func(why string) error {
		_ = cmd.Process.Kill()
		<-exited
		out, _ := os.ReadFile(logPath)
		os.RemoveAll(logDir)
		return fmt.Errorf("emulator %s on %s %s; its output:\n%s", bin, addr, why, out)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case <-exited:
			return nil, failed("exited")
		default:
		}
		if ready(addr) {
			break
		}
		if time.Now().After(deadline) {
			return nil, failed("did not accept gRPC within 60s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	return &Process{Addr: addr, cmd: cmd, exited: exited, logDir: logDir}, nil
}

// ready reports whether the emulator at addr answers an instance admin call.
func ready(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return false
	}
	c.Close()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return false
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, err = instancepb.NewInstanceAdminClient(conn).ListInstanceConfigs(ctx,
		&instancepb.ListInstanceConfigsRequest{Parent: "projects/" + Project, PageSize: 1})
	return err == nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Dialect is a database's SQL dialect.
type Dialect int

const (
	GoogleSQL Dialect = iota
	PostgreSQL
)

func (d Dialect) String() string {
	if d == PostgreSQL {
		return "POSTGRESQL"
	}
	return "GOOGLE_STANDARD_SQL"
}

// Option configures NewDatabase.
type Option func(*options)

type options struct {
	dialect Dialect
	ddl     []string
}

// WithDialect creates the database in dialect d (default GoogleSQL).
func WithDialect(d Dialect) Option { return func(o *options) { o.dialect = d } }

// WithDDL runs stmts on the new database before NewDatabase returns.
func WithDDL(stmts ...string) Option {
	return func(o *options) { o.ddl = append(o.ddl, stmts...) }
}

// Database is a fresh database on the emulator.
type Database struct {
	Endpoint, Project, Instance, ID string
	Dialect                         Dialect
}

// Path returns projects/P/instances/I/databases/D.
func (d *Database) Path() string {
	return "projects/" + d.Project + "/instances/" + d.Instance + "/databases/" + d.ID
}

// DSN returns a spannerfast DSN for the database in plain text, with extra
// properties appended (each "key=value").
func (d *Database) DSN(props ...string) string {
	var b strings.Builder
	b.WriteString(d.Endpoint + "/" + d.Path() + ";usePlainText=true")
	for _, p := range props {
		b.WriteString(";" + p)
	}
	return b.String()
}

var dbSeq atomic.Int64

// newID returns a database id unique across test binaries sharing an
// emulator: a letter, a per-binary sequence number and random hex, at most
// 30 characters as Spanner requires.
func newID() string {
	var r [6]byte
	_, _ = rand.Read(r[:])
	return fmt.Sprintf("t%d-%s", dbSeq.Add(1), hex.EncodeToString(r[:]))
}

// NewDatabase creates a fresh, uniquely named database (the instance is
// created once per test binary) and drops it when t ends.
func NewDatabase(t testing.TB, opts ...Option) *Database {
	t.Helper()
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	ep := Endpoint(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dbAdmin, err := setUp(ctx)
	if err != nil {
		t.Fatalf("emulatortest: %v", err)
	}
	d := &Database{Endpoint: ep, Project: Project, Instance: Instance, ID: newID(), Dialect: o.dialect}
	req := &databasepb.CreateDatabaseRequest{
		Parent:          "projects/" + Project + "/instances/" + Instance,
		CreateStatement: "CREATE DATABASE `" + d.ID + "`",
	}
	if o.dialect == PostgreSQL {
		req.CreateStatement = `CREATE DATABASE "` + d.ID + `"`
		req.DatabaseDialect = databasepb.DatabaseDialect_POSTGRESQL
	} else {
		req.ExtraStatements = o.ddl
	}
	op, err := dbAdmin.CreateDatabase(ctx, req)
	if err == nil {
		_, err = op.Wait(ctx)
	}
	if err != nil {
		t.Fatalf("emulatortest: create database %s: %v", d.Path(), err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := dbAdmin.DropDatabase(ctx, &databasepb.DropDatabaseRequest{Database: d.Path()}); err != nil &&
			status.Code(err) != codes.NotFound {
			t.Errorf("emulatortest: drop database %s: %v", d.Path(), err)
		}
	})
	if o.dialect == PostgreSQL && len(o.ddl) > 0 {
		// A PostgreSQL database takes no extra statements at creation.
		op, err := dbAdmin.UpdateDatabaseDdl(ctx, &databasepb.UpdateDatabaseDdlRequest{Database: d.Path(), Statements: o.ddl})
		if err == nil {
			err = op.Wait(ctx)
		}
		if err != nil {
			t.Fatalf("emulatortest: DDL on %s: %v", d.Path(), err)
		}
	}
	return d
}

// setUp connects the admin clients and creates the instance, once per test
// binary (AlreadyExists is fine: other binaries may share the emulator).
func setUp(ctx context.Context) (*database.DatabaseAdminClient, error) {
	emu.mu.Lock()
	defer emu.mu.Unlock()
	if emu.instanceDone {
		return emu.dbAdmin, emu.instanceErr
	}
	err := func() error {
		conn, err := grpc.NewClient(emu.endpoint, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			return err
		}
		emu.conn = conn
		opts := []option.ClientOption{option.WithGRPCConn(conn)}
		if emu.instAdmin, err = instance.NewInstanceAdminClient(ctx, opts...); err != nil {
			return err
		}
		if emu.dbAdmin, err = database.NewDatabaseAdminClient(ctx, opts...); err != nil {
			return err
		}
		op, err := emu.instAdmin.CreateInstance(ctx, &instancepb.CreateInstanceRequest{
			Parent:     "projects/" + Project,
			InstanceId: Instance,
			Instance: &instancepb.Instance{
				Config:      "projects/" + Project + "/instanceConfigs/emulator-config",
				DisplayName: Instance,
				NodeCount:   1,
			},
		})
		if err == nil {
			_, err = op.Wait(ctx)
		}
		if err != nil && status.Code(err) != codes.AlreadyExists {
			return fmt.Errorf("create instance: %w", err)
		}
		return nil
	}()
	emu.instanceDone, emu.instanceErr = true, err
	return emu.dbAdmin, err
}

// OnEmbeddedAndEmulator runs run twice as subtests of t: "embedded" with
// SPANNER_EMULATOR_HOST cleared (code that picks its target by that
// variable, as the examples do, starts the embedded server) and "emulator"
// with it set to Endpoint (skipped, or failed under CI, without one).
func OnEmbeddedAndEmulator(t *testing.T, run func(t *testing.T)) {
	t.Helper()
	t.Run("embedded", func(t *testing.T) {
		t.Setenv(EmulatorHostEnv, "")
		run(t)
	})
	t.Run("emulator", func(t *testing.T) {
		t.Setenv(EmulatorHostEnv, Endpoint(t))
		run(t)
	})
}
