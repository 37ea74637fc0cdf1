package workload

import (
	"testing"

	"pplab/engine/drivers"
	"pplab/engine/sim"
	"pplab/engine/sim/simtest"
)

// NewWorkload sets the frame size: the workload's default, or the frame
// knob; an unknown name is refused.
func TestNewWorkload_FrameSizeFromTheWorkloadOrTheKnob(t *testing.T) {
	tests := []struct {
		name, workload string
		opts           []string
		frame          int
	}{
		{"drop-64-byte-frames", WDrop, nil, FrameSmall},
		{"tcp-full-segments", WTCPStream, nil, FrameTCP},
		{"forward-full-udp-datagrams", WForward, nil, FrameUDP},
		{"xdp-tx-64-byte-frames", WXDPTx, nil, FrameSmall},
		{"split-page-medium", WSplitPage, nil, FrameMedium},
		{"destroy-medium", WDestroy, nil, FrameMedium},
		{"frame-knob-wins", WDrop, []string{"frame=1500"}, 1500},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k, _, _ := simtest.Options(t, tc.opts...)
			e := &Env{M: sim.NewMachine(sim.Config{Knobs: k})}
			e.Drv = newTestRun(t, WDrop, "mvpp2", "6.8").e.Drv // tcp-stream and forward read the driver's spec
			if _, err := NewWorkload(tc.workload, e); err != nil {
				t.Fatal(err)
			}
			if e.Frame != tc.frame {
				t.Errorf("frame %d, want %d", e.Frame, tc.frame)
			}
		})
	}
	if _, err := NewWorkload("no-such", &Env{M: sim.NewMachine(sim.Config{})}); err == nil {
		t.Error("an unknown workload was accepted")
	}
}

// The warm-up is every RX buffer cycled twice plus a poll's budget.
func TestWarmPackets_TwoRingsAndABudget(t *testing.T) {
	r := newTestRun(t, WDrop, "mvpp2", "6.8")
	if got, want := WarmPackets(r.e.Drv), int64(2*64+drivers.Budget); got != want {
		t.Errorf("WarmPackets = %d, want %d", got, want)
	}
}
