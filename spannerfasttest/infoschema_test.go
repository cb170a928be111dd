package spannerfasttest

import (
	"context"
	"slices"
	"strings"
	"testing"

	"cloud.google.com/go/spanner"
	"google.golang.org/api/iterator"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/types/known/structpb"
)

var isDDL = []string{
	`CREATE TABLE Singers (
		SingerId INT64 NOT NULL,
		Name STRING(100),
		Tags ARRAY<STRING(MAX)>,
		Data BYTES(MAX),
		Score FLOAT64 NOT NULL DEFAULT (0),
		CONSTRAINT CK_Score CHECK (Score >= 0),
	) PRIMARY KEY (SingerId)`,
	`CREATE TABLE Albums (
		SingerId INT64 NOT NULL,
		AlbumId INT64 NOT NULL,
		Title STRING(MAX),
		CONSTRAINT FK_Albums_Singers FOREIGN KEY (SingerId) REFERENCES Singers (SingerId),
	) PRIMARY KEY (SingerId, AlbumId DESC), INTERLEAVE IN PARENT Singers ON DELETE CASCADE`,
	`CREATE UNIQUE NULL_FILTERED INDEX SingersByName ON Singers (Name DESC) STORING (Score)`,
	`CREATE INDEX AlbumsByTitle ON Albums (Title), INTERLEAVE IN Singers`,
}

// The query shapes GORM's migrator and go-gorm-spanner send, with the
// driver's positional parameters.
const (
	hasTableSQL      = "SELECT count(*) FROM information_schema.tables WHERE table_schema = @p1 AND table_name = @p2 AND table_type = @p3"
	getTablesSQL     = "SELECT TABLE_NAME FROM information_schema.tables where TABLE_SCHEMA=@p1"
	hasColumnSQL     = "SELECT count(*) FROM INFORMATION_SCHEMA.columns WHERE table_schema = @p1 AND table_name = @p2 AND column_name = @p3"
	isGeneratedSQL   = "SELECT count(*) FROM INFORMATION_SCHEMA.columns WHERE table_schema = @p1 AND table_name = @p2 AND column_name = @p3 AND generation_expression IS NOT NULL"
	hasConstraintSQL = "SELECT count(*) FROM INFORMATION_SCHEMA.table_constraints WHERE constraint_schema = @p1 AND table_name = @p2 AND constraint_name = @p3"
	hasIndexSQL      = "SELECT count(*) FROM information_schema.indexes WHERE table_schema = @p1 AND table_name = @p2 AND index_name = @p3"
	getIndexesSQL    = `
	SELECT 
		i.index_name,
		i.is_unique,
		i.index_type,
		col.column_name,
	FROM
		information_schema.indexes i
		LEFT JOIN information_schema.index_columns ic ON ic.table_name = i.table_name AND ic.index_name = i.index_name
		LEFT JOIN information_schema.columns col ON col.column_name = ic.column_name AND col.table_name = ic.table_name
	WHERE 
		i.index_name IS NOT NULL
		AND i.table_schema = @p1
		AND i.table_name = @p2
	`
	columnTypesSQL = `
				SELECT COLUMN_NAME, COLUMN_DEFAULT, IS_NULLABLE = 'YES',
					   REGEXP_REPLACE(SPANNER_TYPE, '\\(.*\\)', '') AS DATA_TYPE,
					   SAFE_CAST(REPLACE(REPLACE(REGEXP_EXTRACT(SPANNER_TYPE, '\\(.*\\)'), '(', ''), ')', '') AS INT64) AS COLUMN_LENGTH,
					   (SELECT IF(I.INDEX_TYPE='PRIMARY_KEY', 'PRI', 'UNI')
						FROM INFORMATION_SCHEMA.INDEXES I
						INNER JOIN INFORMATION_SCHEMA.INDEX_COLUMNS IC USING (TABLE_CATALOG, TABLE_SCHEMA, TABLE_NAME, INDEX_NAME)
						WHERE IC.TABLE_CATALOG=C.TABLE_CATALOG AND IC.TABLE_SCHEMA=IC.TABLE_SCHEMA AND IC.COLUMN_NAME=C.COLUMN_NAME
						  AND I.IS_UNIQUE
						ORDER BY I.INDEX_TYPE
						LIMIT 1
					   ) AS KEY,
                    FROM INFORMATION_SCHEMA.COLUMNS C WHERE TABLE_SCHEMA = @p1 AND TABLE_NAME = @p2 ORDER BY ORDINAL_POSITION`
)

