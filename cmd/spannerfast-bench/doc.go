// Command spannerfast-bench measures how much client CPU, memory allocation
// and heap it costs to read Spanner query results into Go variables, and to
// write and run read-write transactions: with spannerfast through
// database/sql, with the official cloud.google.com/go/spanner client, and,
// for reads, with two floors that show what the transport and database/sql
// cost by themselves.
//
// # Running it
//
// The run to publish builds the official client with its vtprotobuf fast
// path, so that the client-borrow arm (the bar spannerfast is measured
// against) takes part:
//
//	go run -tags spanner_vtproto ./cmd/spannerfast-bench
//
// Without -tags spanner_vtproto, QueryOptions.ExperimentalBorrowRows is
// ignored by the client, so the tool leaves client-borrow out, compares with
// client instead and says so in every output. With -tags nospannerfast the
// two spannerfast arms are not compiled (for working on the tool while the
// driver does not build).
//
// A full run takes a few minutes on two cores (4 min 18 s on a shared,
// busy one; the per-call workloads alone about 1.5); -quick (scale 0.1, 2 rounds)
// takes about twenty seconds (a third of it the latency-bound reads
// waiting on the server) and is for checking that everything works, not
// for figures: its measurements last milliseconds.
//
// A concurrent workload's measurement starts its goroutines together and
// ends when the last finishes; CPU and allocations are per query as for
// point. The spannerfast arms keep up to 64 idle connections in their
// *sql.DB (database/sql keeps 2 by default), as a server handling that many
// requests at once would configure it.
//
// Flags:
//
//	-workloads  comma list of workloads or of the groups all (the
//	            default), reads, writes, partitioned,
//	            partitioned-latency and percall (see below)
//	-arms       comma list of arms (default: every arm built in but
//	            spannerfast-otel and spannerfast-gzip, which run only
//	            when named)
//	-scale      multiplies the row count of single-query workloads, the
//	            query count of point, manycols and strings800 and the
//	            operation count of the writes (default 1)
//	-rounds     interleaved rounds; the best is reported (default 3)
//	-json       machine-readable results (default bench-results.json; "" skips)
//	-chart      PNG chart (default bench-chart.png; "" skips)
//	-cpuprofile-arm ARM  after the rounds, read every workload once more
//	            with ARM under the CPU profiler (-cpuprofile names the file,
//	            default cpu-ARM.pprof); the measured rounds are not profiled
//	-memprofile FILE  with -cpuprofile-arm: that run also records every
//	            allocation and writes the allocation profile to FILE
//	-quick      -scale 0.1 -rounds 2 unless those are given
//
// # What runs
//
// The fake Spanner server runs in a separate process: the tool starts its
// own binary again with a hidden -serve argument, the child prints
// "ADDR host:port" on stdout, and the parent kills it at the end (the child
// also exits when its stdin, a pipe from the parent, closes). So the
// server's CPU time and allocations never count as the client's. The server
// (internal/benchserver) answers session calls trivially, picks the result
// of ExecuteStreamingSql by the SQL text, and answers transactions without
// keeping state: inline begins (the first result message carries the
// transaction id), DML and DML batches (one row changed per statement),
// precommit tokens on multiplexed sessions, Commit (refused without a
// precommit token on a multiplexed session, as Spanner does) and Rollback,
// with answers built and encoded once. Results are
// encoded once at start (internal/workload) and sent with a server-side
// gRPC codec that hands the stored bytes to gRPC unchanged. Messages are
// about 1 MiB, or 50,000 values when that comes first (the official client's
// borrow mode recycles decoded messages only up to 65,536 values; bigger
// messages would handicap it), with a resume token on every message, the
// metadata on the first and last=true on the final one.
//
// Workloads (row counts at -scale 1):
//
//	narrow          200,000 rows of (INT64, STRING(16), FLOAT64), one query
//	narrow-chunked  the same, every message ending inside a value (chunked_value)
//	wide            100,000 rows of 16 columns: INT64, STRING(16), STRING(64),
//	                FLOAT64, BOOL, TIMESTAMP, DATE, BYTES(24), NUMERIC, JSON,
//	                INT64, STRING(64), STRING(16), FLOAT64, ARRAY<INT64>(4),
//	                STRING(64)
//	wide-chunked    the same, chunked (strings and array elements split)
//	strings800      2,000 queries of 100 rows x 8 STRING columns (14-56 chars)
//	point           2,000 queries of 1 row (INT64, STRING, STRING, FLOAT64, BOOL)
//	manycols        2,000 queries of 1 row of 101 STRING(16) columns
//	concurrent-point  6,400 point queries split over 64 goroutines that
//	                share the arm's one *sql.DB, client or gRPC connection
//	                (the transport floor: 64 concurrent streams on one
//	                connection); per query
//	narrow5m        5,000,000 narrow rows in one query, heap sampled
//	gorm10k         20 queries of 10,000 rows of a 7-column model (INT64,
//	                STRING(16), STRING(32), FLOAT64, BOOL, TIMESTAMP,
//	                TIMESTAMP): GORM's
//	                db.Table("bench_gorm").Limit(10000).Find(&rows)
//	                through spannergorm, which sends LIMIT @p1 with 10000
//	                as a parameter; the other arms send LIMIT 10000 in the
//	                text. The server binds a query's parameters into its
//	                text when no result has the text as sent, so every arm
//	                reads the same result
//
// Partitioned workloads (the group partitioned):
//
//	partitioned-1, -2, -4, -8  the narrow rows (200,000, same values) read
//	                           in a batch read-only transaction as 1, 2, 4
//	                           or 8 partitions, read in parallel
//
// The server answers PartitionQuery of their SQL with N partition tokens
// and serves each token, on ExecuteStreamingSql, the encoded messages of
// its slice of the rows (encoded once at start, like every result). The
// official client does what its users do: BatchReadOnlyTransaction,
// PartitionQuery with MaxPartitions N, then each partition's Execute in its
// own goroutine, every goroutine scanning into its own variables.
// spannerfast runs the query with AutoPartition (MaxPartitions N,
// MaxParallelism N), which reads all partitions into one *sql.Rows. The
// floors and client-borrow (whose borrow option does not reach Execute)
// do not run them. Their figures are in their own section, "Partitioned
// reads": per arm and partition count, rows/s of wall clock relative to
// the same arm's single stream (narrow; select it too), and CPU per row
// relative to the client. Wall clock is the point (parallelism), so on a
// machine with few cores, shared with the server process, expect little
// growth beyond the core count.
//
// Latency-bound partitioned workloads (the group partitioned-latency):
//
//	narrow-latency            the narrow rows (200,000, same values) in
//	                          one plain stream of 1,000-row messages, the
//	                          server waiting 10 ms before each message
//	partitioned-latency-1, -2, -4, -8  the same rows and waits, read as 1,
//	                          2, 4 or 8 partitions in parallel
//
// On the CPU-bound partitioned reads the client's decoding and the server's
// sending share the machine's cores, so a small machine cannot show what
// parallel partitions are for: real Spanner streams are bound by the
// server and the network, not by the client's CPU. Here each stream waits
// on its own before every message (a timer in the server, no CPU), so one
// stream carries at most 100,000 rows/s and N partitions up to N times
// that, 800,000 rows/s at 8, which even the official client (the most CPU
// per row) decodes with about one of the two cores. The arms read them as they read the partitioned workloads
// (narrow-latency as a plain query); the same arms run them, and they are
// reported in their own section, "Partitioned reads, latency-bound", the
// same way, each partition count against the arm's narrow-latency.
//
// Write workloads (operations per measurement at -scale 1; one operation
// is one committed read-write transaction, rotxn's a read-only one;
// figures are per operation, except txread-* and copyfrom, per row):
//
//	insert             2,000 autocommit INSERTs of one row with 3 parameters
//	txn10              500 transactions: a 1-row query, then 9 UPDATEs
//	batchdml100        200 DML batches of 100 INSERTs
//	apply1000          50 Applies of 1,000 insert-or-update mutations
//	txread-checksum    the narrow rows (200,000) read in a read-write
//	                   transaction with retry_aborts_internally=true
//	txread-nochecksum  the same with retry_aborts_internally=false
//	rwtxn              2,000 transactions: a 1-row query, then 1 UPDATE
//	concurrent-rwtxn   6,400 rwtxn transactions split over 64 goroutines
//	                   (as concurrent-point)
//	rotxn              2,000 read-only transactions of two 1-row queries
//	batchdml10         2,000 DML batches of 10 INSERTs
//	copyfrom           a bulk load of 1,000,000 rows of 5 columns into a
//	                   table with one index of one column
//
// The official client does what go-sql-spanner does for the same
// database/sql calls: insert, txn10, rwtxn and the batches run in
// Client.ReadWriteTransaction with tx.Update, tx.Query and tx.BatchUpdate,
// apply1000 is Client.Apply, rotxn a ReadOnlyTransaction that begins
// inline with its first query (go-sql-spanner's default) and is closed
// after the second. spannerfast's rotxn is BeginTx with ReadOnly,
// two QueryContext calls and Commit. spannerfast (the safe arm) uses ExecContext
// with named parameters; BeginTx, QueryContext, ExecContext and Commit;
// START BATCH DML, 100 ExecContext and RUN BATCH on one sql.Conn; and
// Apply on the driver connection through sql.Conn.Raw. The batch
// statements and Apply are found at run time: while the driver lacks them
// the tool reports those workloads "unavailable" for spannerfast instead of
// failing. The two txread workloads measure the abort-replay checksum:
// spannerfast checksums every row read in a read-write transaction that
// may be replayed; with retry_aborts_internally=false (a DSN property) it
// does not. Both spannerfast arms run them; the client, which keeps no
// checksum, runs txread-nochecksum. The floors and client-borrow run no
// writes, spannerfast-raw only the txread ones. copyfrom is driver.CopyFrom
// of the rows for spannerfast (commits of 13,333 rows, four in flight) and
// Client.Apply with ApplyAtLeastOnce of spanner.Insert mutations in batches
// of 13,333 rows, one after another, for the client; both start from the
// same [][]any. The checksum of a write
// operation is its update counts (or its mutation count) plus the values
// of the rows it read.
//
// Values use the exact wire forms of the Spanner API: INT64 as decimal
// strings of 1 to 19 digits, FLOAT64 as number_value, TIMESTAMP as RFC 3339
// UTC with 0, 3, 6 or 9 fraction digits, DATE as YYYY-MM-DD, BYTES as padded
// base64, NUMERIC as money-like decimals (up to 9 integer and 6 fraction
// digits), JSON as a small normalized object of three keys, ARRAY<INT64> as a
// list of decimal strings. There are no NULLs.
//
// Arms, all reading the same results in the same run:
//
//	transport-floor   bare gRPC: grpc.NewClient with default options (plain
//	                  text, which the fake server needs, the only one), one
//	                  ClientConn, and per operation the RPCs the spannerfast
//	                  driver makes, with the request messages and headers
//	                  it sends (captured, see "The bare gRPC arm"); a
//	                  raw-bytes codec sends them and counts the bytes of
//	                  each response, decoding nothing. It runs the reads
//	                  (as the transport floor) and the per-call
//	                  operations
//	sql-floor         database/sql with an in-tool driver whose Next only
//	                  copies values decoded before timing; Scan into the same
//	                  variables as the spannerfast arms
//	client            cloud.google.com/go/spanner: Single().Query, Row.Columns
//	client-borrow     the same with QueryOptions{ExperimentalBorrowRows: true}
//	                  (only with -tags spanner_vtproto)
//	spannerfast-safe  database/sql, sql.Open("spannerfast", dsn)
//	spannerfast-raw   the same with ;rawDecode=true, STRING and BYTES scanned
//	                  into sql.RawBytes
//	spannerfast-gzip  spannerfast-safe with ;compression=gzip: requests and
//	                  responses gzip-compressed (the fake server compresses
//	                  in its own process, so only the client's share
//	                  counts). Reads only; only when named in -arms
//	spannerfast-otel  spannerfast-safe with telemetry on: the OpenTelemetry
//	                  SDK given on the connector (WithTracerProvider,
//	                  WithMeterProvider), every span sampled and exported
//	                  through a batch span processor that blocks rather
//	                  than drops (to an exporter that counts and discards),
//	                  metrics aggregated by a manual reader. Only when
//	                  named in -arms; the global providers stay
//	                  OpenTelemetry's silent defaults, so the other arms
//	                  run with nobody listening. At its end the arm checks
//	                  that spans and metrics were recorded
//	spannerfast-gorm  gorm10k only: GORM with spannergorm on spannerfast,
//	                  Find into a new []struct per query (the checksum is
//	                  taken from the struct fields)
//
// What telemetry costs is spannerfast-otel against spannerfast-safe in one
// run (docs/performance.md, "Telemetry"):
//
//	go run ./cmd/spannerfast-bench -arms spannerfast-safe,spannerfast-otel -workloads point,gorm10k
//
// Every arm scans each column into a typed variable, as an application
// would: int64, string, float64, bool, time.Time, civil.Date (DATE), []byte,
// big.Rat (NUMERIC), spanner.NullJSON (JSON) and []spanner.NullInt64
// (ARRAY<INT64>). The official client reaches the fake server the way its
// emulator support does (SPANNER_EMULATOR_HOST, set in-process), which also
// turns off its built-in metrics; native metrics are disabled in its config
// too. Each decoding arm adds a cheap checksum of every value it read, and a
// run in which the checksum differs from the generator's is reported as
// FAILED rather than measured.
//
// # GORM against go-gorm-spanner
//
// The program in gormpeer/ (a module of its own, so that go-gorm-spanner
// and go-sql-spanner stay out of this module's go.mod) runs GORM
// operations beyond gorm10k's Find (package internal/gormwork: creates
// with and without associations, Preload) with spannergorm on spannerfast
// and with go-gorm-spanner on go-sql-spanner, PrepareStmt off and on,
// against this server: gormpeer/run.sh. Its documentation gives the
// method. The server results it reads are the hidden workloads
// gorm-preload-parents and gorm-preload-children (keys 1 to 100, ten
// children per parent) besides gorm10k; the server answers DML sent with
// ExecuteStreamingSql (go-sql-spanner's way in a transaction) as it
// answers ExecuteSql.
//
// # How it measures
//
// Rounds are interleaved: round 1 runs every workload with every arm, then
// round 2 does it again, and so on, with the order of the arms rotating from
// round to round, so that slow drift of a shared machine hits all arms alike.
// Before each measurement the tool forces a garbage collection (no arm pays
// for another's garbage) and then reads a small warm-up variant of the
// workload (three messages' worth of rows, unmeasured), which refills the
// pools that the collection emptied, so the measurement sees the steady
// state. Around the measured reading it takes:
//
//   - CPU time: the process's user+system time from getrusage, which counts
//     every goroutine and thread of the client process (gRPC receive
//     goroutines and garbage collection included); the server is another
//     process and never counts;
//   - wall time, for rows/s and queries/s;
//   - allocations and allocated bytes: runtime.MemStats Mallocs and
//     TotalAlloc deltas;
//   - for narrow5m only, peak heap: every 4% of the rows, from inside the
//     scan loop, HeapInuse is read (live data plus garbage not yet
//     collected), then a GC is forced and HeapAlloc read (what the reader
//     keeps alive). The forced collections are part of that workload's CPU
//     figures, so compare narrow5m's CPU only between arms.
//
// Reported per arm and workload: the best round for CPU and wall time, and
// the lowest round for allocations, bytes and heap.
//
// # Reading the results
//
// Progress lines on stderr show each measurement as it finishes. Stdout gets
// Markdown tables with one row per workload and one column per arm:
//
//   - CPU time: nanoseconds of CPU per row; for point and manycols,
//     microseconds per query (their cost is per query, not per value).
//   - CPU relative to client-borrow (or client when client-borrow did not
//     run): below 1 means less CPU than the official client's fastest mode.
//   - CPU relative to the floors: the transport floor is what receiving the
//     bytes costs; the database/sql floor is what database/sql and Scan cost
//     with free decoding. A database/sql driver cannot get much below the
//     sum of the two; the distance above that sum is decoding cost.
//   - Allocations and bytes per row (per query for point and manycols).
//   - Throughput: rows/s or queries/s of wall time (two processes share the
//     machine, so this is the less reliable figure).
//   - Peak heap for narrow5m: HeapInuse / live heap, in MiB, for the whole
//     process. The floors show the base every arm shares: the tool's own
//     data and gRPC's receive buffering (its flow-control window lets up to
//     16 MiB of messages wait for the reader).
//
// The write workloads get the same tables in their own section ("Writes
// and transactions", CPU in µs per operation or ns per row, ratios relative
// to client), then "Abort-replay checksum": per spannerfast arm, ns CPU per
// row with and without the checksum, the difference, the ratio, the
// allocations, and the client's ns per row for the same reads. A workload
// an arm cannot run with this driver shows "unavailable", with the reason
// under "Failures and unavailable workloads".
//
// "CPU relative to the per-row floor" gives, per read, the sum of the two
// floors' CPU (the bare stream's bytes plus database/sql's own Next and
// Scan of ready values: what a database/sql driver cannot go much below)
// and every other arm's CPU relative to it.
//
// "Per call" is one table of the operations of the group percall (point,
// manycols, concurrent-point, insert, rwtxn, concurrent-rwtxn, rotxn,
// batchdml10): per operation the RPCs the driver makes, then CPU µs and
// allocations per operation of the bare gRPC arm, spannerfast-safe and
// client, and spannerfast-safe's ratios to the bare arm and to the client.
// The client arm calls the official client as go-sql-spanner does, so it
// is go-sql-spanner's lower bound: go-sql-spanner makes those calls and
// does its own work on top.
//
// The last table, Targets, checks each goal of the driver and prints MET or
// MISSED with the measured value, or N/A when an arm it needs did not run:
//
//	workload          spannerfast-raw                  spannerfast-safe
//	narrow            CPU/row <= 0.7x client-borrow,   <= 1.0x client-borrow,
//	                  <= 1.15x the floor sum,          <= 1.35x the floor sum,
//	                  <= 0.01 allocs/row               <= 0.1 allocs/row
//	wide              CPU/row <= 0.35x client-borrow   <= 0.40x client-borrow
//	strings800        CPU/row <= 0.65x client-borrow   <= 0.85x client-borrow
//	point             CPU/query <= 1.0x bare gRPC,     same, and CPU <= 0.5x
//	                  allocs/query <= the bare arm's   and allocs <= 0.33x
//	                  + 12                             client
//	manycols          CPU/query <= 1.1x bare gRPC,     same, and CPU <= 0.5x
//	                  allocs/query <= 0.25x client     client
//	concurrent-point  CPU/query <= 1.1x bare gRPC      same, and CPU <= 0.5x
//	                                                   and allocs <= 0.33x
//	                                                   client
//	insert, rwtxn     -                                CPU/op <= 1.0x bare
//	                                                   gRPC, <= 0.5x client,
//	                                                   allocs <= 0.33x client
//	concurrent-rwtxn  -                                the same, <= 1.1x bare
//	rotxn, batchdml10 -                                CPU/op <= 0.5x client,
//	                                                   allocs <= 0.33x client
//	narrow5m          peak heap <= 48 MiB              <= 48 MiB
//
// The peak heap check is only conclusive at 5,000,000 rows (-scale 1 or
// more); at a smaller scale it says so.
//
// The chart (PNG) shows, per workload, one bar per arm: CPU relative to the
// baseline arm on a log scale, with a dashed line at 1. Bars below the line
// beat the official client's fast path; the grey floor bars show how much
// room is left.
//
// The JSON file holds the same data (for writes, the *_per_query fields
// are per operation, and checksum_cost has the checksum table) plus every
// round's raw measurement
// (CPU and wall nanoseconds, mallocs, bytes, heap, checksum), the workload
// definitions with their SQL, and the machine and Go version.
//
// # The bare gRPC arm
//
// When the bare arm opens, it learns what the driver sends: it starts a
// second fake server in this process that records every request (method,
// headers other than gRPC's own, message bytes as received), runs one
// operation of each workload it will run with spannerfast-safe's DSN
// against it, and keeps each operation's calls. That server answers as the
// benchmark's does and neither keeps state (the same session name,
// transaction ids and precommit token every time), so the recorded
// requests are valid for the benchmark's server any number of times; the
// bare arm replays them there. Reads whose results are too big to encode
// twice are refused by the recording server after their request arrived,
// which is all the recording needs. The driver writes a statement's
// parameters (protobuf maps) in Go's map order, which changes between
// calls: the bare arm sends one of those orders, the same size.
// TestBareSendsDriverRequests checks that, for every per-call workload,
// the bare arm sends the methods and messages spannerfast sends, with the
// same header names. Built with -tags nospannerfast, the arm reads with a
// plain ExecuteSqlRequest of its own and reports the writes unavailable.
//
// Absolute figures drift between runs on shared machines; compare ratios
// within one run.
package main
