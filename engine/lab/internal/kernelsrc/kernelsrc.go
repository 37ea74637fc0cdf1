// Package kernelsrc is the per-era table of the kernel identifiers the
// narration names (idents.tsv, embedded: the file each is defined in, per
// release), and the links it makes: Source names a modelled function as
// the era's kernel (and driver) does and links it to its definition.
// Plain links for the reader to follow; nothing fetches them.
package kernelsrc

import (
	_ "embed"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"

	"pplab/engine/drivers"
	"pplab/engine/sim"
)

// identsTSV is the per-era table of the kernel identifiers the narration
// names, with the file each is defined in (idents.tsv says how it was made
// and what each row rests on).
//
//go:embed idents.tsv
var identsTSV string

// IdentDef is where an identifier is defined in an era's release.
type IdentDef struct {
	File string // path in the release's tree; "" for an RFC identifier
	// MsgID is the lore Message-Id of the RFC patch that adds the
	// identifier (rfc-v1 only); File is then "".
	MsgID string
	Why   string // what the row rests on ("-": no move known)
}

// identTable is idents.tsv read against the model's eras on the first
// look-up (not at start-up: a batch run names no identifier), each era's
// entries built on the first look-up in that era: the browser's first
// step names one era, and building all twenty cost it 60–90 ms of its
// cold start (parseIdents builds every era, with the checks;
// TestIdents_TheLookupsTableIsTheParsedOne holds the two equal).
var identTable = sync.OnceValue(func() *table {
	t, err := readIdents(identsTSV, sim.Eras)
	if err != nil {
		panic(err)
	}
	return t
})

// Status is what the table says of an identifier in an era.
type Status uint8

const (
	// Absent: no row defines the identifier in the era, and none that
	// could has been left unchecked there.
	Absent Status = iota
	// Defined: a row checked in the era defines it there.
	Defined
	// Unverified: a row not yet checked in the era covers it or lies next
	// to it (idents.tsv, "checked through"): the era inherits nothing until
	// someone checks the row there.
	Unverified
	// Inferred: the era's release could not be read (idents.tsv's @unread
	// line) and the row, not checked there, defines the identifier in the
	// same file in the checked eras on both sides of it: the lookup gives
	// that file and says it was not read, and from which eras it is assumed.
	Inferred
)

// table is the parsed idents.tsv: per era name and identifier, what the
// table says.
type table struct {
	mu sync.Mutex // guards at while eras are built on their first look-up
	at map[string]map[string]entry
	// pending: per line of a row, the eras (names, in the era order) it
	// was not checked in and could hold in: what TestIdents_EveryEraIsChecked
	// lists and its -checked flag records.
	pending map[int][]string
	// checked is the @checked line's eras, in its order.
	checked []string
	// unread is the @unread line's eras.
	unread []string

	// What the entries are built from (readIdents).
	eras      []sim.Era
	rows      []row
	pos, base []int        // per era index: position on the mainline, a branch's base (-1: none)
	mainline  []int        // the mainline's era indices, in order
	checkedAt map[int]int  // era index → position in @checked
	unreadAt  map[int]bool // the @unread eras
}

type entry struct {
	status Status
	def    IdentDef
	line   int       // the row that says so
	thru   string    // an Unverified row's checked-through era
	sides  [2]string // an Inferred entry's checked eras before and after it
}

// row is one line of idents.tsv.
type row struct {
	ident    string
	line     int
	def      IdentDef
	covers   []bool // per index into the era list: whether the row's eras name it (checked or not)
	through  int    // position in @checked of the row's checked-through era
	thruName string
}

// parseIdents reads the table against an era list (sim.Eras, or a test's
// list with an era inserted): ranges along the list's mainline, branches
// named on their own, each row valid for the eras checked through its
// third column (idents.tsv's header says how to read it). Every era's
// entries are built, and the rows still to check in each (pending).
func parseIdents(text string, eras []sim.Era) (*table, error) {
	t, err := readIdents(text, eras)
	if err != nil {
		return nil, err
	}
	for i := range eras {
		m, lines, err := t.build(i)
		if err != nil {
			return nil, err
		}
		t.at[eras[i].Name] = m
		for _, l := range lines {
			t.pending[l] = append(t.pending[l], eras[i].Name)
		}
	}
	return t, nil
}

