package spannerfasttest

import (
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"github.com/spannerfast/spannerfast/spannerfasttest/internal/infoschema"
)

// infoSchemaQuery answers a query that names INFORMATION_SCHEMA tables
// from the catalog (package infoschema evaluates it); handled is false for
// every other query. Like Spanner, it refuses read-write transactions.
func (s *service) infoSchemaQuery(req *spannerpb.ExecuteSqlRequest, sel selected) (p *spannerpb.PartialResultSet, handled bool, err error) {
	q, ok := infoschema.Prepare(req.GetSql())
	if !ok {
		return nil, false, nil
	}
	if sel.tx != nil && sel.tx.kind != readOnly {
		return nil, true, invalid("INFORMATION_SCHEMA queries are not allowed in a %s transaction; use a single-use or read-only transaction", sel.tx.kind)
	}
	p, err = q.Answer(req.GetParams(), req.GetParamTypes(), s.catalog)
	return p, true, err
}
