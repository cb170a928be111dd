package stmtopts

import (
	"cloud.google.com/go/spanner/apiv1/spannerpb"

	"github.com/spannerfast/spannerfast/decode"
	"github.com/spannerfast/spannerfast/dsn"
	"github.com/spannerfast/spannerfast/rows"
)

// What a statement's request and its rows take from the connection's
// properties cfg. While a statement runs, its own settings are already laid
// over cfg (SetOn); RowsOptions adds the options that have no property.

// RowsOptions are the options of the statement's rows: the connection's
// decoding properties, with q's RawDecode, Proto and ReturnMetadata over
// them. poison turns on poisoning of released raw buffers whatever
// poison_raw_buffers says (the connection's environment switch).
func (q *QueryOptions) RowsOptions(cfg *dsn.Config, poison bool) rows.Options {
	raw := cfg.RawDecode
	if q.RawDecode != nil {
		raw = *q.RawDecode
	}
	return rows.Options{
		Decode: decode.Options{
			Raw:             raw,
			NativeArrays:    cfg.DecodeToNativeArrays,
			NumericAsString: cfg.DecodeNumericToString,
		},
		Proto:        q.Proto,
		KeepMetadata: q.ReturnMetadata,
		Poison:       cfg.PoisonRawBuffers || poison,
		Prefetch:     cfg.PrefetchMessages,
	}
}

// RequestOptions returns the priority and tag options of a statement
// outside a transaction, nil when both are unset (the common case costs
// nothing).
func RequestOptions(cfg *dsn.Config, tag string) *spannerpb.RequestOptions {
	if cfg.RPCPriority.Proto() == spannerpb.RequestOptions_PRIORITY_UNSPECIFIED && tag == "" {
		return nil
	}
	return &spannerpb.RequestOptions{Priority: cfg.RPCPriority.Proto(), RequestTag: tag}
}

// OptimizerOptions returns optimizer_version and
// optimizer_statistics_package as a request's query options, nil when both
// are unset.
func OptimizerOptions(cfg *dsn.Config) *spannerpb.ExecuteSqlRequest_QueryOptions {
	if cfg.OptimizerVersion == "" && cfg.OptimizerStatisticsPackage == "" {
		return nil
	}
	return &spannerpb.ExecuteSqlRequest_QueryOptions{
		OptimizerVersion:           cfg.OptimizerVersion,
		OptimizerStatisticsPackage: cfg.OptimizerStatisticsPackage,
	}
}
