package spannerfasttest

import (
	"context"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"
)

// undoLog is what a read-write transaction's DML changed on the engine:
// every row it touched, as it was before the transaction touched it. DML
// runs on the engine at once, so that the transaction's later statements
// and queries see it; the log takes it back out on rollback, and for the
// length of each read of anyone else (who must see only committed data).
type undoLog struct {
	tables []*undoTable
	byName map[string]*undoTable
}

type undoTable struct {
	table  *table
	cols   []string
	keys   []*structpb.ListValue          // every key touched, in first-touch order
	before map[string]*structpb.ListValue // by keyString; nil: there was no row
}

// record adds the rows a statement's write was about to touch, as read
// before it (only the first image of each row is kept).
func (u *undoLog) record(snaps []*snapshot) {
	if u.byName == nil {
		u.byName = map[string]*undoTable{}
	}
	for _, sn := range snaps {
		ut := u.byName[lower(sn.table.name)]
		if ut == nil {
			ut = &undoTable{table: sn.table, cols: sn.cols, before: map[string]*structpb.ListValue{}}
			u.byName[lower(sn.table.name)] = ut
			u.tables = append(u.tables, ut)
		}
		have := map[string]*structpb.ListValue{}
		for _, r := range sn.rows {
			have[sn.table.keyString(sn.table.keyFromRow(r, sn.cols))] = r
		}
		for _, k := range sn.keys.GetKeys() {
			ks := sn.table.keyString(k)
			if _, seen := ut.before[ks]; seen {
				continue
			}
			ut.before[ks] = have[ks]
			ut.keys = append(ut.keys, k)
		}
	}
}

func (u *undoLog) empty() bool { return len(u.tables) == 0 }

// restore returns the mutations that put rows back: for every touched key
// the row in rows (by keyString) or none.
func (ut *undoTable) restore(rows map[string]*structpb.ListValue) []*spannerpb.Mutation {
	ms := []*spannerpb.Mutation{{Operation: &spannerpb.Mutation_Delete_{Delete: &spannerpb.Mutation_Delete{
		Table: ut.table.name, KeySet: &spannerpb.KeySet{Keys: ut.keys}}}}}
	w := &spannerpb.Mutation_Write{Table: ut.table.name, Columns: ut.cols}
	for _, k := range ut.keys {
		if r := rows[ut.table.keyString(k)]; r != nil {
			w.Values = append(w.Values, r)
		}
	}
	if len(w.Values) > 0 {
		ms = append(ms, &spannerpb.Mutation{Operation: &spannerpb.Mutation_Insert{Insert: w}})
	}
	return ms
}

// undo takes the writer's DML back out of the engine and empties its log.
// Call with engineMu held.
func (s *service) undo(ctx context.Context, tx *txn) error {
	if tx.undo.empty() {
		return nil
	}
	var ms []*spannerpb.Mutation
	for _, ut := range tx.undo.tables {
		ms = append(ms, ut.restore(ut.before)...)
	}
	tx.undo = undoLog{}
	if _, err := s.commitEngine(ctx, ms); err != nil {
		return status.Errorf(codes.Internal, "spannerfasttest: undoing transaction %s failed: %v", tx.id, err)
	}
	return nil
}

// committedView runs fn, which reads the engine, with the writer's
// uncommitted DML taken out for its length: the rows it touched are read,
// put back as they were before it, and restored after fn.
func (s *service) committedView(ctx context.Context, fn func() error) error {
	s.engineMu.Lock()
	defer s.engineMu.Unlock()
	s.mu.Lock()
	w := s.writer
	s.mu.Unlock()
	if w == nil || w.undo.empty() {
		return fn()
	}
	var redo, revert []*spannerpb.Mutation
	for _, ut := range w.undo.tables {
		rows, err := s.engineRead(ctx, ut.table.name, ut.cols, &spannerpb.KeySet{Keys: ut.keys})
		if err != nil {
			return err
		}
		now := map[string]*structpb.ListValue{}
		for _, r := range rows {
			now[ut.table.keyString(ut.table.keyFromRow(r, ut.cols))] = r
		}
		redo = append(redo, ut.restore(now)...)
		revert = append(revert, ut.restore(ut.before)...)
	}
	if _, err := s.commitEngine(ctx, revert); err != nil {
		return status.Errorf(codes.Internal, "spannerfasttest: hiding the uncommitted writes of transaction %s failed: %v", w.id, err)
	}
	ferr := fn()
	if _, err := s.commitEngine(ctx, redo); err != nil {
		return status.Errorf(codes.Internal, "spannerfasttest: restoring the uncommitted writes of transaction %s failed: %v", w.id, err)
	}
	return ferr
}
