package mm

import (
	"testing"

	"pplab/engine/sim"
)

// DMA.Unbind: every DMA API call that names the device afterwards — an
// RX unmap, a sync either way, a TX unmap of a page or of a kmalloc'ed
// buffer — is one dma-unmap-after-unbind (once per page while it stays
// where it is), attributed to no rule; before the unbind the same calls
// are clean. The calls still happen (the counters move): the model reports
// the kernel's crash and goes on.
func TestDMAUnbind_EveryCallAfterUnbindIsReported(t *testing.T) {
	for _, unbind := range []bool{false, true} {
		m, a := newAlloc(t)
		d := &a.DMA
		pg, tx := a.AllocPagesNode(0, -1, 0), a.AllocPagesNode(0, -1, 0)
		if _, ok := d.MapPage(0, pg, PageSize, DMAFromDevice); !ok {
			t.Fatal("map failed")
		}
		d.MapTX(0, tx, 64)
		d.MapTX(0, nil, 64)
		if unbind {
			m.Begin(0, sim.SymDeviceUnbind)
			d.Unbind(0)
		}
		d.SyncForCPU(0, pg, 0, 64, DMAFromDevice)
		d.SyncForDevice(0, pg, 0, 64, DMAFromDevice) // same page, same place: reported once
		d.UnmapPage(0, pg, PageSize, DMAFromDevice)
		d.UnmapTX(0, tx)
		d.UnmapTX(0, nil)
		want := map[bool]int64{false: 0, true: 5}[unbind]
		reports := map[bool]int{false: 0, true: 3}[unbind] // pg once, tx once, the kmalloc'ed buffer once
		if d.AfterUnbind != want || d.Unmaps != 1 || d.TxMapped != 0 || d.Unbound != unbind {
			t.Errorf("unbind %v: %d calls after unbind, %d unmaps, %d TX mapped; want %d, 1, 0", unbind, d.AfterUnbind, d.Unmaps, d.TxMapped, want)
		}
		if got := m.Log.Counts[sim.KindDMAUnmapAfterUnbind]; got != reports || m.Log.Total() != got {
			t.Errorf("unbind %v: violations %v, want %d dma-unmap-after-unbind", unbind, m.Log.List, reports)
		}
		for _, v := range m.Log.List {
			if v.Rule != sim.RuleNone {
				t.Errorf("%v: attributed to rule %v, none is broken", v, v.Rule)
			}
		}
		a.PutPage(0, pg)
		a.PutPage(0, tx)
		m.CheckInvariants() // freed unmapped: no dma-leak, nothing else
		if m.Log.Total() != reports {
			t.Errorf("unbind %v: after the frees %v", unbind, m.Log.List)
		}
	}
}
