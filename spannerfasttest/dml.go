package spannerfasttest

import (
	"context"
	"encoding/base64"
	"time"

	"fmt"
	"strconv"
	"strings"

	"cloud.google.com/go/civil"
	"github.com/spannerfast/spannerfast/spannerfasttest/internal/sqltext"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"cloud.google.com/go/spanner/spansql"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
)

type stmtKind int

const (
	queryStatement stmtKind = iota
	dmlStatement
)

// classify tells DML from everything else by the first keyword.
func classify(sql string) stmtKind {
	words := leadingWords(sql, 1)
	if len(words) == 1 {
		switch words[0] {
		case "INSERT", "UPDATE", "DELETE":
			return dmlStatement
		}
	}
	return queryStatement
}

// leadingWords returns up to n leading keywords of sql, upper-cased,
// skipping white space and comments.
func leadingWords(sql string, n int) []string {
	var words []string
	for i := 0; i < len(sql) && len(words) < n; {
		c := sql[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '#' || strings.HasPrefix(sql[i:], "--"):
			end := strings.IndexByte(sql[i:], '\n')
			if end < 0 {
				return words
			}
			i += end + 1
		case strings.HasPrefix(sql[i:], "/*"):
			end := strings.Index(sql[i+2:], "*/")
			if end < 0 {
				return words
			}
			i += end + 4
		case sqltext.IsWordByte(c):
			j := i
			for j < len(sql) && sqltext.IsWordByte(sql[j]) {
				j++
			}
			words = append(words, strings.ToUpper(sql[i:j]))
			i = j
		default:
			return words
		}
	}
	return words
}

type insertMode int

const (
	plainInsert insertMode = iota
	insertOrUpdate
	insertOrIgnore
)

// parseDML parses a DML statement with spansql. spansql knows no INSERT OR
// UPDATE / INSERT OR IGNORE, so the two words are cut out first.
func parseDML(sql string) (spansql.DMLStmt, insertMode, error) {
	mode := plainInsert
	if w := leadingWords(sql, 3); len(w) == 3 && w[0] == "INSERT" && w[1] == "OR" {
		switch w[2] {
		case "UPDATE":
			mode = insertOrUpdate
		case "IGNORE":
			mode = insertOrIgnore
		default:
			return nil, 0, invalid("unknown INSERT OR %s", w[2])
		}
		sql = cutWords(sql, 3, "INSERT")
	}
	stmt, err := spansql.ParseDMLStmt(normalizeTimestamps(sql))
	if err != nil {
		return nil, 0, invalid("cannot parse DML statement %q: %v", sql, err)
	}
	if err := checkReserved(sql, stmt); err != nil {
		return nil, 0, err
	}
	return stmt, mode, nil
}

// cutWords replaces the first n keywords of sql with repl.
func cutWords(sql string, n int, repl string) string {
	up := strings.ToUpper(sql)
	pos := 0
	for _, w := range leadingWords(sql, n) {
		pos = strings.Index(up[pos:], w) + pos + len(w)
	}
	return repl + sql[pos:]
}

