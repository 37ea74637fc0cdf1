package drivers

import (
	"pplab/engine/skb"
)

// MapTX models the driver's ndo_start_xmit mappings: dma_map_single of the
// linear data and skb_frag_dma_map of each frag. On a mapping error the
// mappings made are undone and the frame is dropped (false).
func (dr *Driver) MapTX(cpu int, sk *skb.SKB) bool {
	dma := &dr.S.A.DMA
	d := sk.D
	if !dma.MapTX(cpu, d.HeadPage, sk.Headlen()) { // HeadPage is nil for a kmalloc'ed head
		return false
	}
	for i := 0; i < d.NrFrags; i++ {
		f := &d.Frags[i]
		if !dma.MapTX(cpu, f.Page, f.Size) {
			dma.UnmapTX(cpu, d.HeadPage)
			for j := 0; j < i; j++ {
				dma.UnmapTX(cpu, d.Frags[j].Page)
			}
			return false
		}
	}
	return true
}

// UnmapTX undoes MapTX at TX completion.
func (dr *Driver) UnmapTX(cpu int, sk *skb.SKB) {
	d := sk.D
	dr.S.A.DMA.UnmapTX(cpu, d.HeadPage)
	for i := 0; i < d.NrFrags; i++ {
		dr.S.A.DMA.UnmapTX(cpu, d.Frags[i].Page)
	}
}
