package wire

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/structpb"
)

// TestEncoderKnowsEveryField fails when the generated types gain a field
// that AppendExecuteSQL does not write (it would be dropped silently):
// extend the encoder, then the lists here.
func TestEncoderKnowsEveryField(t *testing.T) {
	for _, c := range []struct {
		m    proto.Message
		want []protoreflect.FieldNumber
	}{
		{&spannerpb.ExecuteSqlRequest{}, []protoreflect.FieldNumber{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 15, 16, 17, 18}},
		{&spannerpb.ExecuteBatchDmlRequest{}, []protoreflect.FieldNumber{1, 2, 3, 4, 5, 6}},
		{&spannerpb.ExecuteBatchDmlRequest_Statement{}, []protoreflect.FieldNumber{1, 2, 3}},
		{&spannerpb.RequestOptions{}, []protoreflect.FieldNumber{1, 2, 3, 4}},
		{&spannerpb.Type{}, []protoreflect.FieldNumber{1, 2, 3, 4, 5}},
		{&spannerpb.StructType{}, []protoreflect.FieldNumber{1}},
		{&spannerpb.StructType_Field{}, []protoreflect.FieldNumber{1, 2}},
		{&structpb.Struct{}, []protoreflect.FieldNumber{1}},
		{&structpb.Value{}, []protoreflect.FieldNumber{1, 2, 3, 4, 5, 6}},
		{&structpb.ListValue{}, []protoreflect.FieldNumber{1}},
	} {
		fs := c.m.ProtoReflect().Descriptor().Fields()
		var got []protoreflect.FieldNumber
		for i := range fs.Len() {
			got = append(got, fs.Get(i).Number())
		}
		slices.Sort(got)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s has fields %v, the encoder writes %v", c.m.ProtoReflect().Descriptor().FullName(), got, c.want)
		}
	}
}

// TestAppendExecuteSQLProperty: random requests, every field in play,
// decode to the same message, and equal proto.Marshal's bytes when no map
// has two entries (map order is the only freedom).
func TestAppendExecuteSQLProperty(t *testing.T) {
	for seed := range 3000 {
		rng := rand.New(rand.NewPCG(uint64(seed), 11))
		req := randomRequest(rng)
		got, err := AppendExecuteSQL(nil, req)
		if err != nil {
			t.Fatal(err)
		}
		var back spannerpb.ExecuteSqlRequest
		if err := proto.Unmarshal(got, &back); err != nil {
			t.Fatalf("seed %d: our encoding does not parse: %v", seed, err)
		}
		if !proto.Equal(&back, req) {
			t.Fatalf("seed %d: decodes to\n%v\nwant\n%v", seed, &back, req)
		}
		if len(req.Params.GetFields()) < 2 && len(req.ParamTypes) < 2 && !nestedMaps(req) {
			want, err := proto.Marshal(req)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Fatalf("seed %d: bytes differ from proto.Marshal\n got %x\nwant %x", seed, got, want)
			}
		}
	}
}

// TestAppendExecuteBatchDMLProperty: random batches, every field in play,
// decode to the same message, and equal proto.Marshal's bytes when no map
// has two entries.
func TestAppendExecuteBatchDMLProperty(t *testing.T) {
	for seed := range 2000 {
		rng := rand.New(rand.NewPCG(uint64(seed), 12))
		req := &spannerpb.ExecuteBatchDmlRequest{Seqno: rng.Int64N(1<<40) - 1<<20, LastStatements: rng.IntN(2) == 0}
		oneEntry := true
		for range rng.IntN(4) {
			q := randomRequest(rng)
			req.Session, req.Transaction, req.RequestOptions = q.Session, q.Transaction, q.RequestOptions
			req.Statements = append(req.Statements, &spannerpb.ExecuteBatchDmlRequest_Statement{Sql: q.Sql, Params: q.Params, ParamTypes: q.ParamTypes})
			oneEntry = oneEntry && len(q.Params.GetFields()) < 2 && len(q.ParamTypes) < 2 && !nestedMaps(q)
		}
		got, err := AppendExecuteBatchDML(nil, req)
		if err != nil {
			t.Fatal(err)
		}
		var back spannerpb.ExecuteBatchDmlRequest
		if err := proto.Unmarshal(got, &back); err != nil {
			t.Fatalf("seed %d: our encoding does not parse: %v", seed, err)
		}
		if !proto.Equal(&back, req) {
			t.Fatalf("seed %d: decodes to\n%v\nwant\n%v", seed, &back, req)
		}
		if oneEntry {
			want, err := proto.Marshal(req)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Fatalf("seed %d: bytes differ from proto.Marshal\n got %x\nwant %x", seed, got, want)
			}
		}
	}
}

