package driver

import (
	"database/sql"
	sqldriver "database/sql/driver"
	"fmt"
	"log/slog"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"cloud.google.com/go/spanner"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/api/option"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/dsn"
	"github.com/spannerfast/spannerfast/internal/telemetry"
)

// ConnectionStateType is ConnectorConfig.ConnectionStateType, numbered as
// go-sql-spanner's connectionstate.Type.
type ConnectionStateType int

// ConnectionStateType values.
const (
	ConnectionStateDefault ConnectionStateType = iota
	ConnectionStateTransactional
	ConnectionStateNonTransactional
)

// ConnectorConfig is go-sql-spanner's structured configuration of a
// connector (CreateConnector). Every field is a DSN property; Params holds
// any other property by its DSN name and wins over the fields.
type ConnectorConfig struct {
	Host      string // endpoint ("" : Spanner's, or the emulator's)
	Authority string // authority

	Project  string
	Instance string
	Database string

	StatementCacheSize    int  // statement_cache_size
	DisableStatementCache bool // disable_statement_cache
	AutoConfigEmulator    bool // auto_config_emulator

	ConnectionStateType ConnectionStateType // connection_state_type
	Params              map[string]string   // any property, by its DSN name

	AutoBatchDml                               bool  // auto_batch_dml
	AutoBatchDmlUpdateCount                    int64 // auto_batch_dml_update_count
	DisableAutoBatchDmlUpdateCountVerification bool  // not auto_batch_dml_update_count_verification

	IsolationLevel         sql.IsolationLevel             // isolation_level
	BeginTransactionOption spanner.BeginTransactionOption // begin_transaction_option
	DecodeToNativeArrays   bool                           // decode_to_native_arrays

	// Configurator may change the official client's settings, as in
	// go-sql-spanner. spannerfast does not use that client: the fields with
	// a property or an option of the same meaning are taken (DatabaseRole,
	// DisableRouteToLeader, EnableEndToEndTracing, DisableNativeMetrics,
	// NumChannels, QueryOptions.Options' optimizer version and statistics
	// package, OpenTelemetryMeterProvider as MeterProvider); any other field
	// set, or any client option added, makes CreateConnector fail with
	// Unimplemented naming it, rather than be ignored.
	Configurator func(config *spanner.ClientConfig, opts *[]option.ClientOption)

	// TracerProvider, MeterProvider and Logger are NewConnector's
	// WithTracerProvider, WithMeterProvider and WithLogger
	// (docs/observability.md). MeterProvider wins over the Configurator's
	// OpenTelemetryMeterProvider.
	TracerProvider trace.TracerProvider
	MeterProvider  metric.MeterProvider
	Logger         *slog.Logger
}

// ExtractConnectorConfig returns the ConnectorConfig of a DSN, in either
// form (native or postgresql://), as go-sql-spanner's does: Host (the DSN's
// HOST[:PORT]), Project, Instance, Database and Params, every property as
// written with its key in lower case (a postgresql:// URL's sslmode=disable
// as useplaintext=true). The typed fields stay zero: Params carry the
// values. CreateConnector of the result makes the connector sql.Open makes
// of the DSN. A DSN that Open refuses is refused here, with the same
// *dsn.Error.
func ExtractConnectorConfig(s string) (ConnectorConfig, error) {
	p, err := dsn.Split(s)
	if err != nil {
		return ConnectorConfig{}, err
	}
	return ConnectorConfig{Host: p.Host, Project: p.Project, Instance: p.Instance, Database: p.Database, Params: p.Params}, nil
}

// CreateConnector returns a new connector for config (always a new one,
// with its own channels and session), for use with sql.OpenDB. Errors name
// the field or property that is wrong.
func CreateConnector(config ConnectorConfig) (sqldriver.Connector, error) {
	cfg, tc, err := config.dsnConfig()
	if err != nil {
		return nil, err
	}
	return newConnector(cfg, tc)
}

// dsnConfig returns the configuration cc stands for and its providers and
// logger.
func (cc *ConnectorConfig) dsnConfig() (*dsn.Config, telemetry.Config, error) {
	tc := telemetry.Config{TracerProvider: cc.TracerProvider, MeterProvider: cc.MeterProvider, Logger: cc.Logger}
	cfg, err := cc.properties()
	if err != nil {
		return nil, tc, err
	}
	if cc.Configurator != nil {
		mp, err := applyConfigurator(cfg, cc.Configurator)
		if err != nil {
			return nil, tc, err
		}
		if tc.MeterProvider == nil {
			tc.MeterProvider = mp
		}
	}
	return cfg, tc, cfg.Validate()
}

