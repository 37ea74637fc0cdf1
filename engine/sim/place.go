package sim

// Place says where a page is. Every page is in exactly one place at any time.
type Place uint8

const (
	PlaceNone     Place = iota
	PlaceBuddy          // page allocator free list
	PlaceCache          // a pool's alloc cache (LIFO, 128 slots)
	PlaceRing           // a pool's ptr_ring
	PlaceDriver         // handed out by the pool (or the allocator), held by the driver/caller
	PlaceNICRing        // posted on a NIC RX descriptor ring
	PlaceSKB            // head or frag of an skb
	PlaceSocket         // in a socket receive queue
	PlaceTXRing         // on a TX ring awaiting completion
	PlaceXDPFrame       // an XDP frame in flight
	PlaceSlab           // owned by the slab allocator (skb heads, kmalloc)
	PlaceCompound       // a tail page of a compound (high-order) page
	// PlaceDriverCache: the driver's own RX page cache, a second recycler
	// in front of the pool (mlx5e_rx_cache before 6.4); the holder is the
	// cache slot. An skb may still use the page (the driver took its own
	// reference, page_ref_inc, when it built the skb).
	PlaceDriverCache
	NumPlaces
)

var placeNames = [NumPlaces]string{"none", "buddy", "cache", "ring", "driver", "nic-ring", "skb", "socket", "tx-ring", "xdp-frame", "slab", "compound-tail", "driver-cache"}

func (p Place) String() string {
	if p >= NumPlaces {
		return "?"
	}
	return placeNames[p]
}
