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

// identTable: era name → identifier → definition, parsed on the first
// look-up (not at start-up: a batch run names nothing).
var identTable = sync.OnceValue(func() map[string]map[string]IdentDef { return parseIdents(identsTSV) })

func parseIdents(text string) map[string]map[string]IdentDef {
	t := map[string]map[string]IdentDef{}
	for _, e := range sim.Eras {
		t[e.Name] = map[string]IdentDef{}
	}
	for n, line := range strings.Split(text, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 4 {
			panic(fmt.Sprintf("idents.tsv:%d: %d fields, want 4", n+1, len(f)))
		}
		d := IdentDef{File: f[2], Why: f[3]}
		if id, ok := strings.CutPrefix(f[2], "RFC:"); ok {
			d = IdentDef{MsgID: id, Why: f[3]}
		}
		for _, era := range strings.Split(f[1], ",") {
			m, ok := t[era]
			if !ok {
				panic(fmt.Sprintf("idents.tsv:%d: unknown era %q", n+1, era))
			}
			if _, dup := m[f[0]]; dup {
				panic(fmt.Sprintf("idents.tsv:%d: %s listed twice for era %s", n+1, f[0], era))
			}
			m[f[0]] = d
		}
	}
	return t
}

// Lookup returns where the era's release defines the identifier.
func Lookup(era, ident string) (IdentDef, bool) {
	d, ok := identTable()[era][ident]
	return d, ok
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
	if err != nil || s == sim.SymNone || s >= sim.NumSyms {
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
	d, ok := identTable()[e.Name][name]
	switch {
	case ok && d.MsgID != "":
		return SourceRef{Name: name, URL: "https://lore.kernel.org/netdev/" + url.PathEscape(d.MsgID) + "/", Note: RFCNote}
	case ok:
		return SourceRef{Name: name, URL: "https://elixir.bootlin.com/linux/" + e.Tag + "/source/" + d.File, File: d.File}
	case strings.ContainsAny(name, " ()"):
		return SourceRef{Name: name, Note: "a step of the model, not one kernel function"}
	}
	return SourceRef{Name: name, Note: "not in " + e.Tag + ": a knob adds a later kernel's behaviour to this era"}
}