// execute runs a DML statement of tx as mutations on the engine and
// returns its row count and, for THEN RETURN, its rows; the rows it changed
// go to tx's undo log. Call with engineMu held and tx the writer.
func (s *service) execute(ctx context.Context, tx *txn, sql string, params *structpb.Struct, types map[string]*spannerpb.Type) (int64, *spannerpb.ResultSet, error) {
	pdml := tx.kind == partitioned
	sql, list, ret := splitThenReturn(sql)
	if ret && pdml {
		return 0, nil, invalid("THEN RETURN is not allowed in partitioned DML")
	}
	stmt, mode, err := parseDML(sql)
	if err != nil {
		return 0, nil, err
	}
	p, err := newParams(params, types)
	if err != nil {
		return 0, nil, err
	}
	var ms []*spannerpb.Mutation
	var n int64
	_, isDelete := stmt.(*spansql.Delete)
	switch st := stmt.(type) {
	case *spansql.Insert:
		if pdml {
			return 0, nil, invalid("partitioned DML supports only UPDATE and DELETE, not INSERT")
		}
		ms, n, err = s.planInsert(ctx, st, mode, p)
	case *spansql.Update:
		ms, n, err = s.planUpdate(ctx, st, p)
	case *spansql.Delete:
		ms, n, err = s.planDelete(ctx, st, p)
	default:
		return 0, nil, unimplemented("DML statement %T is not supported", st)
	}
	if err != nil {
		return 0, nil, analysisError(err)
	}
	var rs *spannerpb.ResultSet
	var t *table
	var keys []*structpb.ListValue
	if ret {
		// The list is checked (and a DELETE's rows read) before the write.
		if t, err = s.table(ctx, dmlTable(stmt)); err != nil {
			return 0, nil, analysisError(err)
		}
		if keys, err = writtenKeys(t, ms); err != nil {
			return 0, nil, err
		}
		if rs, err = s.returning(ctx, t, keys, list, p); err != nil {
			return 0, nil, err
		}
	}
	if len(ms) == 0 {
		return n, rs, nil
	}
	_, snaps, err := s.applyLocked(ctx, ms)
	if err != nil {
		return 0, nil, err
	}
	if ret && !isDelete {
		if rs, err = s.returning(ctx, t, keys, list, p); err != nil {
			if uerr := s.putBack(ctx, snaps); uerr != nil {
				return 0, nil, uerr
			}
			return 0, nil, err
		}
	}
	if !pdml {
		tx.undo.record(snaps)
	}
	return n, rs, nil
}

// params holds a statement's parameters in the form the engine accepts.
type params struct {
	values  *structpb.Struct
	types   map[string]*spannerpb.Type
	untyped map[string]bool // sent without a type: Spanner infers it from use
}

// newParams gives every parameter a type: the engine dereferences the type
// of every non-NULL parameter and crashes on a missing one.
func newParams(values *structpb.Struct, types map[string]*spannerpb.Type) (*params, error) {
	p := &params{values: values, types: map[string]*spannerpb.Type{}, untyped: map[string]bool{}}
	for name, v := range values.GetFields() {
		t := types[name]
		if t == nil {
			p.untyped[name] = true
			t = inferType(v)
		}
		if err := checkType(name, t); err != nil {
			return nil, err
		}
		p.types[name] = t
	}
	return p, nil
}

func inferType(v *structpb.Value) *spannerpb.Type {
	switch k := v.GetKind().(type) {
	case *structpb.Value_BoolValue:
		return &spannerpb.Type{Code: spannerpb.TypeCode_BOOL}
	case *structpb.Value_NumberValue:
		return &spannerpb.Type{Code: spannerpb.TypeCode_FLOAT64}
	case *structpb.Value_ListValue:
		elem := &spannerpb.Type{Code: spannerpb.TypeCode_STRING}
		for _, e := range k.ListValue.GetValues() {
			if _, null := e.GetKind().(*structpb.Value_NullValue); !null {
				elem = inferType(e)
				break
			}
		}
		return &spannerpb.Type{Code: spannerpb.TypeCode_ARRAY, ArrayElementType: elem}
	}
	return &spannerpb.Type{Code: spannerpb.TypeCode_STRING}
}

func checkType(name string, t *spannerpb.Type) error {
	if t.GetCode() == spannerpb.TypeCode_ARRAY {
		if t.GetArrayElementType() == nil {
			return invalid("parameter %s: ARRAY type without an element type", name)
		}
		return checkType(name, t.GetArrayElementType())
	}
	return nil
}

// evalRow evaluates a VALUES row: literals and parameters here, other
// expressions (functions, arithmetic) with the engine by selecting them.
func (s *service) evalRow(ctx context.Context, exprs []spansql.Expr, p *params) ([]*structpb.Value, []*spannerpb.Type, error) {
	vals := make([]*structpb.Value, len(exprs))
	types := make([]*spannerpb.Type, len(exprs))
	var rest []string
	var restAt []int
	for i, e := range exprs {
		if v, t, ok := evalLocal(e, p); ok {
			vals[i], types[i] = v, t
			continue
		}
		rest = append(rest, e.SQL())
		restAt = append(restAt, i)
	}
	if len(rest) == 0 {
		return vals, types, nil
	}
	rows, got, err := s.engineQuery(ctx, "SELECT "+strings.Join(rest, ", "), p)
	if err != nil {
		return nil, nil, err
	}
	if len(rows) != 1 || len(got) != len(rest) {
		return nil, nil, status.Errorf(codes.Internal, "spannerfasttest: evaluating a VALUES row gave %d rows", len(rows))
	}
	for j, i := range restAt {
		vals[i], types[i] = rows[0].GetValues()[j], got[j]
	}
	return vals, types, nil
}

