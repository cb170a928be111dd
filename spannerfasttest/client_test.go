package spannerfasttest

import (
	"context"
	"testing"

	"cloud.google.com/go/spanner"
	"google.golang.org/api/iterator"
	"google.golang.org/api/option"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
)

// officialClient connects the official client to the server.
func officialClient(t *testing.T, srv *Server) *spanner.Client {
	t.Helper()
	// Emulator mode keeps the client from probing the metadata server.
	t.Setenv("SPANNER_EMULATOR_HOST", srv.Addr())
	c, err := spanner.NewClientWithConfig(context.Background(), srv.DatabasePath(), spanner.ClientConfig{DisableNativeMetrics: true},
		option.WithEndpoint(srv.Addr()), option.WithoutAuthentication(),
		option.WithGRPCDialOption(grpc.WithTransportCredentials(insecure.NewCredentials())))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func TestOfficialClient(t *testing.T) {
	r := newRaw(t)
	ctx := context.Background()
	c := officialClient(t, r.srv)
	_, err := c.ReadWriteTransaction(ctx, func(ctx context.Context, tx *spanner.ReadWriteTransaction) error {
		n, err := tx.Update(ctx, spanner.Statement{SQL: "INSERT INTO T (b, a) VALUES (@b1, @a1), (@b2, @a2)",
			Params: map[string]any{"a1": int64(1), "b1": "one", "a2": int64(2), "b2": "two"}})
		if err != nil || n != 2 {
			t.Errorf("insert: %d, %v", n, err)
		}
		counts, err := tx.BatchUpdate(ctx, []spanner.Statement{
			{SQL: "INSERT OR IGNORE INTO T (a, b) VALUES (2, 'dup'), (3, 'three')"},
			{SQL: "UPDATE T SET c = 0.5 WHERE a <= 2"},
		})
		if err != nil || len(counts) != 2 || counts[0] != 1 || counts[1] != 2 {
			t.Errorf("batch: %v, %v", counts, err)
		}
		return tx.BufferWrite([]*spanner.Mutation{spanner.InsertOrUpdate("T", []string{"a", "b"}, []any{int64(4), "four"})})
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Apply(ctx, []*spanner.Mutation{spanner.Insert("T", []string{"a", "b"}, []any{int64(5), "five"})}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Apply(ctx, []*spanner.Mutation{spanner.Insert("T", []string{"a"}, []any{int64(6)})}, spanner.ApplyAtLeastOnce()); err != nil {
		t.Fatal(err)
	}
	n, err := c.PartitionedUpdate(ctx, spanner.Statement{SQL: "UPDATE T SET b = 'pdml' WHERE a >= 5"})
	if err != nil || n != 2 {
		t.Fatalf("partitioned update: %d, %v", n, err)
	}
	ro := c.ReadOnlyTransaction()
	defer ro.Close()
	var got []string
	it := ro.Query(ctx, spanner.Statement{SQL: "SELECT a, b FROM T ORDER BY a"})
	err = it.Do(func(row *spanner.Row) error {
		var a int64
		var b spanner.NullString
		if err := row.Columns(&a, &b); err != nil {
			return err
		}
		got = append(got, b.String())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"one", "two", "three", "four", "pdml", "pdml"}
	if len(got) != len(want) {
		t.Fatalf("rows %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("rows %q, want %q", got, want)
		}
	}
	row, err := ro.ReadRow(ctx, "T", spanner.Key{int64(1)}, []string{"c"})
	if err != nil {
		t.Fatal(err)
	}
	var cval float64
	if err := row.Columns(&cval); err != nil || cval != 0.5 {
		t.Fatalf("c = %v, %v", cval, err)
	}
	// A failing first statement: the client retries with an explicit
	// BeginTransaction and gets the statement's own error.
	_, err = c.ReadWriteTransaction(ctx, func(ctx context.Context, tx *spanner.ReadWriteTransaction) error {
		_, err := tx.Update(ctx, spanner.NewStatement("INSERT INTO T (a) VALUES (1)"))
		return err
	})
	if spanner.ErrCode(err) != codes.AlreadyExists {
		t.Fatalf("duplicate insert: %v", err)
	}
	iter := c.Single().Query(ctx, spanner.NewStatement("SELECT COUNT(*) FROM T"))
	defer iter.Stop()
	cr, err := iter.Next()
	if err != nil {
		t.Fatal(err)
	}
	var count int64
	if err := cr.Columns(&count); err != nil || count != 6 {
		t.Fatalf("count %d, %v", count, err)
	}
	if _, err := iter.Next(); err != iterator.Done {
		t.Fatalf("extra row: %v", err)
	}
}
