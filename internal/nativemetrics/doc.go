// Package nativemetrics exports the official client's built-in client
// metrics to Cloud Monitoring as the official client (cloud.google.com/go/
// spanner v1.96) exports them: the same metric types
// (spanner.googleapis.com/internal/client/...), the same monitored
// resource (spanner_instance_client with project_id, instance_id,
// instance_config, location, client_hash) and metric labels (method,
// status, database, client_uid, client_name, directpath_enabled,
// directpath_used), every 60 seconds and once more when the client closes,
// through Google's monitoring client library.
//
// It owns the rule of when the export is on (Enabled), the private meter
// provider and periodic reader (Start, Exporter.Close), the conversion of
// OpenTelemetry data to CreateServiceTimeSeries requests, and the client's
// labels. It knows no connection, RPC or telemetry switch: internal/transport
// starts it and hands its provider to internal/telemetry, which records the
// measurements.
package nativemetrics
