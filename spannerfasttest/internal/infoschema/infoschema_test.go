package infoschema

import (
	"slices"
	"strings"
	"testing"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"cloud.google.com/go/spanner/spansql"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"
)

// fixed is a Catalog that always gives the same Schema.
type fixed Schema

func (f fixed) Schema() Schema { return Schema(f) }

var _ Catalog = fixed{}

// schemaOf builds a Schema from CREATE TABLE and CREATE INDEX statements,
// as the server's catalog would keep it.
func schemaOf(t *testing.T, ddl string) Schema {
	t.Helper()
	parsed, err := spansql.ParseDDL("test", ddl)
	if err != nil {
		t.Fatal(err)
	}
	var s Schema
	for _, stmt := range parsed.List {
		switch st := stmt.(type) {
		case *spansql.CreateTable:
			tb := Table{Name: string(st.Name), Columns: st.Columns, PrimaryKey: st.PrimaryKey, Interleave: st.Interleave}
			for _, c := range st.Constraints {
				switch c.Constraint.(type) {
				case spansql.Check:
					tb.Checks = append(tb.Checks, string(c.Name))
				case spansql.ForeignKey:
					tb.ForeignKeys = append(tb.ForeignKeys, ForeignKey{Name: string(c.Name), Referenced: string(c.Constraint.(spansql.ForeignKey).RefTable)})
				}
			}
			s.Tables = append(s.Tables, tb)
		case *spansql.CreateIndex:
			s.Indexes = append(s.Indexes, st)
		case *spansql.CreateView:
			s.Views = append(s.Views, string(st.Name))
		}
	}
	return s
}

const testDDL = `
CREATE TABLE Singers (
	SingerId INT64 NOT NULL,
	Name STRING(100),
	CONSTRAINT CK_Name CHECK (Name != ''),
) PRIMARY KEY (SingerId);
CREATE TABLE Albums (
	SingerId INT64 NOT NULL,
	AlbumId INT64 NOT NULL,
	CONSTRAINT FK_Singer FOREIGN KEY (SingerId) REFERENCES Singers (SingerId),
) PRIMARY KEY (SingerId, AlbumId), INTERLEAVE IN PARENT Singers ON DELETE CASCADE;
CREATE UNIQUE INDEX SingersByName ON Singers (Name DESC);
`

// answer runs sql with string parameters p1, p2, ... and renders each row
// as its values joined by "|" (NULL for null).
func answer(t *testing.T, s Schema, sql string, args ...string) ([]string, error) {
	t.Helper()
	q, ok := Prepare(sql)
	if !ok {
		t.Fatalf("Prepare(%q): not an INFORMATION_SCHEMA query", sql)
	}
	params := &structpb.Struct{Fields: map[string]*structpb.Value{}}
	for i, a := range args {
		params.Fields["p"+string(rune('1'+i))] = structpb.NewStringValue(a)
	}
	p, err := q.Answer(params, nil, fixed(s))
	if err != nil {
		return nil, err
	}
	n := len(p.GetMetadata().GetRowType().GetFields())
	var rows []string
	for i := 0; i < len(p.GetValues()); i += n {
		var vals []string
		for _, v := range p.GetValues()[i : i+n] {
			switch k := v.GetKind().(type) {
			case *structpb.Value_NullValue:
				vals = append(vals, "NULL")
			case *structpb.Value_BoolValue:
				vals = append(vals, map[bool]string{true: "true", false: "false"}[k.BoolValue])
			default:
				vals = append(vals, v.GetStringValue())
			}
		}
		rows = append(rows, strings.Join(vals, "|"))
	}
	return rows, nil
}

func wantRows(t *testing.T, s Schema, sql string, args []string, want ...string) {
	t.Helper()
	got, err := answer(t, s, sql, args...)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("%s:\n got %q\nwant %q", sql, got, want)
	}
}

func TestPrepareRecognisesOnlyTableReferences(t *testing.T) {
	for _, sql := range []string{
		"SELECT 1",
		"SELECT 'information_schema.tables' FROM T",
		"SELECT `INFORMATION_SCHEMA.TABLES` FROM T",
		"SELECT information_schema FROM T",
	} {
		if _, ok := Prepare(sql); ok {
			t.Errorf("Prepare(%q) recognised an INFORMATION_SCHEMA query", sql)
		}
	}
	for _, sql := range []string{
		"SELECT * FROM information_schema.tables",
		"SELECT * FROM INFORMATION_SCHEMA . COLUMNS c",
	} {
		if _, ok := Prepare(sql); !ok {
			t.Errorf("Prepare(%q) did not recognise an INFORMATION_SCHEMA query", sql)
		}
	}
}

func TestRewriteInfoSchema(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"SELECT a, FROM information_schema.tables t WHERE x",
			"SELECT a  FROM `INFORMATION_SCHEMA.TABLES` AS t WHERE (x = TRUE)"},
		{"SELECT 1 FROM INFORMATION_SCHEMA.INDEXES AS I WHERE I.IS_UNIQUE AND 'information_schema.x' = ''",
			"SELECT 1 FROM `INFORMATION_SCHEMA.INDEXES` AS I WHERE (I.IS_UNIQUE = TRUE) AND 'information_schema.x' = ''"},
	} {
		got, ok := rewriteInfoSchema(tc.in)
		if !ok || got != tc.want {
			t.Errorf("rewriteInfoSchema(%q) = %q, %v\nwant %q", tc.in, got, ok, tc.want)
		}
	}
}

