package diagnose

import (
	"fmt"
	"slices"
	"strings"
)

// A netlink dump or ynltool listing can show several devices: their pools
// are different drivers' or different NICs', and a sum would hide one's
// trouble in the other's counts (a healthy eth0's 1.8 G allocations made
// eth1's zombie pool and 62 % recycling read as 99.95 %). Each device is
// diagnosed apart: its own run, ranked with the paste's evidence and the
// evidence about it alone (a zombie pool is evidence of destroy for its
// own device).

// devGroup is one device's page_pool counters in a snapshot: ynltool's
// device line, or the pools netlink lists with its ifindex (the pools
// without one — orphans, their netdev gone — are one group).
type devGroup struct {
	key   string // "if2"; "orphan" for the pools without an ifindex
	label string // "eth0[2] (line 1)", "ifindex 2: pools 130, 131 (line 2)"
	line  int
	c     Counters
	pools []uint64
	name  string // the device's name, when the paste gives it
}

// devKey is the group a device or pool belongs to.
func devKey(orphan bool, ifindex uint64) string {
	if orphan {
		return "orphan"
	}
	return fmt.Sprintf("if%d", ifindex)
}

func poolKey(pl Pool) string { return devKey(!pl.HasIfindex, pl.Ifindex) }

func deviceKey(d Device) string { return devKey(d.Ifname == "<orphan>", d.Ifindex) }

// deviceGroups are the devices of a snapshot that show page_pool
// counters, in the paste's order.
func deviceGroups(sn Snapshot) []devGroup {
	var out []devGroup
	at := map[string]int{}
	group := func(key string, line int) *devGroup {
		if i, ok := at[key]; ok {
			return &out[i]
		}
		at[key] = len(out)
		out = append(out, devGroup{key: key, line: line})
		return &out[len(out)-1]
	}
	for _, d := range sn.Devices {
		if !d.Stats.Any() {
			continue
		}
		g := group(deviceKey(d), d.Line)
		g.c.add(d.Stats)
		g.name = d.Ifname
		if g.key == "orphan" {
			g.label = fmt.Sprintf("<orphan> (line %d): the pools of devices that are gone", d.Line)
		} else {
			g.label = fmt.Sprintf("%s[%d] (line %d)", d.Ifname, d.Ifindex, d.Line)
		}
	}
	for _, pl := range sn.Pools {
		if !pl.HasStats {
			continue
		}
		g := group(poolKey(pl), pl.Line)
		g.c.add(pl.Stats)
		g.pools = append(g.pools, pl.ID)
		if pl.Ifname != "" {
			g.name = pl.Ifname
		}
	}
	for i := range out {
		g := &out[i]
		if len(g.pools) == 0 {
			continue
		}
		var ids []string
		for _, id := range g.pools {
			ids = append(ids, fmt.Sprint(id))
		}
		pools := "pool " + ids[0]
		if len(ids) > 1 {
			pools = "pools " + strings.Join(ids, ", ")
		}
		switch {
		case g.key == "orphan":
			g.label = fmt.Sprintf("no ifindex (orphaned: its netdev is gone): %s (line %d)", pools, g.line)
		case g.name != "":
			g.label = fmt.Sprintf("%s[%s]: %s (line %d)", g.name, strings.TrimPrefix(g.key, "if"), pools, g.line)
		default:
			g.label = fmt.Sprintf("ifindex %s: %s (line %d)", strings.TrimPrefix(g.key, "if"), pools, g.line)
		}
	}
	return out
}

func groupKeys(gs []devGroup) []string {
	var out []string
	for _, g := range gs {
		out = append(out, g.key)
	}
	return out
}

// deviceName is a device's name for a sentence: its label up to the line.
func (g devGroup) short() string {
	if i := strings.Index(g.label, " (line"); i >= 0 && !strings.Contains(g.label[:i], ":") {
		return g.label[:i]
	}
	if i := strings.Index(g.label, ":"); i >= 0 {
		return g.label[:i]
	}
	return g.label
}

// sameKeys reports whether two snapshots show the same devices.
func sameKeys(a, b []devGroup) bool {
	ka, kb := groupKeys(a), groupKeys(b)
	slices.Sort(ka)
	slices.Sort(kb)
	return slices.Equal(ka, kb)
}
