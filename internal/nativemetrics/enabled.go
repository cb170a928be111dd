package nativemetrics

import (
	"os"
	"strconv"

	"github.com/spannerfast/spannerfast/dsn"
)

// The environment variables the official client reads for its export.
const (
	// EnvDisable turns the export off when it parses as true
	// (strconv.ParseBool), as in the official client.
	EnvDisable = "SPANNER_DISABLE_BUILTIN_METRICS"
	// EnvEmulatorHost set to anything turns the export off: the official
	// client exports nothing for emulator clients.
	EnvEmulatorHost = "SPANNER_EMULATOR_HOST"
	// EnvMonitoringHost overrides the Cloud Monitoring endpoint.
	EnvMonitoringHost = "SPANNER_MONITORING_HOST"
	// EnvUniverseDomain is the universe domain the monitoring client
	// resolves its default endpoint in.
	EnvUniverseDomain = "GOOGLE_CLOUD_UNIVERSE_DOMAIN"
)

// Enabled reports whether a client of cfg exports its built-in metrics:
// yes, unless disable_native_metrics is set, SPANNER_DISABLE_BUILTIN_METRICS
// is true, SPANNER_EMULATOR_HOST is set, the endpoint is an experimental
// host (is_experimental_host: the official client exports nothing for
// one, it is not Cloud Spanner), or the client talks plain text
// (use_plain_text, auto_config_emulator: go-sql-spanner turns the export
// off for plain text). A test target (UseTestTarget) stands in for a
// production endpoint: it turns the export on for plain-text clients too,
// never against the other switches.
func Enabled(cfg *dsn.Config, plain bool) bool {
	if cfg.DisableNativeMetrics || cfg.IsExperimentalHost || os.Getenv(EnvEmulatorHost) != "" {
		return false
	}
	if off, _ := strconv.ParseBool(os.Getenv(EnvDisable)); off {
		return false
	}
	return !plain || testTarget.Load() != nil
}
