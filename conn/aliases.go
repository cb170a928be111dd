package conn

import "github.com/spannerfast/spannerfast/internal/params"

// Argument encoding lives in internal/params; these names stay here for
// code that uses them through conn (driver re-exports SpannerNamedArg).
type (
	// SpannerNamedArg binds a parameter whose name database/sql refuses
	// (see params.SpannerNamedArg).
	SpannerNamedArg = params.SpannerNamedArg
	// ParamError reports an argument that cannot be sent to Spanner.
	ParamError = params.ParamError
	// MissingParamError reports a statement parameter that no argument binds.
	MissingParamError = params.MissingParamError
)