// nestedMaps reports a struct parameter value with more than one field.
func nestedMaps(req *spannerpb.ExecuteSqlRequest) bool {
	var walk func(v *structpb.Value) bool
	walk = func(v *structpb.Value) bool {
		switch k := v.GetKind().(type) {
		case *structpb.Value_StructValue:
			if len(k.StructValue.GetFields()) > 1 {
				return true
			}
			for _, f := range k.StructValue.GetFields() {
				if walk(f) {
					return true
				}
			}
		case *structpb.Value_ListValue:
			for _, e := range k.ListValue.GetValues() {
				if walk(e) {
					return true
				}
			}
		}
		return false
	}
	for _, v := range req.Params.GetFields() {
		if walk(v) {
			return true
		}
	}
	return false
}

func randomRequest(rng *rand.Rand) *spannerpb.ExecuteSqlRequest {
	pick := func() bool { return rng.IntN(2) == 0 }
	req := &spannerpb.ExecuteSqlRequest{}
	if pick() {
		req.Session = "projects/p/instances/i/databases/d/sessions/s" + fmt.Sprint(rng.IntN(10))
	}
	if pick() {
		req.Sql = "SELECT * FROM T WHERE a = @p1" + string(rune(rng.IntN(0x10000)))
	}
	if pick() {
		req.Transaction = &spannerpb.TransactionSelector{Selector: &spannerpb.TransactionSelector_SingleUse{
			SingleUse: &spannerpb.TransactionOptions{Mode: &spannerpb.TransactionOptions_ReadOnly_{
				ReadOnly: &spannerpb.TransactionOptions_ReadOnly{ReturnReadTimestamp: pick(),
					TimestampBound: &spannerpb.TransactionOptions_ReadOnly_MaxStaleness{MaxStaleness: durationpb.New(1e9)}}}}}}
	}
	if pick() {
		req.Params = &structpb.Struct{Fields: map[string]*structpb.Value{}}
		for i := range rng.IntN(4) {
			req.Params.Fields[fmt.Sprintf("p%d", i+1)] = randomValue(rng, 2)
		}
	}
	if pick() {
		req.ParamTypes = map[string]*spannerpb.Type{}
		for i := range rng.IntN(4) {
			req.ParamTypes[fmt.Sprintf("p%d", i+1)] = randomType(rng, 2)
		}
	}
	if pick() {
		req.ResumeToken = []byte{byte(rng.IntN(256)), 0, 1}
	}
	if pick() {
		req.QueryMode = spannerpb.ExecuteSqlRequest_QueryMode(rng.IntN(4))
	}
	if pick() {
		req.PartitionToken = []byte("partition")
	}
	if pick() {
		req.Seqno = rng.Int64N(1<<40) - 1<<20 // negative too
	}
	if pick() {
		req.QueryOptions = &spannerpb.ExecuteSqlRequest_QueryOptions{OptimizerVersion: "5", OptimizerStatisticsPackage: "p"}
	}
	if pick() {
		req.RequestOptions = &spannerpb.RequestOptions{Priority: spannerpb.RequestOptions_Priority(rng.IntN(4))}
		if pick() {
			req.RequestOptions.RequestTag = "tag"
		}
		if pick() {
			req.RequestOptions.TransactionTag = "txtag"
		}
	}
	if pick() {
		req.DirectedReadOptions = &spannerpb.DirectedReadOptions{Replicas: &spannerpb.DirectedReadOptions_IncludeReplicas_{
			IncludeReplicas: &spannerpb.DirectedReadOptions_IncludeReplicas{AutoFailoverDisabled: true}}}
	}
	req.DataBoostEnabled = pick()
	req.LastStatement = pick()
	if pick() {
		req.RoutingHint = &spannerpb.RoutingHint{Key: []byte("k")}
	}
	return req
}

func randomValue(rng *rand.Rand, depth int) *structpb.Value {
	switch n := rng.IntN(7); {
	case n == 0:
		return structpb.NewNullValue()
	case n == 1:
		return structpb.NewNumberValue([]float64{0, -0.5, math.Inf(1), math.NaN(), 1e300}[rng.IntN(5)])
	case n == 2:
		return structpb.NewStringValue([]string{"", "1", "héllo"}[rng.IntN(3)])
	case n == 3:
		return structpb.NewBoolValue(rng.IntN(2) == 0)
	case n == 4 && depth > 0:
		l := &structpb.ListValue{}
		for range rng.IntN(3) {
			l.Values = append(l.Values, randomValue(rng, depth-1))
		}
		return structpb.NewListValue(l)
	case n == 5 && depth > 0:
		s := &structpb.Struct{Fields: map[string]*structpb.Value{}}
		for i := range rng.IntN(2) {
			s.Fields[fmt.Sprint("f", i)] = randomValue(rng, depth-1)
		}
		return structpb.NewStructValue(s)
	}
	return &structpb.Value{} // no kind set
}