// evalLocal evaluates literals and parameters (the engine cannot select
// some literals, such as FLOAT64 ones, without a table).
func evalLocal(e spansql.Expr, p *params) (*structpb.Value, *spannerpb.Type, bool) {
	typ := func(c spannerpb.TypeCode) *spannerpb.Type { return &spannerpb.Type{Code: c} }
	switch v := e.(type) {
	case spansql.Param:
		val, ok := p.values.GetFields()[string(v)]
		return val, p.types[string(v)], ok
	case spansql.NullLiteral:
		return structpb.NewNullValue(), typ(spannerpb.TypeCode_INT64), true
	case spansql.BoolLiteral:
		return structpb.NewBoolValue(bool(v)), typ(spannerpb.TypeCode_BOOL), true
	case spansql.IntegerLiteral:
		return structpb.NewStringValue(strconv.FormatInt(int64(v), 10)), typ(spannerpb.TypeCode_INT64), true
	case spansql.FloatLiteral:
		return structpb.NewNumberValue(float64(v)), typ(spannerpb.TypeCode_FLOAT64), true
	case spansql.StringLiteral:
		return structpb.NewStringValue(string(v)), typ(spannerpb.TypeCode_STRING), true
	case spansql.BytesLiteral:
		return structpb.NewStringValue(base64.StdEncoding.EncodeToString([]byte(v))), typ(spannerpb.TypeCode_BYTES), true
	case spansql.DateLiteral:
		return structpb.NewStringValue(civil.Date(v).String()), typ(spannerpb.TypeCode_DATE), true
	case spansql.TimestampLiteral:
		return structpb.NewStringValue(time.Time(v).UTC().Format(time.RFC3339Nano)), typ(spannerpb.TypeCode_TIMESTAMP), true
	case spansql.Func:
		if isPendingCommitTS(v) {
			return structpb.NewStringValue("spanner.commit_timestamp()"), typ(spannerpb.TypeCode_TIMESTAMP), true
		}
	case spansql.ArithOp:
		if v.Op == spansql.Neg {
			switch n := v.RHS.(type) {
			case spansql.IntegerLiteral:
				return evalLocal(-n, p)
			case spansql.FloatLiteral:
				return evalLocal(-n, p)
			}
		}
	case spansql.Paren:
		return evalLocal(v.Expr, p)
	}
	return nil, nil, false
}

func isPendingCommitTS(e spansql.Expr) bool {
	f, ok := e.(spansql.Func)
	return ok && strings.EqualFold(f.Name, "PENDING_COMMIT_TIMESTAMP") && len(f.Args) == 0
}

// engineQuery runs a query on the engine and returns its rows and column types.
func (s *service) engineQuery(ctx context.Context, sql string, p *params) ([]*structpb.ListValue, []*spannerpb.Type, error) {
	if err := s.checkQuery(sql, p); err != nil {
		return nil, nil, err
	}
	session, err := s.internalSession(ctx)
	if err != nil {
		return nil, nil, err
	}
	rs, err := s.engine.ExecuteSql(ctx, &spannerpb.ExecuteSqlRequest{Session: session, Sql: sql, Params: p.values, ParamTypes: p.types})
	if err != nil {
		return nil, nil, status.Error(engineCode(err), "spannerfasttest: "+status.Convert(err).Message())
	}
	var types []*spannerpb.Type
	for _, f := range rs.GetMetadata().GetRowType().GetFields() {
		types = append(types, f.GetType())
	}
	return rs.GetRows(), types, nil
}