func TestAnswerFromSchema(t *testing.T) {
	s := schemaOf(t, testDDL)
	s.Views = []string{"V"}
	wantRows(t, s, "SELECT TABLE_NAME, PARENT_TABLE_NAME, ON_DELETE_ACTION, TABLE_TYPE FROM INFORMATION_SCHEMA.TABLES", nil,
		"Singers|NULL|NULL|BASE TABLE", "Albums|Singers|CASCADE|BASE TABLE", "V|NULL|NULL|VIEW")
	wantRows(t, s, "SELECT COLUMN_NAME, ORDINAL_POSITION, IS_NULLABLE, SPANNER_TYPE FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_NAME = @p1",
		[]string{"Singers"}, "SingerId|1|NO|INT64", "Name|2|YES|STRING(100)")
	wantRows(t, s, "SELECT INDEX_NAME, COLUMN_NAME, ORDINAL_POSITION, COLUMN_ORDERING FROM INFORMATION_SCHEMA.INDEX_COLUMNS WHERE TABLE_NAME = 'Singers' ORDER BY INDEX_NAME",
		nil, "PRIMARY_KEY|SingerId|1|ASC", "SingersByName|Name|1|DESC")
	wantRows(t, s, "SELECT CONSTRAINT_NAME, CONSTRAINT_TYPE FROM INFORMATION_SCHEMA.TABLE_CONSTRAINTS ORDER BY CONSTRAINT_NAME", nil,
		"CK_IS_NOT_NULL_Albums_AlbumId|CHECK", "CK_IS_NOT_NULL_Albums_SingerId|CHECK", "CK_IS_NOT_NULL_Singers_SingerId|CHECK",
		"CK_Name|CHECK", "FK_Singer|FOREIGN KEY", "PK_Albums|PRIMARY KEY", "PK_Singers|PRIMARY KEY")
	wantRows(t, s, "SELECT TABLE_NAME, CONSTRAINT_NAME FROM INFORMATION_SCHEMA.CONSTRAINT_TABLE_USAGE ORDER BY CONSTRAINT_NAME", nil,
		"Singers|FK_Singer", "Albums|PK_Albums", "Singers|PK_Singers")
	wantRows(t, s, "SELECT COUNT(*) FROM INFORMATION_SCHEMA.INDEXES i WHERE i.IS_UNIQUE AND i.TABLE_NAME = @p1", []string{"Singers"}, "2")
	wantRows(t, s, `SELECT C.COLUMN_NAME, (SELECT IF(I.INDEX_TYPE = 'PRIMARY_KEY', 'PRI', 'UNI') FROM INFORMATION_SCHEMA.INDEXES I
		INNER JOIN INFORMATION_SCHEMA.INDEX_COLUMNS IC USING (TABLE_NAME, INDEX_NAME)
		WHERE IC.COLUMN_NAME = C.COLUMN_NAME AND I.IS_UNIQUE ORDER BY I.INDEX_TYPE LIMIT 1) AS KEY
		FROM INFORMATION_SCHEMA.COLUMNS C WHERE TABLE_NAME = 'Singers' ORDER BY ORDINAL_POSITION`, nil,
		"SingerId|PRI", "Name|UNI")
}

func TestAnswerErrors(t *testing.T) {
	s := schemaOf(t, testDDL)
	for _, tc := range []struct {
		sql  string
		code codes.Code
		word string
	}{
		{"SELECT * FROM INFORMATION_SCHEMA.SCHEMATA", codes.Unimplemented, "SCHEMATA"},
		{"SELECT TABLE_NAME FROM INFORMATION_SCHEMA.TABLES GROUP BY TABLE_NAME", codes.Unimplemented, "GROUP BY"},
		{"SELECT TABLE_NAME FROM INFORMATION_SCHEMA.TABLES WHERE", codes.Unimplemented, "not supported here"},
		{"SELECT NOPE FROM INFORMATION_SCHEMA.TABLES", codes.InvalidArgument, "NOPE"},
		{"SELECT TABLE_NAME FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_NAME = 1", codes.InvalidArgument, "no matching signature"},
		{"SELECT TABLE_NAME FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_NAME = @missing", codes.InvalidArgument, "@missing"},
		{"SELECT TABLE_NAME FROM INFORMATION_SCHEMA.TABLES LIMIT @p1", codes.InvalidArgument, "LIMIT"},
	} {
		_, err := answer(t, s, tc.sql, "x")
		if status.Code(err) != tc.code || !strings.Contains(err.Error(), tc.word) || !strings.Contains(err.Error(), "spannerfasttest: ") {
			t.Errorf("%s: %v, want %v naming %q", tc.sql, err, tc.code, tc.word)
		}
	}
	q, _ := Prepare("SELECT 1 FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_NAME = @p1")
	_, err := q.Answer(&structpb.Struct{Fields: map[string]*structpb.Value{"p1": structpb.NewStringValue("x")}},
		map[string]*spannerpb.Type{"p1": {Code: spannerpb.TypeCode_FLOAT64}}, fixed(s))
	if status.Code(err) != codes.Unimplemented || !strings.Contains(err.Error(), "@p1") {
		t.Errorf("FLOAT64 parameter: %v", err)
	}
}
