package tour

import (
	"fmt"
	"slices"
	"strings"

	"pplab/engine/lab"
)

// Subject is what a preset's link brings into view: the page its sentence
// is about, where that page is after the step, or — when the sentence is
// about a structure and the step names no page in it — the structure.
type Subject struct {
	// PFN is the page (-1: none; Place is then the structure).
	PFN int32
	// Place is where the page is after the step (a machine view place;
	// "buddy" when it went back to the page allocator), or the claimed
	// structure.
	Place string
	// Holder is who holds the page there (the pool, the skb, the
	// descriptor …; Kind "" for a structure or a freed page).
	Holder lab.Holder
	// Moved is the page's path in the step, its places in order ("skb",
	// "ring"; empty for a structure's page the step did not move).
	Moved []string
	// SKB is the skb the subject is in, or (PFN -1) the first live skb an
	// event of the step names, for a claim about skbs (0: none).
	SKB int32
	// Where is that skb's place (lab.SKBView.Where: stack, socket, tap …).
	Where string
}

// SubjectOf is the subject of preset p at its step, found in the step's
// record and the snapshot after it, by the preset's Claim — never a pfn
// written in the preset: the first page the step moves the claimed way
// (Claim.Move), or the first page an event of the step names that is in
// the claimed structure (Claim.Structure), else the structure itself.
func (p Preset) SubjectOf(rec lab.StepRecord, snap *lab.Snapshot) Subject {
	cl := p.Claim
	s := Subject{PFN: -1, Place: cl.Structure}
	// A sentence about a violation is about its page (a step can move
	// several pages the claimed way: the double recycle's is the clone's).
	for _, v := range rec.Violations {
		if cl.Violation != "" && v.Kind == cl.Violation && v.PFN >= 0 {
			return PageSubject(v.PFN, rec, snap)
		}
	}
	if cl.Move != "" {
		from, to, _ := strings.Cut(cl.Move, ">")
		for _, m := range rec.Moves {
			if m.To == to && (from == "*" || m.From == from) {
				s.PFN = m.PFN
				break
			}
		}
		if s.PFN < 0 {
			s.Place = to // the claims test fails on this preset
			return s
		}
	} else {
		for _, e := range rec.Events {
			if e.Page < 0 {
				continue
			}
			if pv, ok := snap.Page(e.Page); ok && (pv.Place == cl.Structure || cl.Structure == "skb" && IsSKBPlace(pv.Place)) {
				s.PFN = e.Page
				break
			}
		}
		if s.PFN < 0 {
			if cl.Structure == "skb" || cl.Structure == "socket" || cl.Structure == "tx-ring" {
				for _, e := range rec.Events {
					if i := slices.IndexFunc(snap.SKBs, func(k lab.SKBView) bool { return k.ID == e.SKB }); e.SKB != 0 && i >= 0 {
						s.SKB, s.Where = e.SKB, snap.SKBs[i].Where
						break
					}
				}
			}
			return s
		}
	}
	return PageSubject(s.PFN, rec, snap)
}

// PageSubject is page pfn as a subject: where the machine draws it after
// the step, the skb holding it, its path in the step.
func PageSubject(pfn int32, rec lab.StepRecord, snap *lab.Snapshot) Subject {
	s := Subject{PFN: pfn}
	s.Place, s.Holder = "buddy", lab.Holder{ID: -1}
	if pv, ok := snap.Page(s.PFN); ok {
		s.Place, s.Holder = drawnAt(snap, pv), pv.Holder
		// The first skb that holds it (the holder id is the data's: clones
		// share it).
		if i := slices.IndexFunc(snap.SKBs, func(k lab.SKBView) bool { return holds(k, s.PFN) }); pv.Holder.Kind == "skb" && i >= 0 {
			s.SKB, s.Where = snap.SKBs[i].ID, snap.SKBs[i].Where
		}
	}
	for _, m := range rec.Moves {
		if m.PFN != s.PFN {
			continue
		}
		if len(s.Moved) == 0 {
			s.Moved = append(s.Moved, m.From)
		}
		if m.To != s.Moved[len(s.Moved)-1] { // a move between two descriptors, two skbs
			s.Moved = append(s.Moved, m.To)
		}
	}
	return s
}

