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

// TestGormExample runs the example, as `go run ./examples/gorm` does, on the
// embedded server and on the emulator, and checks what each step printed.
func TestGormExample(t *testing.T) {
	emulatortest.OnEmbeddedAndEmulator(t, func(t *testing.T) {
		var buf bytes.Buffer
		if err := run(context.Background(), &buf); err != nil {
			t.Fatal(err)
		}
		got := buf.String()
		for _, want := range []string{
			"  CREATE TABLE `singers` (`id` INT64, `name` STRING(100) NOT NULL, `genres` ARRAY<STRING(MAX)>, `created_at` TIMESTAMP, `updated_at` TIMESTAMP) PRIMARY KEY (`id`)\n",
			"  CREATE INDEX `idx_singers_name` ON `singers`(`name`)\n",
			"tables: albums, singers\n",
			"then 2 singers in one statement\n",
			"Alice (genres [rock pop], created true):\n  10 Morning  2021-05-01\n  11 Evening  2023-09-09\n",
			"singers after Alice: Bob, Carol\n",
			"renamed Bob; deleted 1 album, 1 left\n",
			"after the transactions:\n" +
				"  1 Alice   rock,pop   1 album(s)\n" +
				"  2 Robert  blues      1 album(s)\n" +
				"  3 Carol   jazz,soul  0 album(s)\n",
		} {
			if !strings.Contains(got, want) {
				t.Errorf("output lacks %q:\n%s", want, got)
			}
		}
	})
}
