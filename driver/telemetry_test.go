package driver

import (
	"bytes"
	"context"
	"log/slog"
	"testing"

	"cloud.google.com/go/spanner"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"google.golang.org/api/option"

	"github.com/spannerfast/spannerfast/dsn"
	"github.com/spannerfast/spannerfast/internal/telemetry"
)

// sinks are an in-memory span recorder and metric reader.
type sinks struct {
	spans  *tracetest.SpanRecorder
	tp     *sdktrace.TracerProvider
	reader *sdkmetric.ManualReader
	mp     *sdkmetric.MeterProvider
}

func newSinks(t *testing.T) *sinks {
	s := &sinks{spans: tracetest.NewSpanRecorder(), reader: sdkmetric.NewManualReader()}
	s.tp = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(s.spans))
	s.mp = sdkmetric.NewMeterProvider(sdkmetric.WithReader(s.reader))
	t.Cleanup(func() {
		_ = s.tp.Shutdown(context.Background())
		_ = s.mp.Shutdown(context.Background())
	})
	return s
}

// measured reports how many measurements the reader holds.
func (s *sinks) measured(t *testing.T) int {
	var rm metricdata.ResourceMetrics
	if err := s.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if h, ok := m.Data.(metricdata.Histogram[float64]); ok {
				for _, p := range h.DataPoints {
					n += int(p.Count)
				}
			}
		}
	}
	return n
}

// operate runs one operation on c's telemetry and reports whether it was
// listened to.
func operate(c *Connector) bool {
	_, op := c.Client().Telemetry().Start(context.Background(), telemetry.Query, "SELECT 1")
	defer op.End(nil)
	return op.Active()
}

// TestConnectorTelemetryOptions: the providers and the logger given in
// code on NewConnector and CreateConnector (fields and the Configurator's
// OpenTelemetryMeterProvider) are the ones the connector's operations use;
// the DSN's switches apply to them.
func TestConnectorTelemetryOptions(t *testing.T) {
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))

	s := newSinks(t)
	cfg, err := dsn.Parse(dbPath + ";use_plain_text=true;disable_query_text_in_traces=true")
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewConnector(cfg, WithTracerProvider(s.tp), WithMeterProvider(s.mp), WithLogger(logger))
	if err != nil {
		t.Fatal(err)
	}
	defer c.(*Connector).Close()
	if !operate(c.(*Connector)) || len(s.spans.Ended()) != 1 || s.measured(t) != 1 {
		t.Fatalf("NewConnector's providers: %d spans, %d measurements", len(s.spans.Ended()), s.measured(t))
	}
	for _, kv := range s.spans.Ended()[0].Attributes() {
		if kv.Key == telemetry.KeyDBQueryText {
			t.Error("db.query.text with disable_query_text_in_traces")
		}
	}
	if c.(*Connector).Client().Telemetry().Logger() != logger {
		t.Error("WithLogger's logger is not the connector's")
	}
	if _, err := NewConnector(cfg, nil); err == nil {
		t.Error("a nil ConnectorOption was accepted")
	}

	s = newSinks(t)
	cc, err := CreateConnector(ConnectorConfig{Project: "p", Instance: "i", Database: "d",
		Params: map[string]string{"use_plain_text": "true", "disable_tracing": "true"}, TracerProvider: s.tp, MeterProvider: s.mp})
	if err != nil {
		t.Fatal(err)
	}
	defer cc.(*Connector).Close()
	if !operate(cc.(*Connector)) || len(s.spans.Ended()) != 0 || s.measured(t) != 1 {
		t.Fatalf("CreateConnector with disable_tracing: %d spans (want 0), %d measurements (want 1)", len(s.spans.Ended()), s.measured(t))
	}

	s = newSinks(t)
	cc, err = CreateConnector(ConnectorConfig{Project: "p", Instance: "i", Database: "d",
		Params: map[string]string{"use_plain_text": "true"},
		Configurator: func(c *spanner.ClientConfig, _ *[]option.ClientOption) {
			c.OpenTelemetryMeterProvider = s.mp
		}})
	if err != nil {
		t.Fatalf("Configurator's OpenTelemetryMeterProvider refused: %v", err)
	}
	defer cc.(*Connector).Close()
	if operate(cc.(*Connector)); s.measured(t) != 1 {
		t.Fatalf("Configurator's OpenTelemetryMeterProvider: %d measurements, want 1", s.measured(t))
	}
}

// TestConnectorWithoutTelemetry: a connector given nothing uses the
// global providers, which nobody set in this test: nothing listens.
func TestConnectorWithoutTelemetry(t *testing.T) {
	c, err := (&Driver{}).OpenConnector(dbPath + ";use_plain_text=true")
	if err != nil {
		t.Fatal(err)
	}
	defer c.(*Connector).Close()
	if operate(c.(*Connector)) {
		t.Error("an operation is listened to with OpenTelemetry's global defaults")
	}
	if c.(*Connector).Client().Telemetry().Logger() != nil {
		t.Error("a logger without WithLogger")
	}
}
