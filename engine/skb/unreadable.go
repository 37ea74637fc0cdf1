package skb

import (
	"errors"
	"fmt"

	"pplab/engine/sim"
)

// Unreadable frags (65249feb6b3d "net: add support for skbs with
// unreadable frags", v6.12; the v13 posting is
// <20240625024721.2140656-10-almasrymina@google.com>): a frag whose netmem
// is a net_iov lives in device memory the CPU cannot read, so the skb is
// marked skb->unreadable when the frag is added (__skb_fill_netmem_desc)
// and every helper that would touch the frags' bytes refuses; only the
// headers, in host memory (header split), are readable.

// ErrFault is -EFAULT.
var ErrFault = errors.New("-EFAULT")

// SkbFragsReadable models skb_frags_readable(skb): !skb->unreadable.
func SkbFragsReadable(sk *SKB) bool { return !sk.Unreadable }

// SkbCopyBits models skb_copy_bits(skb, offset, to, len): copy len bytes
// from offset into a buffer. The linear part is copied first; then `if
// (!skb_frags_readable(skb)) goto fault;` — -EFAULT before any frag is
// read. Breaking frags-readable lets the copy read the frags: every
// net_iov frag it reads is reported (unreadable-frag-read) — the CPU would
// read device memory it has no mapping of. Returns the bytes copied.
func (s *Stack) SkbCopyBits(cpu int, sk *SKB, offset, n int) (int, error) {
	if offset < 0 || n < 0 || offset+n > sk.Len {
		return 0, fmt.Errorf("skb_copy_bits: %d bytes at %d are outside skb#%d (len %d)", n, offset, sk.ID, sk.Len)
	}
	cost := s.M.Charge(cpu, sim.SymSkbCopyBits, n)
	lin := min(n, max(0, sk.Headlen()-offset))
	if lin == n {
		return n, nil // the bytes are all in the head
	}
	if !SkbFragsReadable(sk) && !s.M.Broken(sim.RuleFragsReadable) {
		s.ev(cpu, sim.SymSkbCopyBits, sk, nil, sim.PlaceNone, sim.PlaceNone, cost,
			"skb_copy_bits: the frags are unreadable (net_iovs in device memory): -EFAULT after copying the head")
		return lin, fmt.Errorf("skb_copy_bits: skb#%d: %w: its frags are unreadable device memory", sk.ID, ErrFault)
	}
	// Walk the frags the copy covers.
	pos := sk.Headlen()
	end := offset + n
	d := sk.D
	for i := 0; i < d.NrFrags && pos < end; i++ {
		f := &d.Frags[i]
		if pos+f.Size > offset && f.Page.IsNetIov() {
			f.Page.ReportOnce(s.M, sim.KindUnreadableRead, s.M.RuleFor(sim.KindUnreadableRead),
				"skb_copy_bits read skb#%d's frag %d, a net_iov of device memory the CPU has no mapping of (skb_frags_readable is false)", sk.ID, i)
		}
		pos += f.Size
	}
	s.M.Charge(cpu, sim.SymMemcpy, n)
	s.ev(cpu, sim.SymSkbCopyBits, sk, nil, sim.PlaceNone, sim.PlaceNone, cost, "skb_copy_bits: copies the bytes out of the head and the frags")
	return n, nil
}

// PacketSnaplen models the snaplen of an AF_PACKET tap (packet_rcv,
// tpacket_rcv): `snaplen = skb_frags_readable(skb) ? skb->len :
// skb_headlen(skb)` (65249feb6b3d): a tap of an unreadable skb captures
// its headers only. Breaking frags-readable captures the whole skb, and
// the copy (SkbCopyBits) then reads the frags.
func (s *Stack) PacketSnaplen(sk *SKB) int {
	if !SkbFragsReadable(sk) && !s.M.Broken(sim.RuleFragsReadable) {
		return sk.Headlen()
	}
	return sk.Len
}
