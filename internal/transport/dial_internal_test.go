package transport

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"google.golang.org/api/option"

	"github.com/spannerfast/spannerfast/dsn"
)

// optionTypes names the types of opts ("internaloption.enableDirectPath",
// ...): the dialer's options are opaque, their types say which they are.
func optionTypes(opts []option.ClientOption) []string {
	out := make([]string, len(opts))
	for i, o := range opts {
		out[i] = fmt.Sprintf("%T=%v", o, o)
	}
	return out
}

// TestDirectPathOptions: GOOGLE_SPANNER_ENABLE_DIRECT_ACCESS gives the
// dialer the official client's DirectPath options (DirectPath with xDS,
// non-default service accounts, ALTS-bound tokens unless
// GOOGLE_SPANNER_DISABLE_DIRECT_ACCESS_BOUND_TOKEN), read as the client
// reads it; unset, false or unparsable, or on plain text, none.
func TestDirectPathOptions(t *testing.T) {
	cfg := dsn.NewConfig()
	cfg.Project, cfg.Instance, cfg.Database = "p", "i", "d"
	cfg.CredentialsJSON = `{"type":"authorized_user","client_id":"c","client_secret":"s","refresh_token":"r"}`
	dp := []string{
		"internaloption.allowNonDefaultServiceAccount=true",
		"internaloption.enableDirectPath=true",
		"internaloption.enableDirectPathXds=true",
	}
	for _, tc := range []struct {
		env, noBound string
		plain        bool
		want         []string
		bound        bool
	}{
		{env: "", want: nil},
		{env: "false", want: nil},
		{env: "maybe", want: nil},
		{env: "true", want: dp, bound: true},
		{env: "1", noBound: "true", want: dp},
		{env: "true", plain: true, want: nil},
	} {
		t.Run(fmt.Sprintf("%q/%q/%v", tc.env, tc.noBound, tc.plain), func(t *testing.T) {
			t.Setenv(DirectAccessEnv, tc.env)
			t.Setenv(directAccessBoundTokenEnv, tc.noBound)
			opts, err := clientOptions(cfg, "spanner.googleapis.com:443", tc.plain)
			if err != nil {
				t.Fatal(err)
			}
			types := optionTypes(opts)
			for _, w := range dp {
				if got, want := slices.Contains(types, w), slices.Contains(tc.want, w); got != want {
					t.Errorf("%s present = %v, want %v (options %v)", w, got, want, types)
				}
			}
			if got := slices.Contains(types, "internaloption.allowHardBoundTokens=[ALTS]"); got != tc.bound {
				t.Errorf("ALTS-bound tokens = %v, want %v (options %v)", got, tc.bound, types)
			}
		})
	}
}

// TestDirectPathEnabledLabel: a client dialled with DirectPath
// (GOOGLE_SPANNER_ENABLE_DIRECT_ACCESS=true, not plain text) gives its
// telemetry directpath_enabled "true"; otherwise "false".
func TestDirectPathEnabledLabel(t *testing.T) {
	t.Setenv(EmulatorHostEnv, "")
	for _, tc := range []struct {
		env, dsn string
		want     bool
	}{
		{"", "h:1/projects/p/instances/i/databases/d", false},
		{"true", "h:1/projects/p/instances/i/databases/d", true},
		{"true", "h:1/projects/p/instances/i/databases/d;use_plain_text=true", false},
	} {
		t.Setenv(DirectAccessEnv, tc.env)
		cfg, err := dsn.Parse(tc.dsn + `;disable_native_metrics=true;credentials_json={"type":"authorized_user","client_id":"c","client_secret":"s","refresh_token":"r"}`)
		if err != nil {
			t.Fatal(err)
		}
		c, err := NewClient(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Telemetry().DirectPathEnabled(); got != tc.want {
			t.Errorf("%q, %s: directpath_enabled %v, want %v", tc.env, tc.dsn, got, tc.want)
		}
		_ = c.Close()
	}
}