// readIdents reads the rows and the @checked and @unread lines; the
// entries of an era are built by build.
func readIdents(text string, eras []sim.Era) (*table, error) {
	index := map[string]int{}
	for i := range eras {
		index[eras[i].Name] = i
	}
	var mainline []int             // indices of the mainline eras, in order
	pos := make([]int, len(eras))  // index → position on the mainline (-1 for a branch)
	base := make([]int, len(eras)) // index → the branch's base index (-1 on the mainline)
	for i := range eras {
		pos[i], base[i] = -1, -1
		if b := eras[i].Branch; b != "" {
			j, ok := index[b]
			if !ok {
				return nil, fmt.Errorf("idents: era %s branches off unknown era %q", eras[i].Name, b)
			}
			base[i] = j
			continue
		}
		pos[i] = len(mainline)
		mainline = append(mainline, i)
	}
	checkedAt := map[int]int{} // era index → position in @checked
	unread := map[int]bool{}   // the @unread eras
	var rows []row
	for n, line := range strings.Split(text, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if f[0] == "@unread" {
			if len(f) != 2 || len(unread) > 0 {
				return nil, fmt.Errorf("idents.tsv:%d: want one @unread line, tab, the eras separated by spaces", n+1)
			}
			for _, name := range strings.Fields(f[1]) {
				i, ok := index[name]
				if !ok || unread[i] || pos[i] < 0 {
					return nil, fmt.Errorf("idents.tsv:%d: @unread: era %q unknown, repeated or a branch", n+1, name)
				}
				unread[i] = true
			}
			continue
		}
		if f[0] == "@checked" {
			if len(f) != 2 || len(checkedAt) > 0 {
				return nil, fmt.Errorf("idents.tsv:%d: want one @checked line, tab, the eras separated by spaces", n+1)
			}
			for k, name := range strings.Fields(f[1]) {
				i, ok := index[name]
				if _, dup := checkedAt[i]; !ok || dup {
					return nil, fmt.Errorf("idents.tsv:%d: @checked: era %q unknown or repeated", n+1, name)
				}
				checkedAt[i] = k
			}
			continue
		}
		if len(f) != 5 {
			return nil, fmt.Errorf("idents.tsv:%d: %d fields, want 5", n+1, len(f))
		}
		r := row{ident: f[0], line: n + 1, def: IdentDef{File: f[3], Why: f[4]}, covers: make([]bool, len(eras)), thruName: f[2]}
		if id, ok := strings.CutPrefix(f[3], "RFC:"); ok {
			r.def = IdentDef{MsgID: id, Why: f[4]}
		}
		ti, ok := index[f[2]]
		through, checked := checkedAt[ti]
		if !ok || !checked {
			return nil, fmt.Errorf("idents.tsv:%d: %s: checked through %q, which is no era of the @checked line (above the rows)", n+1, f[0], f[2])
		}
		r.through = through
		isChecked := func(i int) bool { k, ok := checkedAt[i]; return ok && k <= through }
		for _, item := range strings.Split(f[1], ",") {
			named, err := eraItem(item, index, pos, mainline)
			if err != nil {
				return nil, fmt.Errorf("idents.tsv:%d: %s: %v", n+1, f[0], err)
			}
			for _, i := range named.ends {
				if !isChecked(i) {
					return nil, fmt.Errorf("idents.tsv:%d: %s names era %s, in which it was not checked (checked through %s)", n+1, f[0], eras[i].Name, f[2])
				}
			}
			for _, i := range named.all {
				r.covers[i] = true
			}
		}
		rows = append(rows, r)
	}
	if len(checkedAt) == 0 {
		return nil, fmt.Errorf("idents.tsv: no @checked line")
	}
	t := &table{at: map[string]map[string]entry{}, pending: map[int][]string{}, checked: make([]string, len(checkedAt)),
		eras: eras, rows: rows, pos: pos, base: base, mainline: mainline, checkedAt: checkedAt, unreadAt: unread}
	for i, k := range checkedAt {
		t.checked[k] = eras[i].Name
	}
	for i := range eras {
		if unread[i] {
			t.unread = append(t.unread, eras[i].Name)
		}
	}
	return t, nil
}

// build is era i's entries, per identifier, and the lines of the rows
// not checked in it that could hold there (in row order).
func (t *table) build(i int) (map[string]entry, []int, error) {
	m := make(map[string]entry, len(t.rows))
	var pending []int
	name := t.eras[i].Name
	for _, r := range t.rows {
		isChecked := func(i int) bool { k, ok := t.checkedAt[i]; return ok && k <= r.through }
		old, had := m[r.ident]
		// An @unread era between two checked eras that both hold the
		// row is inferred to define the identifier as they do.
		lo, hi, inferred := -1, -1, false
		if t.unreadAt[i] && r.covers[i] && !isChecked(i) {
			lo, hi = checkedSides(i, isChecked, t.pos, t.mainline)
			inferred = lo >= 0 && hi >= 0 && r.covers[lo] && r.covers[hi]
		}
		switch {
		case isChecked(i) && r.covers[i]:
			if had && old.status == Defined {
				return nil, nil, fmt.Errorf("idents.tsv:%d: %s in era %s is defined by line %d too", r.line, r.ident, name, old.line)
			}
			m[r.ident] = entry{status: Defined, def: r.def, line: r.line}
		case inferred:
			if had && old.status == Defined {
				return nil, nil, fmt.Errorf("idents.tsv:%d: %s in era %s is defined by line %d too", r.line, r.ident, name, old.line)
			}
			m[r.ident] = entry{status: Inferred, def: r.def, line: r.line, sides: [2]string{t.eras[lo].Name, t.eras[hi].Name}}
		case !isChecked(i) && touches(i, r.covers, isChecked, t.pos, t.base, t.mainline):
			pending = append(pending, r.line)
			if !had || old.status == Absent {
				m[r.ident] = entry{status: Unverified, line: r.line, thru: r.thruName}
			}
		}
	}
	return m, pending, nil
}

