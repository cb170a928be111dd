package spannerfasttest

import (
	"context"
	"errors"
	"io"
	"time"

	adminpb "cloud.google.com/go/spanner/admin/database/apiv1/databasepb"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"cloud.google.com/go/spanner/spansql"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"
)

type column struct {
	name       string
	typ        spansql.Type
	notNull    bool
	generated  bool
	hasDefault bool
}

type table struct {
	name   string
	cols   []column
	byName map[string]int // lower-case name -> index
	pk     []int
}

// column finds a column by name, ignoring case as Spanner does.
func (t *table) column(name string) (int, error) {
	if i, ok := t.byName[lower(name)]; ok {
		return i, nil
	}
	return 0, status.Errorf(codes.NotFound, "spannerfasttest: table %s has no column %s", t.name, name)
}

// table reads the schema of a table from the engine.
func (s *service) table(ctx context.Context, name string) (*table, error) {
	ddl, err := s.admin.GetDatabaseDdl(ctx, &adminpb.GetDatabaseDdlRequest{Database: s.database})
	if err != nil {
		return nil, err
	}
	for _, sql := range ddl.GetStatements() {
		stmt, err := spansql.ParseDDLStmt(sql)
		ct, ok := stmt.(*spansql.CreateTable)
		if err != nil || !ok || lower(string(ct.Name)) != lower(name) {
			continue
		}
		t := &table{name: string(ct.Name), byName: map[string]int{}}
		for i, c := range ct.Columns {
			t.cols = append(t.cols, column{
				name: string(c.Name), typ: c.Type, notNull: c.NotNull,
				generated:  s.notes.isGenerated(t.name, string(c.Name)),
				hasDefault: s.notes.hasDefault(t.name, string(c.Name)),
			})
			t.byName[lower(string(c.Name))] = i
		}
		for _, kp := range ct.PrimaryKey {
			t.pk = append(t.pk, t.byName[lower(string(kp.Column))])
		}
		return t, nil
	}
	return nil, status.Errorf(codes.NotFound, "spannerfasttest: table not found: %s", name)
}

func writeOf(m *spannerpb.Mutation) *spannerpb.Mutation_Write {
	switch op := m.GetOperation().(type) {
	case *spannerpb.Mutation_Insert:
		return op.Insert
	case *spannerpb.Mutation_Update:
		return op.Update
	case *spannerpb.Mutation_InsertOrUpdate:
		return op.InsertOrUpdate
	case *spannerpb.Mutation_Replace:
		return op.Replace
	}
	return nil
}

// validateMutations rejects the malformed mutations that would crash the
// engine (it dereferences every part without checking).
func validateMutations(ms []*spannerpb.Mutation) error {
	for i, m := range ms {
		if w := writeOf(m); w != nil {
			for j, row := range w.GetValues() {
				if len(row.GetValues()) != len(w.GetColumns()) {
					return invalid("mutation %d on table %s: row %d has %d values for %d columns", i, w.GetTable(), j, len(row.GetValues()), len(w.GetColumns()))
				}
			}
			continue
		}
		d := m.GetDelete()
		if d == nil {
			return invalid("mutation %d has no operation", i)
		}
		if err := validateKeySet(d.GetTable(), d.GetKeySet()); err != nil {
			return err
		}
	}
	return nil
}

func validateKeySet(tbl string, ks *spannerpb.KeySet) error {
	if ks == nil {
		return invalid("a key set is required for table %s", tbl)
	}
	for i, r := range ks.GetRanges() {
		if r.GetStartKeyType() == nil || r.GetEndKeyType() == nil {
			return invalid("key range %d for table %s needs both a start and an end key", i, tbl)
		}
	}
	return nil
}

// snapshot is the rows of one table a commit may touch, read before it.
type snapshot struct {
	table *table
	cols  []string
	keys  *spannerpb.KeySet
	rows  []*structpb.ListValue
}

// applyLocked commits mutations on the engine atomically (call with
// engineMu held) and returns the rows they touched as they were before.
// The engine applies them one row at a time and keeps what it applied when
// a later row fails, so the rows they touch are read first and put back
// after a failure.
func (s *service) applyLocked(ctx context.Context, ms []*spannerpb.Mutation) (time.Time, []*snapshot, error) {
	ms, snaps, err := s.snapshots(ctx, ms)
	if err != nil {
		return time.Time{}, nil, err
	}
	if err := checkNewRows(ms, snaps); err != nil {
		return time.Time{}, nil, err
	}
	ts, err := s.commitEngine(ctx, ms)
	if err == nil {
		err = s.checkUnique(ctx, snaps)
		if err == nil {
			return ts, snaps, nil
		}
	}
	if uerr := s.putBack(ctx, snaps); uerr != nil {
		return time.Time{}, nil, status.Errorf(codes.Internal, "spannerfasttest: write failed (%v) and undoing its partial effect failed too: %v", err, uerr)
	}
	return time.Time{}, nil, err
}

