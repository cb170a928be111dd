package params

import "database/sql/driver"

// SpannerNamedArg is go-sql-spanner's argument for a parameter whose name
// database/sql refuses, such as one that starts with an underscore
// (@__name): pass sql.Named("any_valid_name", SpannerNamedArg{NameInQuery:
// "__name", Value: v}) and Value binds to @__name. When several arguments
// name the same parameter, the last one wins.
type SpannerNamedArg struct {
	NameInQuery string
	Value       any
}

// unwrapNamedArg replaces a SpannerNamedArg argument by its name and value.
func unwrapNamedArg(nv *driver.NamedValue) {
	switch a := nv.Value.(type) {
	case SpannerNamedArg:
		nv.Name, nv.Value = a.NameInQuery, a.Value
	case *SpannerNamedArg:
		if a != nil {
			nv.Name, nv.Value = a.NameInQuery, a.Value
		}
	}
}
