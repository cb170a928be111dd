package transport

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/spannerfast/spannerfast/dsn"
)

func TestOnEmulator(t *testing.T) {
	for _, tc := range []struct {
		name     string
		env      string
		dsn      string
		emulator bool
	}{
		{"production", "", "projects/p/instances/i/databases/d", false},
		{"plain text endpoint", "", "localhost:9010/projects/p/instances/i/databases/d;usePlainText=true", false},
		{"SPANNER_EMULATOR_HOST", "localhost:9010", "projects/p/instances/i/databases/d", true},
		{"DSN endpoint wins over SPANNER_EMULATOR_HOST", "localhost:9010", "h:1/projects/p/instances/i/databases/d;usePlainText=true", false},
		{"autoConfigEmulator", "", "projects/p/instances/i/databases/d;autoConfigEmulator=true", true},
		{"autoConfigEmulator with endpoint", "", "h:1/projects/p/instances/i/databases/d;autoConfigEmulator=true", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(EmulatorHostEnv, tc.env)
			cfg, err := dsn.Parse(tc.dsn)
			if err != nil {
				t.Fatal(err)
			}
			if got := onEmulator(cfg); got != tc.emulator {
				t.Errorf("onEmulator = %v, want %v", got, tc.emulator)
			}
			c, err := NewClient(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if (c.emulator != nil) != tc.emulator {
				t.Errorf("client emulator state %v, want emulator %v", c.emulator, tc.emulator)
			}
			if l := c.NewSessionLease(); (l.emu != nil) != tc.emulator {
				t.Errorf("connection emulator state %v, want emulator %v", l.emu, tc.emulator)
			}
		})
	}
}

// Off the emulator the read-write hooks do nothing and hold nothing.
func TestReadWriteGateOffEmulator(t *testing.T) {
	l := (&Client{}).NewSessionLease()
	if err := l.EnterReadWrite(context.Background()); err != nil {
		t.Fatal(err)
	}
	l.LeaveReadWrite()
	l.Close()
}

func TestEmulatorGateOneAtATime(t *testing.T) {
	g := newEmulatorGate(time.Hour)
	ctx := context.Background()
	if held, err := g.enter(ctx); !held || err != nil {
		t.Fatalf("first enter: held %v, %v", held, err)
	}
	entered := make(chan bool)
	go func() {
		held, _ := g.enter(ctx)
		entered <- held
	}()
	select {
	case <-entered:
		t.Fatal("a second holder got in while the first held the gate")
	case <-time.After(50 * time.Millisecond):
	}
	g.leave()
	if !<-entered {
		t.Fatal("the waiter did not get the gate when it was released")
	}
	g.leave()
}

func TestEmulatorGateWaitEndsWithContext(t *testing.T) {
	g := newEmulatorGate(time.Hour)
	if held, _ := g.enter(context.Background()); !held {
		t.Fatal("first enter did not hold the gate")
	}
	defer g.leave()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	held, err := g.enter(ctx)
	if held || !errors.Is(err, context.Canceled) {
		t.Fatalf("enter with an ended context: held %v, %v; want context.Canceled", held, err)
	}
}

// A holder that keeps starting statements keeps the others waiting; one
// that starts nothing for the stall time (a goroutine that waits for a
// second transaction while it holds one) no longer blocks them.
func TestEmulatorGateStalledHolder(t *testing.T) {
	const stall = 20 * time.Millisecond
	ctx := context.Background()

	g := newEmulatorGate(stall)
	if held, _ := g.enter(ctx); !held {
		t.Fatal("first enter did not hold the gate")
	}
	// The holder's last statement started "later" than any check the
	// waiter makes: it is working, however slowly this machine runs.
	g.active.Store(time.Now().Add(time.Hour).UnixNano())
	entered := make(chan bool)
	go func() {
		held, _ := g.enter(ctx)
		entered <- held
	}()
	select {
	case held := <-entered:
		t.Fatalf("the waiter went ahead (held %v) while the holder was working", held)
	case <-time.After(10 * stall):
	}
	g.leave()
	if !<-entered {
		t.Fatal("the waiter did not get the gate the working holder released")
	}

	// The new holder starts nothing: the next waiter goes ahead without
	// the gate.
	if held, _ := g.enter(ctx); held {
		t.Fatal("entered a gate that is held")
	}
	g.leave()
}

// A read-write transaction that opened (DeferReadWrite) holds nothing until
// its first statement asks for the session, which enters the gate once;
// EnterPendingReadWrite does the same for a commit of buffered mutations,
// and LeaveReadWrite forgets a transaction that never started.
func TestEmulatorDeferredReadWrite(t *testing.T) {
	ctx := context.Background()
	c := &Client{emulator: &emulatorState{gate: newEmulatorGate(time.Hour)}}
	g := c.emulator.gate
	l := c.NewSessionLease()
	l.emu.session = "s" // no session to create

	l.DeferReadWrite()
	if len(g.sem) != 0 || l.emu.gated {
		t.Fatal("an open transaction that started nothing holds the gate")
	}
	if s, err := l.Session(ctx); err != nil || s != "s" {
		t.Fatalf("Session: %q, %v", s, err)
	}
	if len(g.sem) != 1 || !l.emu.gated || l.emu.pending {
		t.Fatalf("the first statement did not enter the gate: held %d, gated %v, pending %v", len(g.sem), l.emu.gated, l.emu.pending)
	}
	if _, err := l.Session(ctx); err != nil || len(g.sem) != 1 {
		t.Fatalf("a second statement: %v, gate count %d", err, len(g.sem))
	}
	l.LeaveReadWrite()
	if len(g.sem) != 0 || l.emu.gated {
		t.Fatal("LeaveReadWrite kept the gate")
	}

	// Buffered mutations only: the commit enters.
	l.DeferReadWrite()
	if err := l.EnterPendingReadWrite(ctx); err != nil || len(g.sem) != 1 || !l.emu.gated {
		t.Fatalf("EnterPendingReadWrite: %v, gate count %d", err, len(g.sem))
	}
	l.LeaveReadWrite()

	// A transaction that never started: Leave forgets it, and a later
	// single-use read does not enter the gate.
	l.DeferReadWrite()
	l.LeaveReadWrite()
	if _, err := l.Session(ctx); err != nil || len(g.sem) != 0 || l.emu.gated {
		t.Fatalf("after an empty transaction Session entered the gate (%v, count %d)", err, len(g.sem))
	}
	if err := l.EnterPendingReadWrite(ctx); err != nil || len(g.sem) != 0 {
		t.Fatalf("EnterPendingReadWrite with nothing pending: %v, gate count %d", err, len(g.sem))
	}

	// While another holds the gate, the first statement waits for it and
	// ends with its context.
	if held, _ := g.enter(ctx); !held {
		t.Fatal("could not take the gate")
	}
	l.DeferReadWrite()
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := l.Session(cctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Session while another holds the gate, context ended: %v", err)
	}
	g.leave()
	if _, err := l.Session(ctx); err != nil || !l.emu.gated {
		t.Fatalf("Session once the gate is free: %v, gated %v", err, l.emu.gated)
	}
	l.LeaveReadWrite()
}
