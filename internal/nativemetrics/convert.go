package nativemetrics

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"cloud.google.com/go/monitoring/apiv3/v2/monitoringpb"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"google.golang.org/genproto/googleapis/api/distribution"
	metricpb "google.golang.org/genproto/googleapis/api/metric"
	monitoredrespb "google.golang.org/genproto/googleapis/api/monitoredres"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// metricTypePrefix starts every metric type the export sends; instruments
// of other names in the private provider are not sent.
const metricTypePrefix = "spanner.googleapis.com/internal/client/"

// timeSeries converts what the reader collected to Cloud Monitoring's time
// series: one per data point, cumulative (counters as INT64, latency
// histograms as DISTRIBUTION with their explicit buckets), on the client's
// monitored resource, located by loc (called only when there is a point:
// it may ask the metadata server).
func (l *clientLabels) timeSeries(rm *metricdata.ResourceMetrics, loc func() string) ([]*monitoringpb.TimeSeries, error) {
	var res *monitoredrespb.MonitoredResource
	resource := func() *monitoredrespb.MonitoredResource {
		if res == nil {
			res = &monitoredrespb.MonitoredResource{Type: ResourceType, Labels: make(map[string]string, len(l.resource)+1)}
			for k, v := range l.resource {
				res.Labels[k] = v
			}
			res.Labels[LabelLocation] = loc()
		}
		return res
	}
	var out []*monitoringpb.TimeSeries
	var errs []error
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if !strings.HasPrefix(m.Name, metricTypePrefix) {
				continue
			}
			switch d := m.Data.(type) {
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					iv, err := interval(p.StartTime, p.Time)
					if err != nil {
						errs = append(errs, err)
						continue
					}
					out = append(out, l.series(m, resource(), p.Attributes, metricpb.MetricDescriptor_DISTRIBUTION, &monitoringpb.Point{
						Interval: iv,
						Value:    &monitoringpb.TypedValue{Value: &monitoringpb.TypedValue_DistributionValue{DistributionValue: toDistribution(p)}},
					}))
				}
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					iv, err := interval(p.StartTime, p.Time)
					if err != nil {
						errs = append(errs, err)
						continue
					}
					out = append(out, l.series(m, resource(), p.Attributes, metricpb.MetricDescriptor_INT64, &monitoringpb.Point{
						Interval: iv,
						Value:    &monitoringpb.TypedValue{Value: &monitoringpb.TypedValue_Int64Value{Int64Value: p.Value}},
					}))
				}
			default:
				errs = append(errs, fmt.Errorf("spannerfast: native metric %s: unexpected aggregation %T", m.Name, m.Data))
			}
		}
	}
	return out, errors.Join(errs...)
}

// series is one cumulative time series of m with one point: the client's
// metric labels and the point's own.
func (l *clientLabels) series(m metricdata.Metrics, res *monitoredrespb.MonitoredResource, attrs attribute.Set,
	vt metricpb.MetricDescriptor_ValueType, p *monitoringpb.Point) *monitoringpb.TimeSeries {
	labels := make(map[string]string, len(l.metric)+attrs.Len())
	for k, v := range l.metric {
		labels[k] = v
	}
	for it := attrs.Iter(); it.Next(); {
		kv := it.Attribute()
		if pointLabels[string(kv.Key)] {
			labels[string(kv.Key)] = kv.Value.Emit()
		}
	}
	return &monitoringpb.TimeSeries{
		Metric:     &metricpb.Metric{Type: m.Name, Labels: labels},
		Resource:   res,
		MetricKind: metricpb.MetricDescriptor_CUMULATIVE,
		ValueType:  vt,
		Unit:       m.Unit,
		Points:     []*monitoringpb.Point{p},
	}
}

// interval is a cumulative point's interval: Cloud Monitoring wants its end
// at least a millisecond after its start.
func interval(start, end time.Time) (*monitoringpb.TimeInterval, error) {
	if end.Sub(start) <= time.Millisecond {
		end = start.Add(time.Millisecond)
	}
	s, e := timestamppb.New(start), timestamppb.New(end)
	if err := errors.Join(s.CheckValid(), e.CheckValid()); err != nil {
		return nil, err
	}
	return &monitoringpb.TimeInterval{StartTime: s, EndTime: e}, nil
}

func toDistribution(p metricdata.HistogramDataPoint[float64]) *distribution.Distribution {
	counts := make([]int64, len(p.BucketCounts))
	for i, c := range p.BucketCounts {
		counts[i] = int64(c)
	}
	var mean float64
	if p.Count > 0 && !math.IsNaN(p.Sum) {
		mean = p.Sum / float64(p.Count)
	}
	return &distribution.Distribution{
		Count:        int64(p.Count),
		Mean:         mean,
		BucketCounts: counts,
		BucketOptions: &distribution.Distribution_BucketOptions{
			Options: &distribution.Distribution_BucketOptions_ExplicitBuckets{
				ExplicitBuckets: &distribution.Distribution_BucketOptions_Explicit{Bounds: p.Bounds},
			},
		},
	}
}