// putBack restores the rows of snapshots taken before a write.
func (s *service) putBack(ctx context.Context, snaps []*snapshot) error {
	var undo []*spannerpb.Mutation
	for _, sn := range snaps {
		undo = append(undo, &spannerpb.Mutation{Operation: &spannerpb.Mutation_Delete_{Delete: &spannerpb.Mutation_Delete{Table: sn.table.name, KeySet: sn.keys}}})
		if len(sn.rows) > 0 {
			undo = append(undo, &spannerpb.Mutation{Operation: &spannerpb.Mutation_Insert{Insert: &spannerpb.Mutation_Write{Table: sn.table.name, Columns: sn.cols, Values: sn.rows}}})
		}
	}
	_, err := s.commitEngine(ctx, undo)
	return err
}

// snapshots reads, per table, every row the mutations may touch, and
// turns each Replace into a Delete of its keys and an Insert, which is what
// it means (the engine has no Replace).
func (s *service) snapshots(ctx context.Context, ms []*spannerpb.Mutation) ([]*spannerpb.Mutation, []*snapshot, error) {
	byTable := map[string]*snapshot{}
	var order []*snapshot
	var out []*spannerpb.Mutation
	for _, m := range ms {
		name := m.GetDelete().GetTable()
		if w := writeOf(m); w != nil {
			name = w.GetTable()
		}
		sn := byTable[lower(name)]
		if sn == nil {
			t, err := s.table(ctx, name)
			if err != nil {
				return nil, nil, err
			}
			sn = &snapshot{table: t, keys: &spannerpb.KeySet{}}
			for _, c := range t.cols {
				if !c.generated {
					sn.cols = append(sn.cols, c.name)
				}
			}
			byTable[lower(name)] = sn
			order = append(order, sn)
		}
		keys, err := sn.add(m)
		if err != nil {
			return nil, nil, err
		}
		if r := m.GetReplace(); r != nil {
			out = append(out,
				&spannerpb.Mutation{Operation: &spannerpb.Mutation_Delete_{Delete: &spannerpb.Mutation_Delete{Table: r.GetTable(), KeySet: &spannerpb.KeySet{Keys: keys}}}},
				&spannerpb.Mutation{Operation: &spannerpb.Mutation_Insert{Insert: r}})
			continue
		}
		out = append(out, m)
	}
	for _, sn := range order {
		if err := s.readSnapshot(ctx, sn); err != nil {
			return nil, nil, err
		}
	}
	return out, order, nil
}

// add records the keys a mutation touches and returns those of a write.
func (sn *snapshot) add(m *spannerpb.Mutation) ([]*structpb.ListValue, error) {
	if d := m.GetDelete(); d != nil {
		ks := d.GetKeySet()
		sn.keys.Keys = append(sn.keys.Keys, ks.GetKeys()...)
		sn.keys.Ranges = append(sn.keys.Ranges, ks.GetRanges()...)
		sn.keys.All = sn.keys.All || ks.GetAll()
		return nil, nil
	}
	keys, err := sn.table.keysOf(writeOf(m))
	if err != nil {
		return nil, err
	}
	sn.keys.Keys = append(sn.keys.Keys, keys...)
	return keys, nil
}

// keysOf returns the primary key of every row of a write.
func (t *table) keysOf(w *spannerpb.Mutation_Write) ([]*structpb.ListValue, error) {
	pos := make([]int, len(t.pk))
	for k, ci := range t.pk {
		pos[k] = -1
		for j, c := range w.GetColumns() {
			if lower(c) == lower(t.cols[ci].name) {
				pos[k] = j
			}
		}
		if pos[k] < 0 {
			return nil, invalid("a write to table %s must set key column %s", t.name, t.cols[ci].name)
		}
	}
	var keys []*structpb.ListValue
	for _, row := range w.GetValues() {
		key := &structpb.ListValue{}
		for _, p := range pos {
			key.Values = append(key.Values, row.GetValues()[p])
		}
		keys = append(keys, key)
	}
	return keys, nil
}

func (s *service) readSnapshot(ctx context.Context, sn *snapshot) error {
	if len(sn.keys.Keys) == 0 && len(sn.keys.Ranges) == 0 && !sn.keys.All {
		return nil
	}
	rows, err := s.engineRead(ctx, sn.table.name, sn.cols, sn.keys)
	if err != nil {
		return status.Errorf(engineCode(err), "spannerfasttest: table %s: %s", sn.table.name, status.Convert(err).Message())
	}
	sn.rows = rows
	return nil
}

