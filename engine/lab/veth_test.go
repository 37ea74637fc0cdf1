package lab

import (
	"strings"
	"testing"

	"pplab/engine/sim"
)

// TestVethTransfer_BulkRefillsRingOverflowAndDestroy: the model's veth
// transfer of 4 MiB (what make live records): 65 skbs copied by
// skb_pp_cow_data, pages held in whole bulk refills, more out at once
// than the ptr_ring holds (so some released when it overflowed), every
// page back after the destroy; and each tracepoint line in the era's
// format.
func TestVethTransfer_BulkRefillsRingOverflowAndDestroy(t *testing.T) {
	var lines int
	res, err := RunVethTransfer(VethTransfer{Era: "6.18", MiB: 4}, func(e sim.Event) {
		if e.IsTracepoint() {
			lines++
			if e.Kind == sim.EvStateHold && !strings.Contains(e.TracePayload(), "is_net_iov=0, pfn=") {
				t.Errorf("not 6.18's hold: %s", e.TraceLine())
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.SKBs != 65 || res.Holds%64 != 0 || res.MaxInflight <= 256 || res.Releases != res.Holds || res.Inflight != 0 || res.ReleasedBeforeClose == 0 {
		t.Errorf("%+v", res)
	}
	if lines != int(res.Holds+res.Releases)+1 {
		t.Errorf("%d tracepoint lines for %d holds and %d releases and one page_pool_release", lines, res.Holds, res.Releases)
	}
}

func TestVethTransfer_RefusesWhatItDoesNotModel(t *testing.T) {
	for _, tc := range []struct {
		v    VethTransfer
		want string
	}{
		{VethTransfer{Era: "6.8", MiB: 4}, "the model's veth is 6.9's and later"},
		{VethTransfer{Era: "6.18", MiB: 0}, "want 1 to 1024"},
		{VethTransfer{Era: "6.18", MiB: 4, Rcvbuf: 10}, "rcvbuf 10"},
		{VethTransfer{Era: "2.6", MiB: 4}, "2.6"},
	} {
		if _, err := RunVethTransfer(tc.v, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.v, err, tc.want)
		}
	}
}
