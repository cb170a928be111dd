package sqlparse

import (
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Command is what a client-side statement does.
type Command uint8

const (
	CmdNone                Command = iota
	CmdSet                         // SET [SPANNER.]name = value
	CmdSetLocal                    // SET LOCAL name = value
	CmdSetTransaction              // SET TRANSACTION option[, ...]
	CmdShow                        // SHOW [VARIABLE] name
	CmdReset                       // RESET name
	CmdBegin                       // BEGIN [TRANSACTION] [option[, ...]]
	CmdCommit                      // COMMIT [TRANSACTION]
	CmdRollback                    // ROLLBACK [TRANSACTION]
	CmdStartBatch                  // START BATCH {DDL | DML}
	CmdRunBatch                    // RUN BATCH (and any RUN that is not a partition statement)
	CmdAbortBatch                  // ABORT BATCH
	CmdPartition                   // PARTITION <query>
	CmdRunPartition                // RUN PARTITION '<id>'
	CmdRunPartitionedQuery         // RUN PARTITIONED QUERY <query> (and any other RUN PARTITIONED)
	CmdSavepoint                   // SAVEPOINT name
	CmdRollbackTo                  // ROLLBACK TO [SAVEPOINT] name (PostgreSQL: ROLLBACK [WORK | TRANSACTION] TO ...)
	CmdRelease                     // RELEASE [SAVEPOINT] name
)

// ClientStatement is a client-side statement, read once when the statement
// is parsed. A malformed one has its Command and, in Statement.Invalid, the
// error its executor reports.
type ClientStatement struct {
	Command Command
	// Name is the property of SET, SET LOCAL, SHOW and RESET, without a
	// spanner. prefix, as written.
	Name string
	// Value is the value of SET and SET LOCAL (quotes removed), and the
	// partition id of RUN PARTITION (quotes removed).
	Value string
	// Default reports SET [LOCAL] name = DEFAULT (the bare keyword; 'DEFAULT'
	// quoted is text).
	Default bool
	// Column is SHOW's column name: the name as written, spanner. prefix
	// included.
	Column string
	// Text is the text after the command's keywords, trimmed (SET LOCAL's
	// error messages quote it).
	Text string
	// Txn are the options of BEGIN and SET TRANSACTION.
	Txn TxnOptions
	// Batch is the kind of batch START BATCH starts.
	Batch BatchKind
	// Query is the query of PARTITION and RUN PARTITIONED QUERY, parsed.
	Query *Statement
	// Savepoint is the savepoint that SAVEPOINT, ROLLBACK TO and RELEASE
	// name (savepoint.go): the name a quoted identifier stands for, or a
	// plain one as written (PostgreSQL: in lower case).
	Savepoint string
}

// TxnOptions are the options of BEGIN and SET TRANSACTION. They are shared
// with the cache: read only.
type TxnOptions struct {
	ReadOnly   *bool // READ ONLY (true), READ WRITE (false); nil when not given
	Isolation  Isolation
	Deferrable *bool // [NOT] DEFERRABLE; nil when not given
}

// Isolation is an ISOLATION LEVEL option.
type Isolation uint8

const (
	IsolationDefault        Isolation = iota // not given
	IsolationSerializable                    // ISOLATION LEVEL SERIALIZABLE
	IsolationRepeatableRead                  // ISOLATION LEVEL REPEATABLE READ
)

// BatchKind is what START BATCH starts.
type BatchKind uint8

const (
	BatchDDL BatchKind = iota
	BatchDML
)

// parseClient reads the client-side statement st (classified, scanned and
// not Multi) with the grammar its keyword picked.
func parseClient(d *dialect, st *Statement, form clientForm) {
	c := &ClientStatement{}
	var err error
	switch form {
	case formSet:
		err = c.parseSet(d, st.rest)
	case formShow:
		err = c.parseShow(d, st.rest)
	case formReset:
		c.Command, c.Name = CmdReset, variableName(st.rest)
		if strings.EqualFold(c.Name, "ALL") {
			// PostgreSQL's RESET ALL: go-sql-spanner has none either.
			err = status.Error(codes.InvalidArgument, "spannerfast: RESET ALL is not supported: RESET each property by name")
		}
	case formBegin:
		c.Command = CmdBegin
		err = c.parseBegin(d, st.Keyword, st.rest)
	case formEnd:
		err = c.parseEnd(d, st.Keyword, st.rest)
	case formSavepoint:
		c.Command = CmdSavepoint
		c.Savepoint, err = savepointName(d, "SAVEPOINT", st.rest, false)
	case formRelease:
		c.Command = CmdRelease
		c.Savepoint, err = savepointName(d, "RELEASE", st.rest, true)
	case formBatch:
		err = c.parseBatch(d, st.Keyword, st.rest, st.SQL)
	case formPartition:
		c.Command = CmdPartition
		c.Query, err = innerQuery(d, "PARTITION", st.rest)
	case formStart:
		// PostgreSQL: START, START TRANSACTION and START WORK begin a
		// transaction; anything else is read as START BATCH (as in
		// go-sql-spanner).
		if w := secondWord(d, st.rest); w == "" || w == ";" || w == "TRANSACTION" || w == "WORK" {
			c.Command = CmdBegin
			err = c.parseBegin(d, st.Keyword, st.rest)
		} else {
			err = c.parseBatch(d, st.Keyword, st.rest, st.SQL)
		}
	case formAbort:
		// PostgreSQL: ABORT [TRANSACTION | WORK] is ROLLBACK; ABORT BATCH
		// aborts a batch, as in GoogleSQL.
		if secondWord(d, st.rest) == "BATCH" {
			err = c.parseBatch(d, st.Keyword, st.rest, st.SQL)
		} else {
			err = c.parseEnd(d, st.Keyword, st.rest)
		}
	}
	st.Client, st.Invalid = c, err
}

// secondWord is the first word of a statement's rest (after white space
// and comments), upper case, or "".
func secondWord(d *dialect, rest string) string {
	for i := 0; i < len(rest); {
		k, end, err := d.next(rest, i)
		if err != nil {
			return ""
		}
		if k != tokSpace && k != tokComment {
			return strings.ToUpper(rest[i:end])
		}
		i = end
	}
	return ""
}

// parseSet reads SET TRANSACTION option[, ...], SET LOCAL name = value and
// SET name = value. PostgreSQL adds SET SESSION name (the same as SET name)
// and TO for =.
func (c *ClientStatement) parseSet(d *dialect, rest string) error {
	w, after := firstWord(rest)
	switch w {
	case "TRANSACTION":
		c.Command = CmdSetTransaction
		ws, err := words(d, after)
		if err != nil {
			return err
		}
		if len(ws) == 0 {
			return status.Error(codes.InvalidArgument, "spannerfast: SET TRANSACTION: missing option: want READ ONLY, READ WRITE, ISOLATION LEVEL {SERIALIZABLE | REPEATABLE READ} or [NOT] DEFERRABLE")
		}
		c.Txn, err = parseTxnOptions("SET TRANSACTION", ws)
		return err
	case "LOCAL":
		c.Command, c.Text = CmdSetLocal, strings.TrimSpace(after)
		return c.parseAssignment(d, after)
	case "SESSION":
		if d.pg {
			rest = strings.TrimSpace(after)
		}
	}
	c.Command, c.Text = CmdSet, rest
	return c.parseAssignment(d, rest)
}

// parseAssignment reads "name = value" (the value quoted or bare, or the
// keyword DEFAULT); PostgreSQL also "name TO value".
func (c *ClientStatement) parseAssignment(d *dialect, text string) error {
	if d.pg {
		return c.parseAssignmentPG(text)
	}
	name, value, ok := strings.Cut(text, "=")
	if !ok {
		return status.Errorf(codes.InvalidArgument, "spannerfast: SET needs the form SET name = value, got %q", "SET "+text)
	}
	c.Name, c.Value = variableName(name), unquote(strings.TrimSpace(value))
	// go-sql-spanner's SET name = DEFAULT: the DSN's value, as RESET.
	c.Default = strings.EqualFold(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(value), ";")), "DEFAULT")
	return nil
}

