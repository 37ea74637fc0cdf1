package lab

import (
	"pplab/engine/lab/internal/kernelsrc"
	"pplab/engine/sim"
)

// IdentDef is where an identifier is defined in an era's release.
type IdentDef = kernelsrc.IdentDef

// SourceRef is what the narration shows for a modelled function: the name
// the era's kernel gives it and a link to its definition in that release.
type SourceRef = kernelsrc.SourceRef

// RFCNote is the note an rfc-v1 identifier the RFC added carries.
const RFCNote = kernelsrc.RFCNote

// LookupIdent returns where the era's release defines the identifier
// (the per-era table, internal/kernelsrc/idents.tsv).
func LookupIdent(era, ident string) (IdentDef, bool) { return kernelsrc.Lookup(era, ident) }

// Source names s in the era (and, for the driver symbols, the driver) and
// links it to its definition in the era's release.
func Source(era, driver string, s sim.Sym) SourceRef { return kernelsrc.Source(era, driver, s) }

// KernelName is the name the kernel of the era gives the function s models,
// with driver's own function names for the driver symbols (driver "" keeps
// the model's generic label).
func KernelName(era, driver string, s sim.Sym) string { return Source(era, driver, s).Name }

// Source names s as the kernel of the Lab's era and driver does
// (the package function Source with the Lab's config).
func (l *Lab) Source(s sim.Sym) SourceRef { return Source(l.m.Era.Name, l.cfg.Driver, s) }
