package drivers

import (
	"fmt"
	"reflect"
	"strings"

	"pplab/engine/sim"
)

// EraFeature is one era-dependent behaviour of a driver model in which two
// eras differ: a Spec field naming the first era with it (…From) or the
// first without it (…Until), what it decides, and the commit where the
// spec's Commits knows it.
type EraFeature struct {
	Field  string // the Spec field
	Rule   string // what it decides (the field's rule tag)
	Commit string // the driver commit, "" when the spec does not pin one
	A, B   bool   // whether the driver has the behaviour in each era
}

// eraFields are Spec's era-name fields: the driver's era-dependent
// behaviours, found by their names (every …From and …Until field is one).
func eraFields() []reflect.StructField {
	var out []reflect.StructField
	t := reflect.TypeOf(Spec{})
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Type.Kind() == reflect.String && (strings.HasSuffix(f.Name, "From") || strings.HasSuffix(f.Name, "Until")) {
			out = append(out, f)
		}
	}
	return out
}

// has reports whether the driver has field's behaviour in era e: a …From
// field from its era on, a …Until field before its era.
func has(f reflect.StructField, v string, e *sim.Era) bool {
	if strings.HasSuffix(f.Name, "Until") {
		return v != "" && !since(v, e)
	}
	return since(v, e)
}

// EraFeatures are the driver's behaviours that differ between eras a and b.
func (s *Spec) EraFeatures(a, b *sim.Era) []EraFeature {
	v := reflect.ValueOf(s).Elem()
	var out []EraFeature
	for _, f := range eraFields() {
		val := v.FieldByIndex(f.Index).String()
		ha, hb := has(f, val, a), has(f, val, b)
		if ha != hb {
			out = append(out, EraFeature{Field: f.Name, Rule: f.Tag.Get("rule"), Commit: s.Commits[f.Name], A: ha, B: hb})
		}
	}
	return out
}

// neverEra names no era: since() of it is false in every era.
const neverEra = "(never)"

// WithFeatureAs returns a copy of s in which field's behaviour is on in
// every era (on) or in none: the driver that differs from s in that one
// behaviour, for a comparison's one-change runs. A field that is not one
// of Spec's era-name fields is the caller's bug: it panics.
func (s *Spec) WithFeatureAs(field string, on bool) *Spec {
	for _, f := range eraFields() {
		if f.Name != field {
			continue
		}
		c := *s
		val := "" // a From field in no era, an Until field in none either
		switch until := strings.HasSuffix(f.Name, "Until"); {
		case on && until:
			val = neverEra // an Until that never comes: in every era
		case on:
			val = sim.Eras[0].Name // from the first era: in every era
		}
		reflect.ValueOf(&c).Elem().FieldByIndex(f.Index).SetString(val)
		return &c
	}
	panic(fmt.Sprintf("drivers: Spec.WithFeatureAs(%q): no era-name field of that name", field))
}