// entries is the era's entries, built on its first look-up. The embedded
// table builds in every era (TestIdents_TheLookupsTableIsTheParsedOne):
// a failure here is a broken build, and panics.
func (t *table) entries(era string) map[string]entry {
	t.mu.Lock()
	defer t.mu.Unlock()
	if m, ok := t.at[era]; ok {
		return m
	}
	i := slices.IndexFunc(t.eras, func(e sim.Era) bool { return e.Name == era })
	if i < 0 {
		return nil // no such era: every identifier Absent
	}
	m, _, err := t.build(i)
	if err != nil {
		panic(err)
	}
	t.at[era] = m
	return m
}

// recordChecked is idents.tsv with the check of every row not yet
// checked in era (and that could hold there) recorded: era at the end of
// the @checked line if it is not on it, and those rows' checked through
// set to era; n is how many rows. Their eras columns stay: a row whose
// identifier moved in era's release is fixed by hand (adding-an-era.md).
// A row also waiting for an era before era on the @checked line is
// refused: record that one first.
func recordChecked(text string, eras []sim.Era, era string) (out string, n int, err error) {
	t, err := parseIdents(text, eras)
	if err != nil {
		return "", 0, err
	}
	if !slices.ContainsFunc(eras, func(e sim.Era) bool { return e.Name == era }) {
		return "", 0, fmt.Errorf("no era %q", era)
	}
	order := t.checked
	if !slices.Contains(order, era) {
		order = append(slices.Clone(order), era)
	}
	at := slices.Index(order, era)
	lines := strings.Split(text, "\n")
	for k, line := range lines {
		if strings.HasPrefix(line, "@checked\t") {
			lines[k] = "@checked\t" + strings.Join(order, " ")
		}
		p := t.pending[k+1]
		if !slices.Contains(p, era) {
			continue
		}
		for _, o := range p {
			if j := slices.Index(order, o); j >= 0 && j < at {
				return "", 0, fmt.Errorf("idents.tsv:%d: not checked in %s either, which comes first on the @checked line: record %s first", k+1, o, o)
			}
		}
		f := strings.Split(line, "\t")
		f[2] = era
		lines[k] = strings.Join(f, "\t")
		n++
	}
	return strings.Join(lines, "\n"), n, nil
}

// touches says whether row coverage covers could hold for era i, which
// the row was not checked in: it covers i, or i is a branch whose base it
// covers, or i is on the mainline next to it (the nearest checked era of
// the mainline before or after i is covered).
func touches(i int, covers []bool, checked func(int) bool, pos, base, mainline []int) bool {
	if covers[i] {
		return true
	}
	if base[i] >= 0 {
		return covers[base[i]]
	}
	lo, hi := checkedSides(i, checked, pos, mainline)
	return lo >= 0 && covers[lo] || hi >= 0 && covers[hi]
}

// checkedSides are the nearest eras of the mainline before and after
// mainline era i that the row was checked in (-1 where there is none).
func checkedSides(i int, checked func(int) bool, pos, mainline []int) (lo, hi int) {
	lo, hi = -1, -1
	for k := pos[i] - 1; k >= 0; k-- {
		if j := mainline[k]; checked(j) {
			lo = j
			break
		}
	}
	for k := pos[i] + 1; k < len(mainline); k++ {
		if j := mainline[k]; checked(j) {
			hi = j
			break
		}
	}
	return lo, hi
}

// eraSet is what one item of a row's eras names: every era it covers
// (all) and the eras it spells out (ends: its bounds, or the one era).
type eraSet struct{ all, ends []int }