// engineRead reads rows from the engine.
func (s *service) engineRead(ctx context.Context, tbl string, cols []string, ks *spannerpb.KeySet) ([]*structpb.ListValue, error) {
	session, err := s.internalSession(ctx)
	if err != nil {
		return nil, err
	}
	st, err := s.engine.StreamingRead(ctx, &spannerpb.ReadRequest{Session: session, Table: tbl, Columns: cols, KeySet: ks})
	if err != nil {
		return nil, err
	}
	var rows []*structpb.ListValue
	for {
		p, err := st.Recv()
		if errors.Is(err, io.EOF) {
			return rows, nil
		}
		if err != nil {
			return nil, err
		}
		for vs := p.GetValues(); len(cols) > 0 && len(vs) >= len(cols); vs = vs[len(cols):] {
			rows = append(rows, &structpb.ListValue{Values: vs[:len(cols)]})
		}
	}
}

// checkNewRows refuses inserts that leave out a NOT NULL column (the engine
// would store NULL) or a column with a DEFAULT (the engine would store NULL,
// not the default).
func checkNewRows(ms []*spannerpb.Mutation, snaps []*snapshot) error {
	for _, m := range ms {
		w := m.GetInsert()
		if w == nil {
			w = m.GetInsertOrUpdate()
		}
		if w == nil {
			continue
		}
		for _, sn := range snaps {
			if lower(sn.table.name) == lower(w.GetTable()) {
				if err := sn.checkColumns(w, m.GetInsert() != nil); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (sn *snapshot) checkColumns(w *spannerpb.Mutation_Write, insert bool) error {
	set := map[string]bool{}
	for _, c := range w.GetColumns() {
		set[lower(c)] = true
	}
	if !insert && !sn.hasNewRow(w) {
		return nil
	}
	for _, c := range sn.table.cols {
		switch {
		case set[lower(c.name)] || c.generated:
		case c.hasDefault:
			return unimplemented("column %s of table %s has a DEFAULT value, which this server does not apply; write the column explicitly", c.name, sn.table.name)
		case c.notNull:
			return status.Errorf(codes.FailedPrecondition, "spannerfasttest: a new row in table %s must set NOT NULL column %s", sn.table.name, c.name)
		}
	}
	return nil
}

// hasNewRow says whether an InsertOrUpdate inserts at least one row.
func (sn *snapshot) hasNewRow(w *spannerpb.Mutation_Write) bool {
	keys, err := sn.table.keysOf(w)
	if err != nil {
		return true
	}
	have := map[string]bool{}
	for _, r := range sn.rows {
		have[sn.table.keyString(sn.table.keyFromRow(r, sn.cols))] = true
	}
	for _, k := range keys {
		if !have[sn.table.keyString(k)] {
			return true
		}
	}
	return false
}

func (t *table) keyFromRow(row *structpb.ListValue, cols []string) *structpb.ListValue {
	key := &structpb.ListValue{}
	for _, ci := range t.pk {
		for j, c := range cols {
			if lower(c) == lower(t.cols[ci].name) {
				key.Values = append(key.Values, row.GetValues()[j])
			}
		}
	}
	return key
}

// internalSession is the engine session of the server's own work.
func (s *service) internalSession(ctx context.Context) (string, error) {
	s.mu.Lock()
	name := s.internal
	s.mu.Unlock()
	if name != "" {
		return name, nil
	}
	sess, err := s.engine.CreateSession(ctx, &spannerpb.CreateSessionRequest{Database: s.database})
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.internal == "" {
		s.internal = sess.GetName()
	}
	return s.internal, nil
}

// commitEngine applies mutations in one engine transaction.
func (s *service) commitEngine(ctx context.Context, ms []*spannerpb.Mutation) (time.Time, error) {
	session, err := s.internalSession(ctx)
	if err != nil {
		return time.Time{}, err
	}
	tx, err := s.engine.BeginTransaction(ctx, &spannerpb.BeginTransactionRequest{Session: session,
		Options: &spannerpb.TransactionOptions{Mode: &spannerpb.TransactionOptions_ReadWrite_{ReadWrite: &spannerpb.TransactionOptions_ReadWrite{}}}})
	if err != nil {
		return time.Time{}, err
	}
	resp, err := s.engine.Commit(ctx, &spannerpb.CommitRequest{Session: session, Transaction: &spannerpb.CommitRequest_TransactionId{TransactionId: tx.GetId()}, Mutations: ms})
	if err != nil {
		return time.Time{}, status.Error(engineCode(err), "spannerfasttest: "+status.Convert(err).Message())
	}
	return resp.GetCommitTimestamp().AsTime(), nil
}

// engineCode keeps the engine's status code, except that the engine
// reports bad values as plain errors (Unknown), which are InvalidArgument.
func engineCode(err error) codes.Code {
	if c := status.Code(err); c != codes.Unknown {
		return c
	}
	return codes.InvalidArgument
}
