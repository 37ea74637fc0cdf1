package sim

import (
	"fmt"
	"reflect"
	"strings"
)

// EraChange is one behaviour in which two eras differ: an Era field whose
// values differ, what it decides (its rule tag) and the commit that gave
// the later value (its commit tag).
//
// Every behaviour field of Era carries two struct tags: rule, a short
// statement of what the field decides, and commit, the commit that brought
// it — either one hash for every value, or value=hash pairs for a field
// whose values came from different commits (Coalesce, PageType's revert).
// "-" or "" is a change the model follows without a pinned commit (the
// field's doc comment names its series). TestEraFields_CarryRuleAndCommit
// keeps every behaviour field tagged.
type EraChange struct {
	Field  string // the Era field
	Rule   string // what it decides (the rule tag)
	Commit string // the commit of the newer era's value ("" when not pinned)
	A, B   string // the field's value in each era
}

// eraIdentity are Era's fields that name or describe an era, not a
// behaviour of its kernel: no EraChange is about them.
var eraIdentity = map[string]bool{"Name": true, "Summary": true, "Order": true, "Tag": true, "LTS": true,
	"PreRelease": true, "ProfileNames": true, "Names": true, "Branch": true, "base": true, "Naming": true}

// EraChanges are the behaviours in which eras a and b differ, in Era's field
// order. Commit is the commit of the value of the newer era of the two
// (by Order): the change that made it so.
func EraChanges(a, b *Era) []EraChange {
	if a == nil || b == nil {
		panic(fmt.Sprintf("sim: EraChanges(%v, %v): two eras wanted", a, b))
	}
	newer := b
	if a.Order > b.Order {
		newer = a
	}
	va, vb, vn := reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem(), reflect.ValueOf(newer).Elem()
	t := va.Type()
	var out []EraChange
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if eraIdentity[f.Name] || !f.IsExported() {
			continue
		}
		x, y := va.Field(i).Interface(), vb.Field(i).Interface()
		if x == y {
			continue
		}
		out = append(out, EraChange{Field: f.Name, Rule: f.Tag.Get("rule"),
			Commit: tagCommit(f.Tag.Get("commit"), fmt.Sprint(vn.Field(i).Interface())), A: valueText(x), B: valueText(y)})
	}
	return out
}

// tagCommit is the commit a commit tag gives for value v: its value=hash
// pair for v, else its one hash ("" for "-" or none).
func tagCommit(tag, v string) string {
	for _, tok := range strings.Fields(tag) {
		k, h, ok := strings.Cut(tok, "=")
		if !ok {
			if tok == "-" {
				return ""
			}
			return tok
		}
		if k == v {
			if h == "-" {
				return ""
			}
			return h
		}
	}
	return ""
}

// WithField returns a copy of e whose field (an Era field EraChanges names)
// has its value in era from: the era that differs from e in that one
// behaviour. Its name is e's with the change said ("6.18+ConsumeAlienDefers").
// A field that is not a behaviour of Era is the caller's bug: it panics.
func (e *Era) WithField(field string, from *Era) *Era {
	f, ok := reflect.TypeOf(*e).FieldByName(field)
	if !ok || eraIdentity[field] || !f.IsExported() {
		panic(fmt.Sprintf("sim: Era.WithField(%q): no behaviour field of that name", field))
	}
	c := *e
	reflect.ValueOf(&c).Elem().FieldByIndex(f.Index).Set(reflect.ValueOf(from).Elem().FieldByIndex(f.Index))
	return &c
}

// valueText is a field's value as a change says it: LONG_MAX and
// LONG_MAX >> 1 by their names (BIAS_MAX), anything else as fmt prints it.
func valueText(v any) string {
	switch v {
	case longMax:
		return "LONG_MAX"
	case longMax >> 1:
		return "LONG_MAX>>1"
	}
	return fmt.Sprint(v)
}
