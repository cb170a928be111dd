package bulkload

// Rows is a Source of rows.
func Rows(rows [][]any) Source { return &rowsSource{rows: rows, i: -1} }

type rowsSource struct {
	rows [][]any
	i    int
}

func (s *rowsSource) Next() bool             { s.i++; return s.i < len(s.rows) }
func (s *rowsSource) Values() ([]any, error) { return s.rows[s.i], nil }
func (s *rowsSource) Err() error             { return nil }

// Channel is a Source of the rows received from ch until it is closed.
func Channel(ch <-chan []any) Source { return &chanSource{ch: ch} }

type chanSource struct {
	ch  <-chan []any
	row []any
}

func (s *chanSource) Next() bool {
	row, ok := <-s.ch
	s.row = row
	return ok
}
func (s *chanSource) Values() ([]any, error) { return s.row, nil }
func (s *chanSource) Err() error             { return nil }

// Func is a Source of the rows next returns until it returns false or an
// error.
func Func(next func() ([]any, bool, error)) Source { return &funcSource{next: next} }

type funcSource struct {
	next func() ([]any, bool, error)
	row  []any
	err  error
}

func (s *funcSource) Next() bool {
	row, ok, err := s.next()
	s.row, s.err = row, err
	return ok && err == nil
}
func (s *funcSource) Values() ([]any, error) { return s.row, nil }
func (s *funcSource) Err() error             { return s.err }

var (
	_ Source = (*rowsSource)(nil)
	_ Source = (*chanSource)(nil)
	_ Source = (*funcSource)(nil)
)
