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
	// PlaceGenpool: a free net_iov of a memory provider: a chunk in its
	// dma-buf binding's genpool (devmem) or the io_uring area's freelist;
	// the holder is the binding.
	PlaceGenpool
	// PlaceUser: a net_iov handed to user space as a dma-buf token
	// (SCM_DEVMEM_DMABUF, recorded in sk->sk_user_frags) or an io_uring
	// zcrx CQE, until the user gives it back; the holder is the binding.
	PlaceUser
	NumPlaces
)

var placeNames = [NumPlaces]string{"none", "buddy", "cache", "ring", "driver", "nic-ring", "skb", "socket", "tx-ring", "xdp-frame", "slab", "compound-tail", "driver-cache", "genpool", "user"}

func (p Place) String() string {
	if p >= NumPlaces {
		return "?"
	}
	return placeNames[p]
}
