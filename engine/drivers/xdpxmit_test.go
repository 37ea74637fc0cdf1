package drivers

import (
	"testing"

	"pplab/engine/sim"
	"pplab/engine/sim/simtest"
)

// A redirect to a second port: xdp_do_redirect queues each frame on the
// devmap bulk queue, which bq_enqueue sends when it holds
// DEV_MAP_BULK_SIZE (16) frames and xdp_do_flush sends at the poll's end;
// the port's ndo_xdp_xmit maps each frame for transmit on its own device
// (not the redirecting driver's), and its TX
// completion unmaps it and gives the page back to the redirecting driver's
// pool: mvpp2 in bulk (xdp_return_frame_bulk: 16 per flush), bnxt a frame
// at a time (xdp_return_frame), into the ptr_ring in 6.9.
func TestXDPTarget_BulkQueueSendsEvery16OnItsOwnDevice(t *testing.T) {
	for _, tc := range []struct {
		name, driver string
		bulk         bool // the pages go back through page_pool_put_page_bulk
	}{
		{"mvpp2-xdp_return_frame_bulk", "mvpp2", true},
		{"bnxt-xdp_return_frame", "bnxt", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := newDriver(t, tc.driver, "6.9", "pool_size=64")
			m := d.S.M
			m.CPUs[0].Softirq = true
			port := NewXDPTarget(d)
			bulkPages := 0
			m.SetTracer(func(ev sim.Event) {
				if ev.Kind == sim.EvCall && ev.Func == sim.SymPutPageBulk && ev.Stat == sim.StatRecycleRing {
					bulkPages++ // one event per page a bulk put produces
				}
			})
			for i := 0; i < 20; i++ {
				d.Poll(64)
				m.Begin(0, sim.SymXDPRun)
				f, ok := d.ReceiveXDP(64, "the second port's devmap bulk queue")
				if !ok {
					t.Fatalf("frame %d not received", i)
				}
				if dropped := port.Enqueue(0, f); dropped != 0 {
					t.Fatalf("frame %d: %d dropped", i, dropped)
				}
				if i == 16 && (port.Queued() != 16 || port.Pending() != 1) {
					t.Fatalf("after 17 frames: %d on the TX ring, %d queued; want 16 sent by bq_enqueue, 1 queued", port.Queued(), port.Pending())
				}
			}
			port.Flush(0)
			if port.Queued() != 20 || port.Pending() != 0 || port.DMA.TxMapped != 20 || d.S.A.DMA.TxMapped != 0 {
				t.Fatalf("after the flush: %d on the TX ring, %d queued, %d mapped on the port's device, %d on the driver's; want 20, 0, 20, 0", port.Queued(), port.Pending(), port.DMA.TxMapped, d.S.A.DMA.TxMapped)
			}
			if n := port.Complete(0, 64); n != 20 {
				t.Fatalf("completed %d, want 20", n)
			}
			var s sim.Stats
			d.Pool.GetStats(&s)
			if s[sim.StatRecycleRing] != 20 || s[sim.StatRecycleCached] != 0 || s[sim.StatRecycleRingFull] != 0 || port.DMA.TxMapped != 0 {
				t.Errorf("ring %d, cached %d, ring_full %d, still mapped on the port's device %d; want 20, 0, 0, 0", s[sim.StatRecycleRing], s[sim.StatRecycleCached], s[sim.StatRecycleRingFull], port.DMA.TxMapped)
			}
			if want := map[bool]int{true: 20, false: 0}[tc.bulk]; bulkPages != want {
				t.Errorf("%d pages through page_pool_put_page_bulk, want %d", bulkPages, want)
			}
			m.SetTracer(nil)
			simtest.Clean(t, m)
		})
	}
}