func randomType(rng *rand.Rand, depth int) *spannerpb.Type {
	t := &spannerpb.Type{Code: spannerpb.TypeCode(rng.IntN(16))}
	switch rng.IntN(4) {
	case 0:
		if depth > 0 {
			t.ArrayElementType = randomType(rng, depth-1)
		}
	case 1:
		if depth > 0 {
			t.StructType = &spannerpb.StructType{Fields: []*spannerpb.StructType_Field{
				{Name: "a", Type: randomType(rng, depth-1)}, {Name: ""}}}
		}
	case 2:
		t.TypeAnnotation = spannerpb.TypeAnnotationCode(rng.IntN(4))
		t.ProtoTypeFqn = "pkg.Msg"
	}
	return t
}

// pointRequest is an autocommit point read's request with one parameter.
func pointRequest() *spannerpb.ExecuteSqlRequest {
	return &spannerpb.ExecuteSqlRequest{
		Session: "projects/p/instances/i/databases/d/sessions/0123456789abcdef",
		Sql:     "SELECT SingerId, FirstName, LastName FROM Singers WHERE SingerId = @p1",
		Transaction: &spannerpb.TransactionSelector{Selector: &spannerpb.TransactionSelector_SingleUse{
			SingleUse: &spannerpb.TransactionOptions{Mode: &spannerpb.TransactionOptions_ReadOnly_{
				ReadOnly: &spannerpb.TransactionOptions_ReadOnly{ReturnReadTimestamp: true,
					TimestampBound: &spannerpb.TransactionOptions_ReadOnly_Strong{Strong: true}}}}}},
		Params:         &structpb.Struct{Fields: map[string]*structpb.Value{"p1": structpb.NewStringValue("42")}},
		ParamTypes:     map[string]*spannerpb.Type{"p1": {Code: spannerpb.TypeCode_INT64}},
		QueryOptions:   &spannerpb.ExecuteSqlRequest_QueryOptions{},
		RequestOptions: &spannerpb.RequestOptions{},
	}
}

func BenchmarkEncodeRequest(b *testing.B) {
	req := pointRequest()
	buf := make([]byte, 0, requestBufferSize)
	b.Run("AppendExecuteSQL", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := AppendExecuteSQL(buf[:0], req); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("proto.MarshalAppend", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := (proto.MarshalOptions{}).MarshalAppend(buf[:0], req); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestAppendExecuteSQLAllocs: encoding a point read's request into a buffer
// with room allocates nothing (README "Performance").
func TestAppendExecuteSQLAllocs(t *testing.T) {
	req := pointRequest()
	buf := make([]byte, 0, requestBufferSize)
	if a := testing.AllocsPerRun(100, func() {
		if _, err := AppendExecuteSQL(buf[:0], req); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Errorf("%v allocations per request, want 0", a)
	}
}

// batchRequest is a DML batch of ten INSERTs of three parameters each, as
// cmd/spannerfast-bench's batchdml10 sends it.
func batchRequest() *spannerpb.ExecuteBatchDmlRequest {
	req := &spannerpb.ExecuteBatchDmlRequest{Session: "projects/p/instances/i/databases/d/sessions/0123456789abcdef", Seqno: 1,
		Transaction: &spannerpb.TransactionSelector{Selector: &spannerpb.TransactionSelector_Begin{Begin: &spannerpb.TransactionOptions{
			Mode: &spannerpb.TransactionOptions_ReadWrite_{ReadWrite: &spannerpb.TransactionOptions_ReadWrite{}}}}}}
	for i := range 10 {
		req.Statements = append(req.Statements, &spannerpb.ExecuteBatchDmlRequest_Statement{
			Sql: "INSERT INTO bench_writes (id, name, score) VALUES (@id, @name, @score)",
			Params: &structpb.Struct{Fields: map[string]*structpb.Value{
				"id": structpb.NewStringValue(fmt.Sprint(1000 + i)), "name": structpb.NewStringValue(fmt.Sprint("name-", i)), "score": structpb.NewNumberValue(float64(i) / 2)}},
			ParamTypes: map[string]*spannerpb.Type{"id": {Code: spannerpb.TypeCode_INT64}, "score": {Code: spannerpb.TypeCode_FLOAT64}},
		})
	}
	return req
}

func BenchmarkEncodeBatch(b *testing.B) {
	req := batchRequest()
	buf := make([]byte, 0, requestBufferSize)
	b.Run("AppendExecuteBatchDML", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := AppendExecuteBatchDML(buf[:0], req); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("proto.Size+MarshalAppend", func(b *testing.B) { // as gRPC's codec encodes
		b.ReportAllocs()
		for b.Loop() {
			proto.Size(req)
			if _, err := (proto.MarshalOptions{UseCachedSize: true}).MarshalAppend(buf[:0], req); err != nil {
				b.Fatal(err)
			}
		}
	})
}
