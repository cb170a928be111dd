// Package ddlop reads what a schema change's long-running operation
// (UpdateDatabaseDdl) says and owns the one rule that depends on it, the
// default_sequence_kind retry: when Spanner refuses DDL because the
// database has no default sequence kind, the kind is set as the
// database's option and the statements not yet applied are sent again,
// once (Send); and how long to wait for the operation, as
// ddl_execution_mode says (Wait).
//
// It must not know connections, properties, transports or statements'
// grammar: its caller (package conn) gives it the calls to make and the
// values of the properties, and reports the outcome.
package ddlop
