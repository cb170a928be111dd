package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/spannerfast/spannerfast/internal/emulatortest"
)

func TestMain(m *testing.M) { os.Exit(emulatortest.Main(m)) }

// TestDDLExample runs the example, as `go run ./examples/ddl` does, on the
// embedded server and on the emulator, and checks the schema it saw after
// each migration step.
func TestDDLExample(t *testing.T) {
	emulatortest.OnEmbeddedAndEmulator(t, func(t *testing.T) {
		var buf bytes.Buffer
		if err := run(context.Background(), &buf); err != nil {
			t.Fatal(err)
		}
		got := buf.String()
		want := `== inspect the schema
tables: Albums, Singers, Venues
Singers columns: SingerId INT64, FirstName STRING(1024), LastName STRING(1024), Rating INT64
indexes: Albums AlbumsByTitle, Singers SingersByLastName, Venues VenuesByName
== write and read
Richards rating 9, 2 albums
Smith rating 7, 1 albums
== drop
== inspect the schema
tables: Singers
Singers columns: SingerId INT64, FirstName STRING(1024), LastName STRING(1024), Rating INT64
indexes: Singers SingersByLastName
`
		if !strings.HasSuffix(got, want) {
			t.Fatalf("output:\n%s\nwant it to end with:\n%s", got, want)
		}
	})
}