// parseAssignmentPG reads PostgreSQL's "name {= | TO} value": the name is
// a word, possibly dotted (spanner.name); a quoted value has ” for a quote.
func (c *ClientStatement) parseAssignmentPG(text string) error {
	t := strings.TrimSpace(text)
	n := 0
	for n < len(t) && (isIdentPart(t[n]) || t[n] == '.' || t[n] == '$' || t[n] >= 0x80) {
		n++
	}
	name, value := t[:n], strings.TrimSpace(t[n:])
	switch w, after := firstWord(value); {
	case strings.HasPrefix(value, "="):
		value = value[1:]
	case w == "TO":
		value = after
	default:
		name = ""
	}
	if name == "" {
		return status.Errorf(codes.InvalidArgument, "spannerfast: SET needs the form SET name {= | TO} value, got %q", "SET "+text)
	}
	v := strings.TrimSpace(value)
	c.Name, c.Value = variableName(name), unquote(v)
	if len(v) >= 2 && v[0] == '\'' && c.Value != v {
		c.Value = strings.ReplaceAll(c.Value, "''", "'")
	}
	c.Default = strings.EqualFold(strings.TrimSpace(strings.TrimSuffix(v, ";")), "DEFAULT")
	return nil
}

// parseShow reads SHOW VARIABLE name, and SHOW name (PostgreSQL's form,
// which go-sql-spanner accepts on PostgreSQL databases), and SHOW
// TRANSACTION ISOLATION LEVEL, READ ONLY or [NOT] DEFERRABLE (the
// properties isolation_level, transaction_read_only and
// transaction_deferrable, in a column of that name, as go-sql-spanner
// answers them).
func (c *ClientStatement) parseShow(d *dialect, rest string) error {
	c.Command = CmdShow
	w, after := firstWord(rest)
	if w == "TRANSACTION" {
		return c.parseShowTransaction(d, after)
	}
	if w != "VARIABLE" {
		after = rest
	}
	written := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(after), ";"))
	if written == "" {
		return status.Errorf(codes.InvalidArgument, "spannerfast: want SHOW VARIABLE name, got %q", "SHOW "+rest)
	}
	c.Column, c.Name = written, variableName(after)
	return nil
}