// properties returns the configuration of cc's fields and Params.
func (cc *ConnectorConfig) properties() (*dsn.Config, error) {
	if cc.Project == "" || cc.Instance == "" || cc.Database == "" {
		return nil, status.Error(codes.InvalidArgument, "spannerfast: ConnectorConfig needs Project, Instance and Database")
	}
	cfg, err := dsn.Parse(fmt.Sprintf("projects/%s/instances/%s/databases/%s", cc.Project, cc.Instance, cc.Database))
	if err != nil {
		return nil, err
	}
	var props [][2]string
	add := func(k, v string) { props = append(props, [2]string{k, v}) }
	if cc.Host != "" {
		add("endpoint", cc.Host)
	}
	if cc.Authority != "" {
		add("authority", cc.Authority)
	}
	if cc.StatementCacheSize != 0 {
		add("statement_cache_size", strconv.Itoa(cc.StatementCacheSize))
	}
	if cc.DisableStatementCache {
		add("disable_statement_cache", "true")
	}
	if cc.AutoConfigEmulator {
		add("auto_config_emulator", "true")
	}
	switch cc.ConnectionStateType {
	case ConnectionStateDefault:
	case ConnectionStateTransactional:
		add("connection_state_type", "TRANSACTIONAL")
	case ConnectionStateNonTransactional:
		add("connection_state_type", "NON_TRANSACTIONAL")
	default:
		return nil, status.Errorf(codes.InvalidArgument, "spannerfast: ConnectorConfig.ConnectionStateType %d is not a known type", cc.ConnectionStateType)
	}
	if cc.AutoBatchDml {
		add("auto_batch_dml", "true")
	}
	if cc.AutoBatchDmlUpdateCount != 0 {
		add("auto_batch_dml_update_count", strconv.FormatInt(cc.AutoBatchDmlUpdateCount, 10))
	}
	if cc.DisableAutoBatchDmlUpdateCountVerification {
		add("auto_batch_dml_update_count_verification", "false")
	}
	if cc.IsolationLevel != sql.LevelDefault {
		name := dsn.IsolationLevelName(cc.IsolationLevel)
		if name == "" {
			return nil, status.Errorf(codes.InvalidArgument, "spannerfast: ConnectorConfig.IsolationLevel %v is not supported by Spanner", cc.IsolationLevel)
		}
		add("isolation_level", name)
	}
	switch cc.BeginTransactionOption {
	case spanner.DefaultBeginTransaction, spanner.InlinedBeginTransaction:
	case spanner.ExplicitBeginTransaction:
		add("begin_transaction_option", "EXPLICIT")
	default:
		return nil, status.Errorf(codes.InvalidArgument, "spannerfast: ConnectorConfig.BeginTransactionOption %d is not a known option", cc.BeginTransactionOption)
	}
	if cc.DecodeToNativeArrays {
		add("decode_to_native_arrays", "true")
	}
	keys := make([]string, 0, len(cc.Params))
	for k := range cc.Params {
		keys = append(keys, k)
	}
	sort.Strings(keys) // errors do not depend on map order
	for _, k := range keys {
		add(k, cc.Params[k])
	}
	for _, p := range props {
		if err := cfg.Set(p[0], p[1]); err != nil {
			return nil, err
		}
	}
	return cfg, nil
}

// applyConfigurator runs f on the official client's settings that cfg
// stands for and takes back what has a property, and the meter provider it
// set; anything else it set is refused.
func applyConfigurator(cfg *dsn.Config, f func(*spanner.ClientConfig, *[]option.ClientOption)) (metric.MeterProvider, error) {
	cc := spanner.ClientConfig{
		DatabaseRole:          cfg.DatabaseRole,
		DisableRouteToLeader:  cfg.DisableRouteToLeader,
		EnableEndToEndTracing: cfg.EnableEndToEndTracing,
		DisableNativeMetrics:  cfg.DisableNativeMetrics,
		NumChannels:           cfg.NumChannels,
	}
	var opts []option.ClientOption
	f(&cc, &opts)
	if len(opts) > 0 {
		return nil, status.Errorf(codes.Unimplemented,
			"spannerfast: ConnectorConfig.Configurator added %d client option(s); spannerfast does not use the official client and cannot apply them (set endpoint, credentials, authority, ... in Params)", len(opts))
	}
	cfg.DatabaseRole, cc.DatabaseRole = cc.DatabaseRole, ""
	cfg.DisableRouteToLeader, cc.DisableRouteToLeader = cc.DisableRouteToLeader, false
	cfg.EnableEndToEndTracing, cc.EnableEndToEndTracing = cc.EnableEndToEndTracing, false
	cfg.DisableNativeMetrics, cc.DisableNativeMetrics = cc.DisableNativeMetrics, false
	cfg.NumChannels, cc.NumChannels = cc.NumChannels, 0
	mp := cc.OpenTelemetryMeterProvider
	cc.OpenTelemetryMeterProvider = nil
	if o := cc.QueryOptions.Options; o != nil {
		if v := o.GetOptimizerVersion(); v != "" {
			cfg.OptimizerVersion = v
		}
		if p := o.GetOptimizerStatisticsPackage(); p != "" {
			cfg.OptimizerStatisticsPackage = p
		}
		cc.QueryOptions.Options = nil
	}
	var left []string
	v := reflect.ValueOf(cc)
	for i := range v.NumField() {
		if f := v.Type().Field(i); f.IsExported() && !v.Field(i).IsZero() {
			left = append(left, f.Name)
		}
	}
	if len(left) > 0 {
		return nil, status.Errorf(codes.Unimplemented,
			"spannerfast: ConnectorConfig.Configurator set spanner.ClientConfig %s, which spannerfast cannot apply", strings.Join(left, ", "))
	}
	return mp, nil
}
