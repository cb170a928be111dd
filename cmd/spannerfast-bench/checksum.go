package main

import (
	"fmt"
	"strings"

	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/workload"
)

// checksumCost is what the abort-replay checksum costs a spannerfast arm:
// the same rows read in a read-write transaction with
// retry_aborts_internally=true (every row checksummed, so that a replay can
// tell whether the data changed) and =false (no checksum).
type checksumCost struct {
	Arm               string   `json:"arm"`
	CPUPerRowNs       float64  `json:"cpu_per_row_ns"`             // with the checksum
	CPUPerRowNsOff    float64  `json:"cpu_per_row_ns_no_checksum"` // without
	ExtraNsPerRow     float64  `json:"extra_ns_per_row"`
	Ratio             float64  `json:"ratio"` // with / without
	AllocsPerRow      float64  `json:"allocs_per_row"`
	AllocsPerRowOff   float64  `json:"allocs_per_row_no_checksum"`
	ClientCPUPerRowNs *float64 `json:"client_cpu_per_row_ns,omitempty"` // the official client, which keeps no checksum
}

// txReadPair finds the transaction-read workloads with and without
// replays.
func (rep *report) txReadPair() (on, off *workloadInfo) {
	for i := range rep.Workloads {
		w := &rep.Workloads[i]
		if w.Op != workload.OpTxRead.String() {
			continue
		}
		if w.RetryAborts {
			on = w
		} else {
			off = w
		}
	}
	return on, off
}

func checksumCosts(rep *report) []checksumCost {
	on, off := rep.txReadPair()
	if on == nil || off == nil {
		return nil
	}
	var out []checksumCost
	for _, arm := range []string{armFastSafe, armFastRaw} {
		with, without := rep.get(arm, on.Name), rep.get(arm, off.Name)
		if with == nil || without == nil || without.CPUPerRowNs <= 0 {
			continue
		}
		c := checksumCost{Arm: arm, CPUPerRowNs: with.CPUPerRowNs, CPUPerRowNsOff: without.CPUPerRowNs,
			ExtraNsPerRow: with.CPUPerRowNs - without.CPUPerRowNs, Ratio: with.CPUPerRowNs / without.CPUPerRowNs,
			AllocsPerRow: with.AllocsPerRow, AllocsPerRowOff: without.AllocsPerRow}
		if cl := rep.get(armClient, off.Name); cl != nil {
			c.ClientCPUPerRowNs = &cl.CPUPerRowNs
		}
		out = append(out, c)
	}
	return out
}

func writeChecksumTable(b *strings.Builder, costs []checksumCost) {
	if len(costs) == 0 {
		return
	}
	b.WriteString("### Abort-replay checksum\n\n" +
		"Rows read in a read-write transaction with retry_aborts_internally=true (checksummed for replays) and =false; " +
		"the official client keeps no checksum.\n\n")
	var t mdTable
	t.header("arm", "ns CPU/row checksummed", "ns CPU/row without", "checksum ns/row", "ratio",
		"allocs/row checksummed / without", "client ns CPU/row")
	for _, c := range costs {
		client := "—"
		if c.ClientCPUPerRowNs != nil {
			client = fmtNum(*c.ClientCPUPerRowNs)
		}
		t.row(c.Arm, fmtNum(c.CPUPerRowNs), fmtNum(c.CPUPerRowNsOff), fmtNum(c.ExtraNsPerRow),
			fmt.Sprintf("%.2fx", c.Ratio), fmtNum(c.AllocsPerRow)+" / "+fmtNum(c.AllocsPerRowOff), client)
	}
	b.WriteString(t.b.String() + "\n")
}