// coerce checks that a value of type got may be written to a column and
// converts it where Spanner does: INT64 to FLOAT64, and STRING literals
// (and untyped parameters) to DATE and TIMESTAMP.
func coerce(v *structpb.Value, got *spannerpb.Type, t *table, ci int, untyped bool) (*structpb.Value, error) {
	col := t.cols[ci]
	if _, null := v.GetKind().(*structpb.Value_NullValue); null || untyped {
		return v, nil
	}
	want := typeOf(col.typ)
	if proto.Equal(got, want) {
		return v, nil
	}
	if lv := v.GetListValue(); lv != nil && got.GetCode() == spannerpb.TypeCode_ARRAY && want.GetCode() == spannerpb.TypeCode_ARRAY {
		out := &structpb.ListValue{}
		for _, e := range lv.GetValues() {
			c, err := coerceScalar(e, got.GetArrayElementType(), want.GetArrayElementType())
			if err != nil {
				return nil, typeError(t, col, got)
			}
			out.Values = append(out.Values, c)
		}
		return structpb.NewListValue(out), nil
	}
	c, err := coerceScalar(v, got, want)
	if err != nil {
		return nil, typeError(t, col, got)
	}
	return c, nil
}

func coerceScalar(v *structpb.Value, got, want *spannerpb.Type) (*structpb.Value, error) {
	if _, null := v.GetKind().(*structpb.Value_NullValue); null || proto.Equal(got, want) {
		return v, nil
	}
	switch {
	case got.GetCode() == spannerpb.TypeCode_INT64 && want.GetCode() == spannerpb.TypeCode_FLOAT64:
		n, err := strconv.ParseInt(v.GetStringValue(), 10, 64)
		if err != nil {
			return nil, err
		}
		return structpb.NewNumberValue(float64(n)), nil
	case got.GetCode() == spannerpb.TypeCode_STRING && (want.GetCode() == spannerpb.TypeCode_DATE || want.GetCode() == spannerpb.TypeCode_TIMESTAMP):
		return v, nil
	}
	return nil, fmt.Errorf("no coercion")
}

func typeError(t *table, col column, got *spannerpb.Type) error {
	return invalid("a value of type %s cannot be written to column %s of table %s, which has type %s", typeName(got), col.name, t.name, col.typ.SQL())
}

func typeName(t *spannerpb.Type) string {
	if t.GetCode() == spannerpb.TypeCode_ARRAY {
		return "ARRAY<" + typeName(t.GetArrayElementType()) + ">"
	}
	return t.GetCode().String()
}

// typeOf maps a column type to its wire type.
func typeOf(t spansql.Type) *spannerpb.Type {
	codes := map[spansql.TypeBase]spannerpb.TypeCode{
		spansql.Bool: spannerpb.TypeCode_BOOL, spansql.Int64: spannerpb.TypeCode_INT64,
		spansql.Float64: spannerpb.TypeCode_FLOAT64,
		spansql.Numeric: spannerpb.TypeCode_NUMERIC, spansql.String: spannerpb.TypeCode_STRING,
		spansql.Bytes: spannerpb.TypeCode_BYTES, spansql.Date: spannerpb.TypeCode_DATE,
		spansql.Timestamp: spannerpb.TypeCode_TIMESTAMP, spansql.JSON: spannerpb.TypeCode_JSON,
		spansql.UUID: spannerpb.TypeCode_UUID,
	}
	st := &spannerpb.Type{Code: codes[t.Base]}
	if t.Array {
		return &spannerpb.Type{Code: spannerpb.TypeCode_ARRAY, ArrayElementType: st}
	}
	return st
}

// keyString is a canonical form of a key, for finding duplicates: INT64
// values are normalised ("007" and "7" are the same key).
func (t *table) keyString(key *structpb.ListValue) string {
	var b strings.Builder
	for k, v := range key.GetValues() {
		if k < len(t.pk) && t.cols[t.pk[k]].typ.Base == spansql.Int64 && !t.cols[t.pk[k]].typ.Array {
			if n, err := strconv.ParseInt(v.GetStringValue(), 10, 64); err == nil {
				v = structpb.NewStringValue(strconv.FormatInt(n, 10))
			}
		}
		b.WriteString(v.String())
		b.WriteByte(0)
	}
	return b.String()
}
