package spannerfasttest

import (
	"strings"
	"time"

	"github.com/spannerfast/spannerfast/spannerfasttest/internal/sqltext"
)

// spansql (which parses every statement for the engine) reads TIMESTAMP
// literals only as 'YYYY-MM-DD HH:MM:SS[.ffffff][-07:00]'; Spanner also
// takes RFC 3339 ('2024-01-02T03:04:05.123456Z', '...+02:00') and a space
// before the zone. normalizeTimestamps rewrites such literals into
// spansql's form, in UTC, leaving every other part of the statement as is.
func normalizeTimestamps(sql string) string {
	if !strings.Contains(strings.ToUpper(sql), "TIMESTAMP") {
		return sql
	}
	var b strings.Builder
	last := 0
	for i := 0; i < len(sql); {
		c := sql[i]
		switch {
		case c == '\'' || c == '"' || c == '`':
			i = sqltext.SkipQuoted(sql, i)
		case sqltext.IsWordByte(c):
			j := i
			for j < len(sql) && sqltext.IsWordByte(sql[j]) {
				j++
			}
			if !strings.EqualFold(sql[i:j], "TIMESTAMP") {
				i = j
				continue
			}
			k := sqltext.SkipSpace(sql, j)
			if k >= len(sql) || (sql[k] != '\'' && sql[k] != '"') {
				i = j
				continue
			}
			end := sqltext.SkipQuoted(sql, k)
			if end-1 <= k || sql[end-1] != sql[k] {
				i = end
				continue
			}
			if t, ok := parseTimestampText(sql[k+1 : end-1]); ok {
				b.WriteString(sql[last : k+1])
				b.WriteString(t.UTC().Format("2006-01-02 15:04:05.000000-07:00"))
				last = end - 1
			}
			i = end
		default:
			i++
		}
	}
	b.WriteString(sql[last:])
	return b.String()
}

// parseTimestampText reads the timestamp forms spansql does not.
func parseTimestampText(s string) (time.Time, bool) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999 Z07:00", "2006-01-02T15:04:05.999999999"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}
