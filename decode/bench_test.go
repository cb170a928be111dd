package decode_test

import (
	"database/sql/driver"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spannerfast/spannerfast/decode"
)

// Benchmarks decode a result of benchRows rows from encoded messages, the
// way rows.Rows does (Merger, fast path when a message holds whole rows,
// RowDecoder). One op is the whole result; ns/row, B/row and allocs/row are
// reported as well.

const benchRows = 1000

func s16(i int) string { return fmt.Sprintf("name-%011d", i) }
func s64(i int) string { return fmt.Sprintf("%-54s%010d", "a somewhat longer string value", i) }

var narrowCols = []*spannerpb.StructType_Field{fld("id", tInt64), fld("name", tString), fld("score", tFloat64)}

func narrowRow(i int) []*structpb.Value {
	return vals(str(fmt.Sprint(1000000+i)), str(s16(i)), num(float64(i)*1.5))
}

var wideCols = []*spannerpb.StructType_Field{
	fld("id", tInt64), fld("s16", tString), fld("s64", tString), fld("f", tFloat64), fld("b", tBool),
	fld("ts", tTimestamp), fld("d", tDate), fld("by", tBytes), fld("n", tNumeric), fld("j", tJSON),
	fld("i2", tInt64), fld("s64b", tString), fld("s16b", tString), fld("f2", tFloat64),
	fld("ai", arrayOf(tInt64)), fld("s64c", tString),
}

func wideRow(i int) []*structpb.Value {
	b24 := base64.StdEncoding.EncodeToString([]byte(fmt.Sprintf("%024d", i)))
	return vals(str(fmt.Sprint(i)), str(s16(i)), str(s64(i)), num(float64(i)/3), boolv(i%2 == 0),
		str("2024-02-29T12:34:56.123456Z"), str("2024-02-29"), str(b24), str("12345.678901"), str(`{"a":1,"b":"x"}`),
		str(fmt.Sprint(-i)), str(s64(i+1)), str(s16(i+1)), num(0.25),
		list(str("1"), str("22"), str("333"), str("4444")), str(s64(i+2)))
}

// pgWideCols is the wide row as a PostgreSQL-dialect database types it:
// numeric is PG_NUMERIC, jsonb PG_JSONB and the second bigint an oid
// (PG_OID); the other types carry no annotation. Its rows are wideRow's.
var pgWideCols = func() []*spannerpb.StructType_Field {
	cols := append([]*spannerpb.StructType_Field(nil), wideCols...)
	cols[8], cols[9], cols[10] = fld("n", tPGNumeric), fld("j", tPGJSONB), fld("i2", tPGOID)
	return cols
}()

// benchStream lays out the rows: "single" in one message, "many" one row
// per message, "chunked" one message per row with every boundary cutting a
// STRING value in two (chunked_value).
func benchStream(cols []*spannerpb.StructType_Field, row func(int) []*structpb.Value, layout string) [][]byte {
	m := metadataOf(cols...)
	switch layout {
	case "single":
		var all []*structpb.Value
		for i := range benchRows {
			all = append(all, row(i)...)
		}
		return [][]byte{prs(&spannerpb.PartialResultSet{Metadata: m, Values: all})}
	case "many":
		msgs := [][]byte{prs(&spannerpb.PartialResultSet{Metadata: m})}
		for i := range benchRows {
			msgs = append(msgs, prs(&spannerpb.PartialResultSet{Values: row(i), ResumeToken: []byte("tok")}))
		}
		return msgs
	case "chunked":
		cut := 1 // the first STRING column
		for cols[cut].GetType().GetCode() != spannerpb.TypeCode_STRING {
			cut++
		}
		msgs := [][]byte{}
		cur := &spannerpb.PartialResultSet{Metadata: m}
		for i := range benchRows {
			vs := row(i)
			s := vs[cut].GetStringValue()
			cur.Values = append(cur.Values, vs[:cut]...)
			cur.Values = append(cur.Values, str(s[:len(s)/2]))
			cur.ChunkedValue = true
			msgs = append(msgs, prs(cur))
			cur = &spannerpb.PartialResultSet{Values: append(vals(str(s[len(s)/2:])), vs[cut+1:]...)}
		}
		return append(msgs, prs(cur))
	}
	panic(layout)
}