// parseShowTransaction reads what follows SHOW TRANSACTION.
func (c *ClientStatement) parseShowTransaction(d *dialect, rest string) error {
	ws, err := words(d, rest)
	if err != nil {
		return err
	}
	if n := len(ws); n > 0 && ws[n-1] == ";" {
		ws = ws[:n-1]
	}
	switch {
	case len(ws) == 2 && hasWords(ws, "ISOLATION", "LEVEL"):
		c.Name = "isolation_level"
	case len(ws) == 2 && hasWords(ws, "READ", "ONLY"):
		c.Name = "transaction_read_only"
	case len(ws) == 1 && ws[0] == "DEFERRABLE", len(ws) == 2 && hasWords(ws, "NOT", "DEFERRABLE"):
		c.Name = "transaction_deferrable"
	default:
		return status.Errorf(codes.InvalidArgument,
			"spannerfast: want SHOW TRANSACTION ISOLATION LEVEL, SHOW TRANSACTION READ ONLY or SHOW TRANSACTION [NOT] DEFERRABLE, got %q", "SHOW TRANSACTION "+strings.TrimSpace(rest))
	}
	c.Column = c.Name
	return nil
}

// parseBegin reads BEGIN's [TRANSACTION] [option[, ...]] (PostgreSQL:
// BEGIN or START, then [TRANSACTION | WORK]).
func (c *ClientStatement) parseBegin(d *dialect, keyword, rest string) error {
	ws, err := wordsAfterTransaction(d, rest)
	if err != nil {
		return err
	}
	c.Txn, err = parseTxnOptions(keyword, ws)
	return err
}

// parseEnd reads COMMIT or ROLLBACK [TRANSACTION] (PostgreSQL: COMMIT or
// END, ROLLBACK or ABORT, then [TRANSACTION | WORK]).
func (c *ClientStatement) parseEnd(d *dialect, keyword, rest string) error {
	c.Command = CmdCommit
	if keyword == "ROLLBACK" || keyword == "ABORT" {
		c.Command = CmdRollback
	}
	if to, ok := rollbackTo(d, keyword, rest); ok {
		c.Command = CmdRollbackTo
		var err error
		c.Savepoint, err = savepointName(d, "ROLLBACK TO", to, true)
		return err
	}
	ws, err := wordsAfterTransaction(d, rest)
	if err == nil && len(ws) > 0 && !(len(ws) == 1 && ws[0] == ";") {
		err = status.Errorf(codes.InvalidArgument, "spannerfast: %s: unexpected %q", keyword, strings.Join(ws, " "))
	}
	return err
}

