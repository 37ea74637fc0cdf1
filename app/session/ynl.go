package session

import (
	"strings"

	"pplab/engine/lab"
)

// The run's pools as ynl would show them: the playground's
// pool panel opens a <details> (text table TableYNL) with what `ynl
// --family netdev --dump page-pool-get` and `page-pool-stats-get` would
// print for the run now, and what `ynltool page-pool stats` would derive
// (lab.Lab.YNL and its renderings, the same as `ppsim run --json`'s "ynl"
// key). Built only while it is open: a closed one costs a step nothing.

// YNLView is the run's pools as the netdev netlink family shows them
// (nil dumps while closed).
type YNLView struct {
	Open bool
	// The commands' outputs, each after its command line.
	PoolGet, StatsGet, Ynltool string
	Pools                      int    // the pools netlink lists
	Note                       string // what a real kernel of the era would not show
	// IDNote says which ids the era's kernel gave pools netlink does not
	// list (the system pools, 6.9 on); Formula is ynltool's derivation.
	IDNote, Formula string
	Op              uint64
}

// ynlView is the view of TableYNL.
func (s *Session) ynlView() YNLView {
	if !s.tablesOpen[TableYNL] {
		return YNLView{}
	}
	y := s.lab.YNL()
	v := YNLView{Open: true, Pools: len(y.Pools), Note: y.Note, IDNote: s.lab.YNLIDNote(), Formula: lab.YnltoolFormula, Op: s.snap.Op}
	var b strings.Builder
	b.WriteString("$ ynl --family netdev --dump page-pool-get\n")
	y.WritePagePoolGet(&b, false)
	v.PoolGet = b.String()
	b.Reset()
	b.WriteString("$ ynl --family netdev --dump page-pool-stats-get\n")
	y.WritePagePoolStatsGet(&b, false)
	v.StatsGet = b.String()
	b.Reset()
	b.WriteString("$ ynltool page-pool stats\n")
	y.WriteYnltool(&b, false)
	v.Ynltool = b.String()
	return v
}
