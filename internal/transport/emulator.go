package transport

import (
	"context"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spannerfast/spannerfast/dsn"
)

// Concurrency on the Cloud Spanner emulator.
//
// The emulator runs one read-write transaction per database at a time. The
// first read or write of a read-write transaction (not BeginTransaction)
// takes a database-wide lock that commit or rollback releases. A newcomer
// that wants the lock while another transaction holds it is aborted at that
// statement ("Transaction N aborted due to active transaction M. The
// emulator only supports one transaction at a time.") or, one time in five
// by default, the holder is aborted instead and its next call fails
// ("Transaction: M aborted due to another transaction getting priority.").
// Neither error carries RetryInfo. Autocommit DML, Commit of a single-use
// transaction and partitioned DML are aborted the same way; DDL is refused
// with FAILED_PRECONDITION ("Schema change operation rejected because a
// concurrent schema change operation or read-write transaction is already
// in progress") or, at the same odds, aborts the holder. Deleting the
// holder's session does not release the lock.
//
// The emulator also treats a multiplexed session as a plain one: a new
// transaction on a session ends the one before it, whose next call fails
// with NOT_FOUND "Transaction not found: N" and after that with
// FAILED_PRECONDITION "Invalid transaction ID. Transaction ID must be >= N".
// Single-use reads leave the session's transaction alone, and a read-only
// transaction on a session of its own keeps its snapshot while others
// write and commit.
//
// So, when the client is on the emulator (auto_config_emulator, or the
// endpoint came from SPANNER_EMULATOR_HOST):
//
//   - Every connection gets a regular session of its own, created on first
//     use and deleted when the connection closes (session_lease.go):
//     a connection runs one transaction at a time, so no transaction ends
//     another and a read-only transaction stays one snapshot.
//   - Read-write work of one process (read-write transactions from their
//     first statement, or the commit of their buffered mutations, to
//     Commit or Rollback; autocommit DML, partitioned DML, Apply, DDL)
//     passes a gate, one per database, that lets one at a time proceed,
//     so this process's transactions do not abort one another and its DDL
//     is not refused because of them. A transaction enters where the
//     emulator takes its lock, not at BeginTx (DeferReadWrite): one that
//     is open but has started nothing holds nothing.
//     A waiter waits while the holder makes progress; when the holder has
//     started no statement for emulatorStall (a goroutine that holds one
//     transaction and waits for another to finish, or a transaction left
//     open), the waiter goes ahead without the gate, and the emulator's
//     aborts and the driver's replay of aborted transactions sort them out.
//     The gate never waits longer than the caller's context. (Under
//     RunTransaction such nesting does not settle: the emulator aborts the
//     outer transaction, RunTransaction runs its function again, and that
//     meets the same wait.)
//
// Against Spanner itself none of this runs: the Client has no emulator
// state, connections use the shared multiplexed session, and the hot path
// pays one nil check per session lookup.

// emulatorStall is how long the holder of the read-write gate may start no
// statement before a waiter goes ahead without the gate.
const emulatorStall = 500 * time.Millisecond

// emulatorState is a Client's state on the emulator (nil otherwise).
type emulatorState struct {
	gate *emulatorGate
}

// onEmulator reports whether cfg leads to the emulator: auto_config_emulator,
// or no endpoint in the DSN and SPANNER_EMULATOR_HOST set.
func onEmulator(cfg *dsn.Config) bool {
	return cfg.AutoConfigEmulator || cfg.Endpoint == "" && os.Getenv(EmulatorHostEnv) != ""
}

// newEmulatorState returns the emulator state of a client whose channels
// dial endpoint for database dbPath, or nil when cfg is not for the emulator.
func newEmulatorState(cfg *dsn.Config, endpoint, dbPath string) *emulatorState {
	if !onEmulator(cfg) {
		return nil
	}
	return &emulatorState{gate: gateFor(endpoint + "\x00" + dbPath)}
}

// emulatorGates holds one gate per emulator database of the process (key:
// endpoint and database path), shared by all connectors.
var emulatorGates sync.Map // string -> *emulatorGate

func gateFor(key string) *emulatorGate {
	if g, ok := emulatorGates.Load(key); ok {
		return g.(*emulatorGate)
	}
	g, _ := emulatorGates.LoadOrStore(key, newEmulatorGate(emulatorStall))
	return g.(*emulatorGate)
}

func newEmulatorGate(stall time.Duration) *emulatorGate {
	return &emulatorGate{sem: make(chan struct{}, 1), stall: stall}
}

// emulatorGate lets one read-write unit of work of the process proceed at a
// time on one emulator database.
type emulatorGate struct {
	sem    chan struct{} // holds a token while the gate is held
	stall  time.Duration // emulatorStall (tests use less)
	active atomic.Int64  // when the holder last started something (UnixNano)
}

// enter waits for the gate. It returns true when the caller holds it, false
// when it goes ahead without it because the holder stalled, and ctx's error
// when ctx ends first.
func (g *emulatorGate) enter(ctx context.Context) (bool, error) {
	select {
	case g.sem <- struct{}{}:
		g.touch()
		return true, nil
	default:
	}
	t := time.NewTimer(g.stall)
	defer t.Stop()
	for {
		select {
		case g.sem <- struct{}{}:
			g.touch()
			return true, nil
		case <-ctx.Done():
			return false, ctx.Err()
		case <-t.C:
			idle := time.Since(time.Unix(0, g.active.Load()))
			if idle >= g.stall {
				return false, nil
			}
			t.Reset(g.stall - idle)
		}
	}
}

// touch notes that the holder is making progress.
func (g *emulatorGate) touch() { g.active.Store(time.Now().UnixNano()) }

// leave releases the gate; only its holder calls it.
func (g *emulatorGate) leave() { <-g.sem }

// OnEmulator reports whether the client's database is on the emulator,
// which runs one read-write transaction per database at a time
// (internal/bulkload sends one commit at a time there).
func (c *Client) OnEmulator() bool { return c.emulator != nil }
