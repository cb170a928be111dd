//go:build !nospannerfast

package main

import (
	"context"
	"slices"
	"testing"
	"time"

	"go.opentelemetry.io/otel"

	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/benchserver"
	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/scan"
	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/workload"
)

// TestOtelArmOptIn: spannerfast-otel runs only when named, so that a
// default run measures what it always measured.
func TestOtelArmOptIn(t *testing.T) {
	all, _, err := selectArms("all")
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(all, func(a armSpec) bool { return a.id == armFastOtel }) {
		t.Errorf("-arms all selected %s", armFastOtel)
	}
	named, _, err := selectArms(armFastSafe + "," + armFastOtel)
	if err != nil || len(named) != 2 || named[1].id != armFastOtel {
		t.Fatalf("-arms %s,%s: %v, %v", armFastSafe, armFastOtel, named, err)
	}
}

// TestOtelArmRecords reads point queries and a multi-row result with the
// telemetry arm: the values are right, and its SDK received a span per
// query and the operation-duration metric, while OpenTelemetry's global
// providers (which the other arms use) stay the silent defaults.
func TestOtelArmRecords(t *testing.T) {
	ws, err := workload.Select("point,strings800", 0.01)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := benchserver.New(ws)
	if err != nil {
		t.Fatal(err)
	}
	addr, err := srv.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	globalTP, globalMP := otel.GetTracerProvider(), otel.GetMeterProvider()
	a, err := openSpannerfastOtel(ctx, &env{addr: addr, database: databasePath, workloads: ws})
	if err != nil {
		t.Fatal(err)
	}
	oa := a.(*otelArm)
	queries := 0
	for _, w := range ws {
		sum, err := a.run(ctx, w, nil)
		if err != nil {
			t.Fatalf("%s: %v", w.Name, err)
		}
		if want := scan.Expected(w); sum != want {
			t.Errorf("%s: checksum %d, want %d", w.Name, sum, want)
		}
		queries += w.Queries
	}
	spans, points, err := oa.sdk.finish(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if spans < int64(queries) || points == 0 {
		t.Errorf("%d queries: %d spans exported, %d metric points", queries, spans, points)
	}
	if otel.GetTracerProvider() != globalTP || otel.GetMeterProvider() != globalMP {
		t.Error("the telemetry arm replaced OpenTelemetry's global providers")
	}
	if err := a.close(); err != nil {
		t.Errorf("close: %v", err)
	}
}
