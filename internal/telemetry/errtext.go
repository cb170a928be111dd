package telemetry

import (
	"reflect"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// The text of an error, wherever telemetry records one (a span's status
// description, its "exception" event, a replay's exception.message in
// events and log records), goes through errorText: this is the one place
// that decides whether it may quote a statement.
//
// With query text on, it is the error's own text. With it off
// (Config.OmitQueryText, disable_query_text_in_traces), no statement may
// reach telemetry, and an error's text may quote one: the driver's own
// errors quote the statement a replay saw change, and Spanner's messages
// quote pieces of the SQL they refuse ("Syntax error ... near ..."), in
// places no one but the server knows. So the text recorded is the error's
// StatementFree text when it has one, and otherwise its gRPC code's name
// with a fixed description: never the message.

// StatementFree is implemented by an error that knows where its text
// quotes statements: ErrorWithoutStatement is that text with every
// statement and every other error's text left out. Only the outermost
// error counts: a wrapper's own text may quote anything.
type StatementFree interface {
	ErrorWithoutStatement() string
}

// omittedText is the description of an error whose text is not recorded.
const omittedText = "error text omitted: it may quote a statement, and the connector leaves statement text out of telemetry"

// errorText is the text recorded for err (not nil).
func (t *Telemetry) errorText(err error) string {
	if t.QueryText() {
		return err.Error()
	}
	if f, ok := err.(StatementFree); ok {
		return f.ErrorWithoutStatement()
	}
	name := "_OTHER"
	if f := t.cfg.ErrorCode; f != nil {
		if _, n, ok := f(err); ok {
			name = n
		}
	}
	return name + ": " + omittedText
}

// Exception event attribute keys (OpenTelemetry's semantic conventions),
// as span.RecordError writes them.
const (
	keyExceptionType    = attribute.Key("exception.type")
	keyExceptionMessage = KeyErrorMessage
)

// recordError records err on s as an "exception" event, and sets s's
// status description, with errorText's text: span.RecordError writes
// err.Error() itself, so it is used only when that text may be recorded.
func (t *Telemetry) recordError(s trace.Span, err error) {
	text := t.errorText(err)
	if t.QueryText() {
		s.RecordError(err)
	} else {
		s.AddEvent("exception", trace.WithAttributes(
			keyExceptionType.String(errorType(err)),
			keyExceptionMessage.String(text)))
	}
	s.SetStatus(codes.Error, text)
}

// errorType is err's type as span.RecordError names it.
func errorType(err error) string {
	t := reflect.TypeOf(err)
	if t.PkgPath() == "" && t.Name() == "" {
		return t.String()
	}
	return t.PkgPath() + "." + t.Name()
}