// parseBatch reads START BATCH {DDL | DML}, RUN BATCH and ABORT BATCH, and
// the partition statements that start with RUN.
func (c *ClientStatement) parseBatch(d *dialect, keyword, rest, sql string) error {
	switch keyword {
	case "START":
		c.Command = CmdStartBatch
	case "ABORT":
		c.Command = CmdAbortBatch
	default:
		c.Command = CmdRunBatch
		w, after := firstWord(rest)
		switch w {
		case "PARTITION":
			c.Command, c.Value = CmdRunPartition, unquote(strings.TrimSpace(after))
			return nil
		case "PARTITIONED":
			c.Command = CmdRunPartitionedQuery
			if w2, query := firstWord(after); w2 == "QUERY" {
				var err error
				c.Query, err = innerQuery(d, "RUN PARTITIONED QUERY", query)
				return err
			}
			return status.Errorf(codes.InvalidArgument, "spannerfast: want RUN PARTITIONED QUERY <query> or RUN PARTITION '<id>', got %q", "RUN "+rest)
		}
	}
	ws, err := words(d, rest)
	if err != nil {
		return err
	}
	if n := len(ws); n > 0 && ws[n-1] == ";" {
		ws = ws[:n-1]
	}
	if len(ws) == 0 || ws[0] != "BATCH" {
		return status.Errorf(codes.InvalidArgument, "spannerfast: %q: expected %s BATCH", sql, keyword)
	}
	ws = ws[1:]
	if c.Command == CmdStartBatch {
		if len(ws) == 0 || (ws[0] != "DDL" && ws[0] != "DML") {
			return status.Errorf(codes.InvalidArgument, "spannerfast: %q: expected START BATCH DDL or START BATCH DML", sql)
		}
		if ws[0] == "DML" {
			c.Batch = BatchDML
		}
		ws = ws[1:]
	}
	if len(ws) > 0 {
		return status.Errorf(codes.InvalidArgument, "spannerfast: %q: unexpected %q after %s BATCH", sql, ws[0], keyword)
	}
	return nil
}

// innerQuery parses the query of a partition statement, which must be a
// query.
func innerQuery(d *dialect, what, text string) (*Statement, error) {
	q, err := parse(d, strings.TrimSpace(text), false)
	if err == nil && q.Kind != Query {
		err = status.Errorf(codes.InvalidArgument, "spannerfast: %s needs a query, got a %s statement", what, q.Keyword)
	}
	if err != nil {
		return nil, err
	}
	return &q, nil
}

// parseTxnOptions reads option[, ...] from ws (upper case, a trailing ";"
// allowed); stmt names the statement in errors.
func parseTxnOptions(stmt string, ws []string) (TxnOptions, error) {
	var o TxnOptions
	if n := len(ws); n > 0 && ws[n-1] == ";" {
		ws = ws[:n-1]
	}
	for len(ws) > 0 {
		switch {
		case hasWords(ws, "READ", "ONLY"), hasWords(ws, "READ", "WRITE"):
			ro := ws[1] == "ONLY"
			o.ReadOnly, ws = &ro, ws[2:]
		case hasWords(ws, "ISOLATION", "LEVEL", "SERIALIZABLE"):
			o.Isolation, ws = IsolationSerializable, ws[3:]
		case hasWords(ws, "ISOLATION", "LEVEL", "REPEATABLE", "READ"):
			o.Isolation, ws = IsolationRepeatableRead, ws[4:]
		case hasWords(ws, "DEFERRABLE"), hasWords(ws, "NOT", "DEFERRABLE"):
			d := ws[0] == "DEFERRABLE"
			o.Deferrable = &d
			if d {
				ws = ws[1:]
			} else {
				ws = ws[2:]
			}
		default:
			return o, status.Errorf(codes.InvalidArgument,
				"spannerfast: %s: invalid transaction option at %q: want READ ONLY, READ WRITE, ISOLATION LEVEL {SERIALIZABLE | REPEATABLE READ} or [NOT] DEFERRABLE",
				stmt, strings.Join(ws, " "))
		}
		if len(ws) > 0 && ws[0] == "," {
			ws = ws[1:]
		}
	}
	return o, nil
}

func hasWords(ws []string, want ...string) bool {
	if len(ws) < len(want) {
		return false
	}
	for i, w := range want {
		if ws[i] != w {
			return false
		}
	}
	return true
}

// parseDatabaseOp marks CREATE DATABASE and DROP DATABASE, and reads the
// name DROP DATABASE drops.
func parseDatabaseOp(d *dialect, st *Statement) {
	if st.Keyword != "CREATE" && st.Keyword != "DROP" {
		return
	}
	ws, _ := words(d, st.rest)
	if len(ws) == 0 || ws[0] != "DATABASE" {
		return
	}
	if st.Keyword == "CREATE" {
		st.Database = CreateDatabase
		return
	}
	st.Database = DropDatabase
	st.DatabaseName, st.Invalid = databaseName(d, ws)
}

