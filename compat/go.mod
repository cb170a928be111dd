// compat/ holds tools that run go-sql-spanner's and go-gorm-spanner's own
// tests and programs against spannerfast. They need those projects' source,
// which their setup scripts copy and rewrite into a scratch directory: the
// Go files here are templates for that directory, not a package of
// spannerfast. This go.mod only keeps them out of the spannerfast module
// (go vet ./..., go test ./... and go list ./... at the root skip compat/).
module spannerfastcompat

go 1.26.0
