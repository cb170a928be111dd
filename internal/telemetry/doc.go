// Package telemetry is the driver's one door to OpenTelemetry and to the
// application's log/slog logger. It owns:
//
//   - choosing the providers: the TracerProvider and MeterProvider given in
//     code on the connector, else OpenTelemetry's global ones, looked up for
//     each operation so that a provider installed after the connector was
//     made is used;
//   - the "is anyone listening" test: with the global default provider that
//     nobody replaced, or a no-op provider, starting and ending an operation
//     builds no attribute, reads no clock and allocates nothing;
//   - the names: the tracer and meter name, span names, attribute keys,
//     metric names and the instruments;
//   - Op, which starts an operation (its span and its start time) and ends
//     it (the span's status and the db.client.operation.duration metric) in
//     one place, so that traces and metrics never disagree;
//   - the text recorded for an error (errtext.go): its own, or, when the
//     connector leaves statement text out, one that cannot quote a
//     statement (StatementFree, else its gRPC code);
//   - the logger (none unless given in code) and span events that cost
//     nothing when the span does not record;
//   - the reports of what the driver does on its own after a failure
//     (events.go): retries, stream resumptions, aborts, replays and their
//     outcome as span events and log records from one description, their
//     attribute keys and their log levels, and the records of sessions
//     made or made again.
//
// It imports only the OpenTelemetry API, log/slog and the standard library.
// It must not know connections, transactions, statements' grammar, gRPC or
// properties: its callers give it the switches (Config) and a function that
// names an error's gRPC code. Other packages call it; they do not call
// OpenTelemetry directly.
package telemetry