// placeWords name a machine view place in a sentence.
var placeWords = map[string]string{
	"buddy":         "the page allocator",
	"cache":         "the alloc cache",
	"ring":          "the ptr_ring",
	"driver":        "the driver's hands",
	"nic-ring":      "the NIC RX ring",
	"skb":           "an skb",
	"socket":        "an skb in a socket queue",
	"tx-ring":       "the TX ring",
	"xdp-frame":     "an XDP frame",
	"slab":          "the slab",
	"compound-tail": "a compound page",
	"driver-cache":  "the driver's own page cache",
	"genpool":       "the memory provider",
	"user":          "the application (a dma-buf token)",
	"frag":          "the pool's frag page (pool->frag_page)",
}

// whereWords say where an skb is (lab.SKBView.Where).
var whereWords = map[string]string{
	"stack": "being processed", "socket": "in a socket receive queue", "tx-ring": "on the TX ring",
	"tap": "in the AF_PACKET tap's queue", "defer-list": "on the defer list",
}

// pathWords name a place on a page's path ("skb → ptr_ring").
var pathWords = map[string]string{
	"buddy": "page allocator", "cache": "alloc cache", "ring": "ptr_ring", "driver": "driver",
	"nic-ring": "NIC RX ring", "skb": "skb", "socket": "socket queue", "tx-ring": "TX ring",
	"xdp-frame": "XDP frame", "driver-cache": "driver's page cache", "genpool": "memory provider",
	"user": "application", "frag": "pool->frag_page",
}

// PlaceWords names place in a sentence ("the ptr_ring").
func PlaceWords(place string) string {
	if w, ok := placeWords[place]; ok {
		return w
	}
	return place
}

// Words say the subject in one line, for the figure's caption: "pfn 0x38:
// skb → ptr_ring, now in the ptr_ring".
func (s Subject) Words() string {
	if s.PFN < 0 {
		if s.SKB != 0 {
			return fmt.Sprintf("skb#%d, %s", s.SKB, whereWords[s.Where])
		}
		return "look at " + PlaceWords(s.Place)
	}
	w := fmt.Sprintf("pfn %#x", s.PFN)
	if len(s.Moved) > 1 {
		var path []string
		for _, p := range s.Moved {
			w, ok := pathWords[p]
			if !ok {
				w = p
			}
			path = append(path, w)
		}
		w += ": " + strings.Join(path, " → ")
		if s.Place != s.Moved[len(s.Moved)-1] {
			w += "; it is now in " + PlaceWords(s.Place)
		}
		return w
	}
	switch {
	case s.SKB != 0:
		return fmt.Sprintf("%s, in skb#%d %s", w, s.SKB, whereWords[s.Where])
	case s.Place == "frag":
		return w + ", " + PlaceWords(s.Place) + ": it holds the next fragments"
	}
	return w + ", in " + PlaceWords(s.Place)
}

// drawnAt is where the machine draws page pv: its place, when it is drawn
// there; else the first structure that holds it — a split page whose
// skb's half was freed is still recorded in the skb, but its other half is
// posted on the NIC ring; a frag page the pool holds between fragments is
// pool->frag_page ("frag").
func drawnAt(snap *lab.Snapshot, pv lab.PageView) string {
	in := map[string]bool{}
	if n := snap.NIC; n != nil {
		for _, d := range n.Descs {
			if (d.Posted || d.Reuse) && d.PFN == pv.PFN {
				in["nic-ring"] = true
			}
		}
	}
	for _, p := range snap.Pools {
		if slices.Contains(p.Cache, pv.PFN) {
			in["cache"] = true
		}
		if slices.ContainsFunc(p.Ring, func(r lab.RingSlot) bool { return r.PFN == pv.PFN && !r.Stale }) {
			in["ring"] = true
		}
		if p.FragPFN == pv.PFN {
			in["frag"] = true
		}
	}
	for _, k := range snap.SKBs {
		if holds(k, pv.PFN) {
			in[SKBPlace(k.Where)] = true
		}
	}
	switch {
	case len(in) == 0 || in[pv.Place]:
		return pv.Place
	}
	for _, p := range []string{"nic-ring", "cache", "ring", "skb", "socket", "tx-ring", "frag"} {
		if in[p] {
			return p
		}
	}
	return pv.Place
}

// IsSKBPlace: the places of an skb's pages (a claim about "skb" takes any).
func IsSKBPlace(p string) bool { return p == "skb" || p == "socket" || p == "tx-ring" }

// SKBPlace is the place of the pages of an skb where it is.
func SKBPlace(where string) string {
	switch where {
	case "socket", "tx-ring":
		return where
	}
	return "skb"
}

// holds: the page is skb k's head or one of its frags.
func holds(k lab.SKBView, pfn int32) bool {
	return k.HeadPFN == pfn && !k.SlabHead || slices.ContainsFunc(k.Frags, func(f lab.FragView) bool { return f.PFN == pfn })
}