// benchDecode decodes msgs; it is the loop of rows.Rows.Next.
func benchDecode(b *testing.B, msgs [][]byte, o decode.Options) {
	var m decode.Merger
	if err := m.Load(msgs[0]); err != nil {
		b.Fatal(err)
	}
	md, err := decode.ParseMetadata(m.Message().Metadata)
	if err != nil {
		b.Fatal(err)
	}
	p, err := decode.PlanFor(md.RowType, o)
	if err != nil {
		b.Fatal(err)
	}
	d := decode.NewRowDecoder(p, false)
	n := len(p.Columns)
	row := make([][]byte, n)
	dest := make([]driver.Value, n)
	size := 0
	for _, msg := range msgs {
		size += len(msg)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	b.ResetTimer()
	rows := 0
	for range b.N {
		next := 1
		if err := m.Load(msgs[0]); err != nil {
			b.Fatal(err)
		}
		for {
			if m.Simple() && m.Remaining() >= n {
				m.NextRow(row)
			} else {
				got := 0
				for got < n {
					v, ok, err := m.Next()
					if err != nil {
						b.Fatal(err)
					}
					if ok {
						row[got] = v
						got++
						continue
					}
					if next == len(msgs) {
						break
					}
					if err := m.Load(msgs[next]); err != nil {
						b.Fatal(err)
					}
					next++
				}
				if got < n {
					break
				}
			}
			if err := d.Decode(row, dest); err != nil {
				b.Fatal(err)
			}
			rows++
		}
	}
	b.StopTimer()
	if rows != b.N*benchRows {
		b.Fatalf("decoded %d rows, want %d", rows, b.N*benchRows)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(rows), "ns/row")
}

func BenchmarkDecode(b *testing.B) {
	shapes := []struct {
		name string
		cols []*spannerpb.StructType_Field
		row  func(int) []*structpb.Value
	}{
		{"narrow", narrowCols, narrowRow},
		{"wide", wideCols, wideRow},
		// The same values as wide from a PostgreSQL-dialect database; its
		// GoogleSQL counterpart is wide with NumericAsString (PG_NUMERIC is
		// its text, as go-sql-spanner returns it).
		{"pgwide", pgWideCols, wideRow},
	}
	for _, sh := range shapes {
		for _, layout := range []string{"single", "many", "chunked"} {
			msgs := benchStream(sh.cols, sh.row, layout)
			modes := []struct {
				name string
				o    decode.Options
			}{{"safe", decode.Options{}}, {"raw", decode.Options{Raw: true}}}
			if sh.name == "wide" {
				modes = append(modes, modes[0], modes[1])
				modes[2].name, modes[2].o.NumericAsString = "safe-numtext", true
				modes[3].name, modes[3].o.NumericAsString = "raw-numtext", true
			}
			for _, mode := range modes {
				b.Run(sh.name+"/"+layout+"/"+mode.name, func(b *testing.B) {
					benchDecode(b, msgs, mode.o)
				})
			}
		}
	}
}

// BenchmarkPlanFor: a cache hit versus building the plan of the wide row
// type (a distinct column name each time, so every lookup misses).
func BenchmarkPlanFor(b *testing.B) {
	cols := append([]*spannerpb.StructType_Field{fld("c00000000", tInt64)}, wideCols[1:]...)
	rt := rowType(cols...)
	at := strings.Index(string(rt), "c00000000") + 1
	b.Run("hit", func(b *testing.B) {
		if _, err := decode.PlanFor(rt, decode.Options{}); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for range b.N {
			if _, err := decode.PlanFor(rt, decode.Options{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("miss", func(b *testing.B) {
		buf := append([]byte(nil), rt...)
		b.ReportAllocs()
		for i := range b.N {
			copy(buf[at:], fmt.Sprintf("%08d", i%100000000))
			if _, err := decode.PlanFor(buf, decode.Options{NativeArrays: true}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkColumn decodes one value of each type of the wide row: what each
// column costs.
// The PostgreSQL-annotated columns are named PG_*.
func BenchmarkColumn(b *testing.B) {
	row := wideRow(7)
	seen := map[string]bool{}
	cols := append(append([]*spannerpb.StructType_Field(nil), wideCols...), pgWideCols[8:11]...)
	row = append(row, row[8:11]...)
	for i, c := range cols {
		name := decode.TypeName(c.GetType())
		if c.GetType() == tPGOID {
			name = "PG_OID"
		}
		if seen[name] {
			continue
		}
		seen[name] = true
		in := [][]byte{enc(row[i])}
		for _, raw := range []bool{false, true} {
			mode := "safe"
			if raw {
				mode = "raw"
			}
			b.Run(name+"/"+mode, func(b *testing.B) {
				d := decode.NewRowDecoder(mustPlan(b, decode.Options{Raw: raw}, fld("c", c.GetType())), false)
				dest := make([]driver.Value, 1)
				b.ReportAllocs()
				for range b.N {
					if err := d.Decode(in, dest); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