// databaseName reads the database id after DROP DATABASE from its words
// (ws[0] is DATABASE): a plain or `quoted` identifier, then nothing but an
// optional semicolon.
func databaseName(d *dialect, ws []string) (string, error) {
	if n := len(ws); n > 0 && ws[n-1] == ";" {
		ws = ws[:n-1]
	}
	// A `quoted` (PostgreSQL: "quoted") name is one word, a plain one may
	// have been split at its hyphens.
	if dialect := d.dialect(); len(ws) == 2 && ws[1] != "" && ws[1][0] == QuoteChar(dialect) {
		return UnquoteIdent(dialect, ws[1])
	}
	var name strings.Builder
	for _, w := range ws[1:] {
		if w != "-" && !isIdentWord(w) {
			return "", status.Errorf(codes.InvalidArgument, "spannerfast: DROP DATABASE: unexpected %q in the database name", w)
		}
		name.WriteString(w)
	}
	if name.Len() == 0 {
		return "", status.Error(codes.InvalidArgument, "spannerfast: DROP DATABASE: missing database name")
	}
	// words upper-cases plain words; database ids are lower case.
	return strings.ToLower(name.String()), nil
}

func isIdentWord(w string) bool {
	for i := 0; i < len(w); i++ {
		if c := w[i]; !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return w != ""
}

// hasThenReturn reports whether DML text returns rows: THEN RETURN
// (GoogleSQL) or RETURNING (PostgreSQL) outside literals, quoted
// identifiers, comments and parentheses (the clause belongs to the
// statement, not to an expression in it), as go-sql-spanner detects it. In
// GoogleSQL RETURNING is no keyword: a column may be named so. It walks the
// tokens without collecting them: a DML statement parsed without a cache
// pays no allocation for it.
func hasThenReturn(d *dialect, text string) bool {
	then := false // the previous word was THEN
	depth := 0    // open parentheses
	for i := 0; i < len(text); {
		k, end, err := d.next(text, i)
		if err != nil {
			return false
		}
		switch k {
		case tokSpace, tokComment:
		case tokText:
			w := text[i:end]
			switch {
			case w == "(":
				depth++
			case w == ")" && depth > 0:
				depth--
			case depth > 0:
			case d.pg && strings.EqualFold(w, "RETURNING"), !d.pg && then && strings.EqualFold(w, "RETURN"):
				return true
			}
			then = depth == 0 && strings.EqualFold(w, "THEN")
		default:
			then = false
		}
		i = end
	}
	return false
}

// words splits the text of a client-side statement into its words, upper
// case, and punctuation (one byte each), dropping white space and comments.
// Literals and quoted identifiers are kept as written.
func words(d *dialect, text string) ([]string, error) {
	var out []string
	for i := 0; i < len(text); {
		k, end, err := d.next(text, i)
		if err != nil {
			return nil, err
		}
		switch k {
		case tokSpace, tokComment:
		case tokText:
			out = append(out, strings.ToUpper(text[i:end]))
		default:
			out = append(out, text[i:end])
		}
		i = end
	}
	return out, nil
}

// wordsAfterTransaction is words without one leading TRANSACTION
// (PostgreSQL: TRANSACTION or WORK).
func wordsAfterTransaction(d *dialect, text string) ([]string, error) {
	ws, err := words(d, text)
	if len(ws) > 0 && (ws[0] == "TRANSACTION" || d.pg && ws[0] == "WORK") {
		ws = ws[1:]
	}
	return ws, err
}

// firstWord splits off the first word of s, upper-cased: letters, digits
// and _ after white space (comments are not skipped: SET, SHOW and RUN
// read their second keyword this way, as they always did).
func firstWord(s string) (word, rest string) {
	s = strings.TrimLeft(s, " \t\r\n\f")
	i := 0
	for i < len(s) && (s[i] == '_' || (s[i]|0x20 >= 'a' && s[i]|0x20 <= 'z') || (i > 0 && s[i] >= '0' && s[i] <= '9')) {
		i++
	}
	return strings.ToUpper(s[:i]), s[i:]
}

// variableName is a property name as written, trimmed of white space and a
// trailing semicolon, without a spanner. prefix.
func variableName(s string) string {
	s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), ";"))
	if len(s) > 8 && strings.EqualFold(s[:8], "spanner.") {
		s = s[8:]
	}
	return s
}

// unquote removes a trailing semicolon and one pair of matching quotes.
func unquote(v string) string {
	v = strings.TrimSuffix(v, ";")
	v = strings.TrimSpace(v)
	if len(v) >= 2 && (v[0] == '\'' || v[0] == '"') && v[len(v)-1] == v[0] {
		return v[1 : len(v)-1]
	}
	return v
}