// eraItem reads one item of the eras column: E, A-B, A- or -B. An era
// name may itself hold a "-" (7.1-rc1): the item is split where both
// sides are eras (or empty, for an open end).
func eraItem(item string, index map[string]int, pos, mainline []int) (eraSet, error) {
	if i, ok := index[item]; ok {
		return eraSet{all: []int{i}, ends: []int{i}}, nil
	}
	for k := 0; k < len(item); k++ {
		if item[k] != '-' {
			continue
		}
		a, b := item[:k], item[k+1:]
		lo, hi := 0, len(mainline)-1
		var ends []int
		okA, okB := a == "", b == ""
		if i, ok := index[a]; ok {
			if pos[i] < 0 {
				return eraSet{}, fmt.Errorf("range %q: %s is a branch, not on the mainline (name it on its own)", item, a)
			}
			lo, okA, ends = pos[i], true, append(ends, i)
		}
		if i, ok := index[b]; ok {
			if pos[i] < 0 {
				return eraSet{}, fmt.Errorf("range %q: %s is a branch, not on the mainline (name it on its own)", item, b)
			}
			hi, okB, ends = pos[i], true, append(ends, i)
		}
		if !okA || !okB || a == b && a == "" {
			continue
		}
		if lo > hi {
			return eraSet{}, fmt.Errorf("range %q runs backwards", item)
		}
		var all []int
		for p := lo; p <= hi; p++ {
			all = append(all, mainline[p])
		}
		return eraSet{all: all, ends: ends}, nil
	}
	return eraSet{}, fmt.Errorf("unknown era or range %q", item)
}

// Lookup returns where the era's release defines the identifier: ok for a
// row checked in the era, and for one Inferred there (StatusOf tells them
// apart).
func Lookup(era, ident string) (IdentDef, bool) {
	e := identTable().entries(era)[ident]
	return e.def, e.status == Defined || e.status == Inferred
}

// StatusOf is what the table says of the identifier in the era, and for
// an Unverified one the era its row was checked through.
func StatusOf(era, ident string) (Status, string) {
	e := identTable().entries(era)[ident]
	return e.status, e.thru
}

// RFCNote is the note an rfc-v1 identifier the RFC added carries.
const RFCNote = "RFC, not merged in this form"

// SourceRef is what the narration shows for a modelled function: the name
// the era's kernel gives it and a link to its definition in that release.
type SourceRef struct {
	Name string // the era's (and driver's) kernel name, or the model's label for a model-only step
	// URL links to the definition: the file in the era's release on
	// elixir.bootlin.com, or the RFC patch on lore.kernel.org. "" when the
	// name is not a kernel identifier of the era (a model-only step, a
	// driver outside the kernel tree, a knob's later-kernel feature).
	URL  string
	File string // the defining file ("" with no URL or for an RFC patch)
	// Note says what the reader should know beside the link: RFCNote, or why
	// there is no link.
	Note string
}

// Source names s in the era (and, for the driver symbols, the driver) and
// links it to its definition in the era's release (idents.tsv).
func Source(era, driver string, s sim.Sym) SourceRef {
	e, err := sim.EraByName(era)
	if err != nil {
		return SourceRef{Name: s.Name()}
	}
	return identTable().source(e, driver, s)
}

// source is Source against table t.
func (t *table) source(e *sim.Era, driver string, s sim.Sym) SourceRef {
	if s == sim.SymNone || s >= sim.NumSyms {
		return SourceRef{Name: s.Name()}
	}
	name := s.NameIn(e)
	if sp, err := drivers.SpecByName(driver); err == nil {
		if n, ok := sp.Names[s]; ok {
			name = n
			if sp.OutOfTree {
				return SourceRef{Name: name, Note: "not in the kernel tree: " + sp.Name + " is a work-in-progress driver the model follows"}
			}
		}
	}
	en := t.entries(e.Name)[name]
	d, ok := en.def, en.status == Defined
	switch {
	case en.status == Inferred:
		return SourceRef{Name: name, URL: "https://elixir.bootlin.com/linux/" + e.Tag + "/source/" + d.File, File: d.File,
			Note: "not read in " + e.Tag + ": assumed from " + en.sides[0] + " and " + en.sides[1] + ", which define it in this file (no " + e.Tag + " source was readable where pplab was checked)"}
	case en.status == Unverified:
		return SourceRef{Name: name, Note: "not verified in " + e.Tag + ": idents.tsv's row for " + name + " was checked through " + en.thru + " only"}
	case ok && d.MsgID != "":
		return SourceRef{Name: name, URL: "https://lore.kernel.org/netdev/" + url.PathEscape(d.MsgID) + "/", Note: RFCNote}
	case ok:
		return SourceRef{Name: name, URL: "https://elixir.bootlin.com/linux/" + e.Tag + "/source/" + d.File, File: d.File}
	case strings.ContainsAny(name, " ()"):
		return SourceRef{Name: name, Note: "a step of the model, not one kernel function"}
	}
	return SourceRef{Name: name, Note: "not in " + e.Tag + ": a knob adds a later kernel's behaviour to this era"}
}