func isServer(t *testing.T) (*Server, *spanner.Client) {
	t.Helper()
	r := newRaw(t)
	if err := r.srv.CreateTables(context.Background(), isDDL...); err != nil {
		t.Fatal(err)
	}
	return r.srv, officialClient(t, r.srv)
}

// query runs a statement in a single-use transaction and renders each row
// as its values joined by "|" (NULL for null).
func query(c *spanner.Client, sql string, args ...string) ([]string, error) {
	st := spanner.Statement{SQL: sql, Params: map[string]any{}}
	for i, a := range args {
		st.Params["p"+string(rune('1'+i))] = a
	}
	it := c.Single().Query(context.Background(), st)
	defer it.Stop()
	var out []string
	for {
		row, err := it.Next()
		if err == iterator.Done {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		var vals []string
		for i := range row.Size() {
			var g spanner.GenericColumnValue
			if err := row.Column(i, &g); err != nil {
				return nil, err
			}
			vals = append(vals, render(g.Value))
		}
		out = append(out, strings.Join(vals, "|"))
	}
}

func render(v *structpb.Value) string {
	switch k := v.GetKind().(type) {
	case *structpb.Value_NullValue:
		return "NULL"
	case *structpb.Value_BoolValue:
		if k.BoolValue {
			return "true"
		}
		return "false"
	}
	return v.GetStringValue()
}

func wantQuery(t *testing.T, c *spanner.Client, sorted bool, sql string, args []string, want ...string) {
	t.Helper()
	got, err := query(c, sql, args...)
	if err != nil {
		t.Fatalf("%s %v: %v", sql, args, err)
	}
	if sorted {
		slices.Sort(got)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("%s %v:\n got %q\nwant %q", sql, args, got, want)
	}
}

func TestInfoSchemaMigratorQueries(t *testing.T) {
	_, c := isServer(t)
	for _, tc := range []struct {
		sql  string
		args []string
		want string
	}{
		{hasTableSQL, []string{"", "Singers", "BASE TABLE"}, "1"},
		{hasTableSQL, []string{"", "Albums", "BASE TABLE"}, "1"},
		{hasTableSQL, []string{"", "Nope", "BASE TABLE"}, "0"},
		{hasTableSQL, []string{"", "Singers", "VIEW"}, "0"},
		{hasColumnSQL, []string{"", "Singers", "Tags"}, "1"},
		{hasColumnSQL, []string{"", "Singers", "Title"}, "0"},
		{isGeneratedSQL, []string{"", "Singers", "Name"}, "0"},
		{hasConstraintSQL, []string{"", "Albums", "FK_Albums_Singers"}, "1"},
		{hasConstraintSQL, []string{"", "Singers", "CK_Score"}, "1"},
		{hasConstraintSQL, []string{"", "Singers", "PK_Singers"}, "1"},
		{hasConstraintSQL, []string{"", "Singers", "CK_IS_NOT_NULL_Singers_Score"}, "1"},
		{hasConstraintSQL, []string{"", "Singers", "FK_Albums_Singers"}, "0"},
		{hasIndexSQL, []string{"", "Singers", "SingersByName"}, "1"},
		{hasIndexSQL, []string{"", "Singers", "PRIMARY_KEY"}, "1"},
		{hasIndexSQL, []string{"", "Albums", "SingersByName"}, "0"},
	} {
		wantQuery(t, c, false, tc.sql, tc.args, tc.want)
	}
	wantQuery(t, c, true, getTablesSQL, []string{""}, "Albums", "Singers", "T")
	wantQuery(t, c, true, getIndexesSQL, []string{"", "Singers"},
		"PRIMARY_KEY|true|PRIMARY_KEY|SingerId", "SingersByName|true|INDEX|Name", "SingersByName|true|INDEX|Score")
	wantQuery(t, c, true, getIndexesSQL, []string{"", "Albums"},
		"AlbumsByTitle|false|INDEX|Title", "PRIMARY_KEY|true|PRIMARY_KEY|AlbumId", "PRIMARY_KEY|true|PRIMARY_KEY|SingerId")
	wantQuery(t, c, false, columnTypesSQL, []string{"", "Singers"},
		"SingerId|NULL|false|INT64|NULL|PRI",
		"Name|NULL|true|STRING|100|UNI",
		"Tags|NULL|true|ARRAY<STRING>|NULL|NULL",
		"Data|NULL|true|BYTES|NULL|NULL",
		"Score|0|false|FLOAT64|NULL|UNI")
}

func TestInfoSchemaRows(t *testing.T) {
	_, c := isServer(t)
	wantQuery(t, c, false, `SELECT TABLE_NAME, PARENT_TABLE_NAME, ON_DELETE_ACTION, TABLE_TYPE, SPANNER_STATE, INTERLEAVE_TYPE
		FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_CATALOG = '' AND TABLE_SCHEMA = '' ORDER BY TABLE_NAME`, nil,
		"Albums|Singers|CASCADE|BASE TABLE|COMMITTED|IN PARENT",
		"Singers|NULL|NULL|BASE TABLE|COMMITTED|NULL",
		"T|NULL|NULL|BASE TABLE|COMMITTED|NULL")
	wantQuery(t, c, false, `SELECT COLUMN_NAME, ORDINAL_POSITION, IS_NULLABLE, SPANNER_TYPE, COLUMN_DEFAULT, IS_GENERATED, DATA_TYPE
		FROM INFORMATION_SCHEMA.COLUMNS AS C WHERE C.TABLE_NAME = @p1 ORDER BY ORDINAL_POSITION DESC`, []string{"Singers"},
		"Score|5|NO|FLOAT64|0|NEVER|NULL",
		"Data|4|YES|BYTES(MAX)|NULL|NEVER|NULL",
		"Tags|3|YES|ARRAY<STRING(MAX)>|NULL|NEVER|NULL",
		"Name|2|YES|STRING(100)|NULL|NEVER|NULL",
		"SingerId|1|NO|INT64|NULL|NEVER|NULL")
	wantQuery(t, c, true, `SELECT TABLE_NAME, INDEX_NAME, INDEX_TYPE, PARENT_TABLE_NAME, IS_UNIQUE, IS_NULL_FILTERED, INDEX_STATE, SPANNER_IS_MANAGED
		FROM INFORMATION_SCHEMA.INDEXES`, nil,
		"Albums|AlbumsByTitle|INDEX|Singers|false|false|READ_WRITE|false",
		"Albums|PRIMARY_KEY|PRIMARY_KEY||true|false|NULL|false",
		"Singers|PRIMARY_KEY|PRIMARY_KEY||true|false|NULL|false",
		"Singers|SingersByName|INDEX||true|true|READ_WRITE|false",
		"T|PRIMARY_KEY|PRIMARY_KEY||true|false|NULL|false")
	wantQuery(t, c, false, `SELECT INDEX_NAME, COLUMN_NAME, ORDINAL_POSITION, COLUMN_ORDERING, IS_NULLABLE, SPANNER_TYPE
		FROM INFORMATION_SCHEMA.INDEX_COLUMNS WHERE TABLE_NAME IN ('Singers', 'Albums')
		ORDER BY TABLE_NAME, INDEX_NAME, ORDINAL_POSITION`, nil,
		"AlbumsByTitle|Title|1|ASC|YES|STRING(MAX)",
		"PRIMARY_KEY|SingerId|1|ASC|NO|INT64",
		"PRIMARY_KEY|AlbumId|2|DESC|NO|INT64",
		"PRIMARY_KEY|SingerId|1|ASC|NO|INT64",
		"SingersByName|Score|NULL|NULL|NO|FLOAT64",
		"SingersByName|Name|1|DESC|NO|STRING(100)")
	wantQuery(t, c, true, `SELECT CONSTRAINT_NAME, CONSTRAINT_TYPE, IS_DEFERRABLE, INITIALLY_DEFERRED, ENFORCED
		FROM INFORMATION_SCHEMA.TABLE_CONSTRAINTS WHERE TABLE_NAME = 'Albums'`, nil,
		"CK_IS_NOT_NULL_Albums_AlbumId|CHECK|NO|NO|YES",
		"CK_IS_NOT_NULL_Albums_SingerId|CHECK|NO|NO|YES",
		"FK_Albums_Singers|FOREIGN KEY|NO|NO|YES",
		"PK_Albums|PRIMARY KEY|NO|NO|YES")
	// LIMIT, OFFSET, LIKE and a select-list alias in ORDER BY.
	wantQuery(t, c, false, `SELECT LOWER(COLUMN_NAME) AS n FROM INFORMATION_SCHEMA.COLUMNS
		WHERE TABLE_NAME LIKE 'Sing%' ORDER BY n LIMIT 2 OFFSET 1`, nil, "name", "score")
}

func TestInfoSchemaFollowsDDL(t *testing.T) {
	srv, c := isServer(t)
	ctx := context.Background()
	err := srv.CreateTables(ctx,
		"ALTER TABLE Singers ADD COLUMN Country STRING(2)",
		"ALTER TABLE Singers DROP COLUMN Data",
		"DROP INDEX SingersByName",
		"ALTER TABLE Albums DROP CONSTRAINT FK_Albums_Singers")
	if err != nil {
		t.Fatal(err)
	}
	wantQuery(t, c, false, "SELECT COLUMN_NAME, ORDINAL_POSITION, IS_NULLABLE FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_NAME = @p1 ORDER BY ORDINAL_POSITION",
		[]string{"Singers"}, "SingerId|1|NO", "Name|2|YES", "Tags|3|YES", "Score|4|NO", "Country|5|YES")
	wantQuery(t, c, false, hasColumnSQL, []string{"", "Singers", "Data"}, "0")
	wantQuery(t, c, false, hasIndexSQL, []string{"", "Singers", "SingersByName"}, "0")
	wantQuery(t, c, false, hasConstraintSQL, []string{"", "Albums", "FK_Albums_Singers"}, "0")
	wantQuery(t, c, false, hasConstraintSQL, []string{"", "Singers", "CK_IS_NOT_NULL_Singers_Country"}, "0")
	wantQuery(t, c, true, getIndexesSQL, []string{"", "Singers"}, "PRIMARY_KEY|true|PRIMARY_KEY|SingerId")

	// A batch that fails part way keeps the statements before the failure,
	// as on Spanner.
	err = srv.CreateTables(ctx, "CREATE TABLE Extra (k INT64) PRIMARY KEY (k)", "CREATE TABLE Singers (k INT64) PRIMARY KEY (k)", "CREATE TABLE Never (k INT64) PRIMARY KEY (k)")
	if err == nil {
		t.Fatal("creating Singers twice succeeded")
	}
	wantQuery(t, c, true, getTablesSQL, []string{""}, "Albums", "Extra", "Singers", "T")

	if err := srv.CreateTables(ctx, "DROP INDEX AlbumsByTitle", "DROP TABLE Albums"); err != nil {
		t.Fatal(err)
	}
	wantQuery(t, c, false, hasTableSQL, []string{"", "Albums", "BASE TABLE"}, "0")
	wantQuery(t, c, false, "SELECT count(*) FROM INFORMATION_SCHEMA.INDEX_COLUMNS WHERE TABLE_NAME = 'Albums'", nil, "0")
}

func TestInfoSchemaRefusals(t *testing.T) {
	_, c := isServer(t)
	ctx := context.Background()
	for _, tc := range []struct {
		sql   string
		words []string
	}{
		{"SELECT * FROM INFORMATION_SCHEMA.SCHEMATA", []string{"INFORMATION_SCHEMA.SCHEMATA", "not supported"}},
		{"SELECT TABLE_NAME FROM INFORMATION_SCHEMA.TABLES GROUP BY TABLE_NAME", []string{"GROUP BY"}},
		{"SELECT a FROM T JOIN INFORMATION_SCHEMA.TABLES AS X ON X.TABLE_NAME = 'T'", []string{"mix", "T"}},
		{"SELECT FARM_FINGERPRINT(TABLE_NAME) FROM INFORMATION_SCHEMA.TABLES", []string{"FARM_FINGERPRINT"}},
		{"SELECT TABLE_NAME FROM INFORMATION_SCHEMA.TABLES FULL JOIN INFORMATION_SCHEMA.COLUMNS USING (TABLE_NAME)", []string{"join"}},
	} {
		_, err := query(c, tc.sql)
		wantCode(t, err, codes.Unimplemented, tc.words...)
	}
	_, err := query(c, "SELECT NOPE FROM INFORMATION_SCHEMA.TABLES")
	wantCode(t, err, codes.InvalidArgument, "NOPE")

	// As on Spanner, not in read-write transactions.
	_, err = c.ReadWriteTransaction(ctx, func(ctx context.Context, tx *spanner.ReadWriteTransaction) error {
		it := tx.Query(ctx, spanner.Statement{SQL: "SELECT TABLE_NAME FROM INFORMATION_SCHEMA.TABLES"})
		defer it.Stop()
		_, err := it.Next()
		return err
	})
	wantCode(t, err, codes.InvalidArgument, "read-write")

	// A string literal naming INFORMATION_SCHEMA is not a table reference:
	// the query goes to the engine.
	wantQuery(t, c, false, "SELECT 'information_schema.tables' AS s FROM T WHERE a = 1", nil)
	// Read-only transactions may query INFORMATION_SCHEMA.
	ro := c.ReadOnlyTransaction()
	defer ro.Close()
	it := ro.Query(ctx, spanner.Statement{SQL: "SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLES"})
	defer it.Stop()
	row, err := it.Next()
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	if err := row.Column(0, &n); err != nil || n != 3 {
		t.Fatalf("read-only count: %d, %v", n, err)
	}
}
