package spannerfasttest

import (
	"reflect"
	"strings"

	"cloud.google.com/go/spanner/spansql"
)

// spansql accepts GoogleSQL's reserved keywords (AS, AT, ALL, ...) as
// identifiers where Spanner refuses them unless they are quoted with
// backticks. Every identifier of a parsed statement is checked here: one
// that is a reserved keyword must appear quoted in the statement's text.

var idType = reflect.TypeOf(spansql.ID(""))

// checkReserved refuses a parsed statement that uses a reserved keyword as
// an unquoted identifier, with InvalidArgument as Spanner does.
func checkReserved(sql string, stmt any) error {
	var bad string
	walkIDs(reflect.ValueOf(stmt), func(id string) bool {
		if spansql.IsKeyword(id) && !strings.Contains(strings.ToUpper(sql), "`"+strings.ToUpper(id)+"`") {
			bad = id
			return false
		}
		return true
	})
	if bad != "" {
		return invalid("syntax error: %s is a reserved keyword and cannot be used as an identifier unless quoted (`%s`): %q", strings.ToUpper(bad), bad, sql)
	}
	return nil
}

// walkIDs calls f with every identifier reachable from v, until f returns
// false.
func walkIDs(v reflect.Value, f func(string) bool) bool {
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			return true
		}
		return walkIDs(v.Elem(), f)
	case reflect.String:
		if v.Type() == idType {
			return f(v.String())
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() && !walkIDs(v.Field(i), f) {
				return false
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if !walkIDs(v.Index(i), f) {
				return false
			}
		}
	}
	return true
}
