package conn

import (
	"github.com/spannerfast/spannerfast/internal/telemetry"
	"github.com/spannerfast/spannerfast/internal/transport"
)

// What the connection does on its own after a failure (retries, stream
// resumptions, aborts and replays) is reported by the packages that do it,
// to the connector's telemetry (internal/telemetry); these give them that
// telemetry.

// report is how a unary call's retries are reported: RPC method, to the
// connector's telemetry.
func (c *Conn) report(method string) transport.Report {
	return transport.Report{Tel: c.client.Telemetry(), Method: method}
}

// Telemetry is the connector's, for the transaction engine.
func (h *txnHost) Telemetry() *telemetry.Telemetry { return h.client.Telemetry() }

// Telemetry is the connector's telemetry (driver.RunTransaction reports its retries to it).
func (c *Conn) Telemetry() *telemetry.Telemetry { return c.client.Telemetry() }
