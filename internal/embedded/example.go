package embedded

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"time"

	database "cloud.google.com/go/spanner/admin/database/apiv1"
	"cloud.google.com/go/spanner/admin/database/apiv1/databasepb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/internal/emulatortest"
	"github.com/spannerfast/spannerfast/spannerfasttest"
)

// EmulatorHostEnv names the variable that points the examples at a Cloud
// Spanner emulator.
const EmulatorHostEnv = "SPANNER_EMULATOR_HOST"

// The project and instance of the databases examples create on the
// emulator.
const (
	ExampleProject  = "examples"
	ExampleInstance = "examples"
)

// Example is what an example runs on: the emulator named by
// SPANNER_EMULATOR_HOST or, without it, the embedded server.
type Example struct {
	// Emulator is true on the emulator.
	Emulator bool
	target   Target
	base     string // DSN without extra properties
	srv      *spannerfasttest.Server
	emu      *emulatortest.Process // the emulator this example started
}

// ForExample picks an example's target, the one rule every example uses.
// With SPANNER_EMULATOR_HOST set it names a new database on that emulator
// (id: name and a random suffix, in instance "examples"), which
// autoConfigEmulator=true in the DSN creates, instance included, on the
// first statement; Close drops it, so the example can run again. Otherwise
// it starts the embedded server (spannerfasttest) in-process; Close stops it.
func ForExample(name string) (*Example, error) {
	if host := os.Getenv(EmulatorHostEnv); host != "" {
		path := "projects/" + ExampleProject + "/instances/" + ExampleInstance + "/databases/" + exampleDatabaseID(name)
		return &Example{
			Emulator: true,
			target:   Target{Endpoint: host, PlainText: true, Database: path},
			base:     host + "/" + path + ";autoConfigEmulator=true",
		}, nil
	}
	srv, err := spannerfasttest.Start()
	if err != nil {
		return nil, fmt.Errorf("embedded: %w", err)
	}
	return &Example{
		target: Target{Endpoint: srv.Addr(), PlainText: true, Database: srv.DatabasePath()},
		base:   srv.DSN(),
		srv:    srv,
	}, nil
}

// ForPostgreSQLExample picks the target of an example that needs a
// PostgreSQL-dialect database, which the embedded server (spannertest,
// GoogleSQL only) cannot serve: a new database on the emulator named by
// SPANNER_EMULATOR_HOST or, without it, on an emulator_main of its own
// (found as the emulator tests find it, started on a free loopback port and
// stopped by Close). autoConfigEmulator=true;dialect=POSTGRESQL in the DSN
// creates the database on the first statement. With neither, the error
// says what to install (errors.Is emulatortest.ErrNotInstalled).
func ForPostgreSQLExample(name string) (*Example, error) {
	return onEmulator(name, "a PostgreSQL-dialect database, which only the Cloud Spanner emulator "+
		"(or Spanner) serves, not the embedded server", ";dialect=POSTGRESQL")
}

// ForEmulatorExample picks the target of a GoogleSQL example that needs
// what the embedded server cannot do (need says what, for the error when
// no emulator is found), as ForPostgreSQLExample does: the emulator named
// by SPANNER_EMULATOR_HOST or, without it, an emulator_main of its own.
func ForEmulatorExample(name, need string) (*Example, error) {
	return onEmulator(name, need, "")
}

func onEmulator(name, need, props string) (*Example, error) {
	host := os.Getenv(EmulatorHostEnv)
	var proc *emulatortest.Process
	if host == "" {
		p, err := emulatortest.Start()
		if err != nil {
			return nil, fmt.Errorf("embedded: %s needs %s: %w", name, need, err)
		}
		proc, host = p, p.Addr
	}
	path := "projects/" + ExampleProject + "/instances/" + ExampleInstance + "/databases/" + exampleDatabaseID(name)
	return &Example{
		Emulator: true,
		target:   Target{Endpoint: host, PlainText: true, Database: path},
		base:     host + "/" + path + ";autoConfigEmulator=true" + props,
		emu:      proc,
	}, nil
}

// exampleDatabaseID is name with a random suffix: a database of its own
// on a shared emulator.
func exampleDatabaseID(name string) string {
	var r [4]byte
	_, _ = rand.Read(r[:])
	return fmt.Sprintf("%.20s-%s", strings.ToLower(name), hex.EncodeToString(r[:]))
}

// DSN returns the spannerfast DSN of the target with extra properties
// appended (each "key=value").
func (e *Example) DSN(props ...string) string {
	var b strings.Builder
	b.WriteString(e.base)
	for _, p := range props {
		b.WriteString(";" + p)
	}
	return b.String()
}

// String says what the example runs on, for its first line of output.
func (e *Example) String() string {
	if e.emu != nil {
		return "a Cloud Spanner emulator started for this example at " + e.target.Endpoint + ", database " + e.target.Database
	}
	if e.Emulator {
		return "the Cloud Spanner emulator at " + e.target.Endpoint + ", database " + e.target.Database
	}
	return "the embedded Spanner server at " + e.target.Endpoint
}

// Close stops the embedded server or the emulator the example started, or
// drops the database on the emulator named by SPANNER_EMULATOR_HOST (if the
// example got as far as creating it).
func (e *Example) Close() error {
	if e.srv != nil {
		e.srv.Close()
		return nil
	}
	if e.emu != nil {
		e.emu.Stop() // its databases go with it
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin, err := database.NewDatabaseAdminClient(ctx, e.target.clientOptions()...)
	if err != nil {
		return fmt.Errorf("embedded: admin client: %w", err)
	}
	defer admin.Close()
	err = admin.DropDatabase(ctx, &databasepb.DropDatabaseRequest{Database: e.target.Database})
	if err != nil && status.Code(err) != codes.NotFound {
		return fmt.Errorf("embedded: drop %s: %w", e.target.Database, err)
	}
	return nil
}
