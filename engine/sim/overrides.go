package sim

import (
	"fmt"
	"strconv"
	"strings"
)

// KnobOverrides are the knobs a run sets itself, each with its value; every
// other knob keeps its default (the scenario's own, else the knob's). It is
// the one typed form of the knobs a user gives (--set, a URL's knob keys, a
// UI's knob inputs): the text is parsed once, where it comes in, and what is
// kept is a value — fixed arrays, no slices — so a config holding it copies
// without aliasing and compares with ==. The zero value sets no knob.
type KnobOverrides struct {
	set [NumKnobs]bool
	val [NumKnobs]int64
}

// ParseOverrides parses "name=value" assignments as --set takes them, in
// order (a later assignment of a knob replaces an earlier one). The error
// is the first bad assignment's *FieldError, naming it and what is accepted.
func ParseOverrides(assigns ...string) (KnobOverrides, error) {
	var o KnobOverrides
	for _, a := range assigns {
		if err := o.Set(a); err != nil {
			return KnobOverrides{}, err
		}
	}
	return o, nil
}

// MustOverrides is ParseOverrides for assignments written in the code
// (tables, tests), where a bad one is the program's bug: it panics.
func MustOverrides(assigns ...string) KnobOverrides {
	o, err := ParseOverrides(assigns...)
	if err != nil {
		panic(err)
	}
	return o
}

// Set parses one "name=value" assignment (as Knobs.Set, with its errors)
// and sets that knob.
func (o *KnobOverrides) Set(assign string) error {
	var k Knobs
	if err := k.Set(assign); err != nil {
		return err
	}
	name, _, _ := strings.Cut(assign, "=")
	n, _ := KnobByName(name)
	o.set[n], o.val[n] = true, k[n]
	return nil
}

// SetValue parses val as knob n's value (as Knobs.SetValue, with its
// errors) and sets the knob.
func (o *KnobOverrides) SetValue(n Knob, val string) error {
	var k Knobs
	if err := k.SetValue(n, val); err != nil {
		return err
	}
	o.set[n], o.val[n] = true, k[n]
	return nil
}

// With is o with knob n set to v. The value is not range checked here
// (Check does, and a run's config checks it): With is for values the code
// chose, the parsers are for values a user gave.
func (o KnobOverrides) With(n Knob, v int64) KnobOverrides {
	o.set[n], o.val[n] = true, v
	return o
}

// Without is o with the named knobs back at their defaults.
func (o KnobOverrides) Without(ns ...Knob) KnobOverrides {
	for _, n := range ns {
		o.set[n], o.val[n] = false, 0
	}
	return o
}

// Merge is o with every knob p sets set to p's value.
func (o KnobOverrides) Merge(p KnobOverrides) KnobOverrides {
	for n := range p.set {
		if p.set[n] {
			o.set[n], o.val[n] = true, p.val[n]
		}
	}
	return o
}

// Get returns knob n's value and whether o sets it.
func (o KnobOverrides) Get(n Knob) (int64, bool) { return o.val[n], o.set[n] }

// Over is k with the overrides applied.
func (o KnobOverrides) Over(k Knobs) Knobs {
	for n := range o.set {
		if o.set[n] {
			k[n] = o.val[n]
		}
	}
	return k
}

// Check reports the first override outside its knob's range as the
// *FieldError a parser gives for it (values set with With are not checked
// before).
func (o KnobOverrides) Check() error {
	for n := range o.set {
		s := Knob(n).Spec()
		if o.set[n] && (o.val[n] < s.Min || o.val[n] > s.Max) {
			return &FieldError{Field: s.Name, Value: strconv.FormatInt(o.val[n], 10), Msg: fmt.Sprintf("want an integer from %d to %d", s.Min, s.Max), Knob: true}
		}
	}
	return nil
}

// Assignments are the overrides as "name=value", in knob order: the --set
// form, which ParseOverrides reads back to o.
func (o KnobOverrides) Assignments() []string {
	var out []string
	for n := range o.set {
		if o.set[n] {
			out = append(out, Knob(n).String()+"="+strconv.FormatInt(o.val[n], 10))
		}
	}
	return out
}

// String is the assignments separated by spaces ("" when o sets nothing).
func (o KnobOverrides) String() string { return strings.Join(o.Assignments(), " ") }
