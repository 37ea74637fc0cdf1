package lab

import (
	"errors"
	"net/url"
	"slices"
	"sort"
	"strings"

	"pplab/engine/sim"
)

// WithPrefix marks the keys of a two-run link that belong to its second
// run: the link is the first run's URL form (Values) plus, for every key
// whose value the second run's form gives differently, "with.KEY" with the
// second run's value(s) — or empty, where the second run's form leaves the
// key out (its default). The second run is the first one's keys with those
// replaced: a link reads as `ppsim compare` takes its flags (a run, plus
// the other side's --with-…). Both runs are read under the link's one
// version (v), so a two-run link lasts as a one-run link does.
const WithPrefix = "with."

// CompareValues is the two-run URL form of a and b.
func CompareValues(a, b Config) url.Values {
	va, vb := a.Values(), b.Values()
	out := url.Values{}
	for k, vals := range va {
		out[k] = slices.Clone(vals)
	}
	keys := map[string]bool{}
	for k := range va {
		keys[k] = true
	}
	for k := range vb {
		keys[k] = true
	}
	for k := range keys {
		x, y := va[k], vb[k]
		if slices.Equal(x, y) {
			continue
		}
		if len(y) == 0 {
			out.Set(WithPrefix+k, "")
			continue
		}
		out[WithPrefix+k] = slices.Clone(y)
	}
	return out
}

// IsTwoRun reports whether v is a two-run link (any "with." key).
func IsTwoRun(v url.Values) bool {
	for k := range v {
		if strings.HasPrefix(k, WithPrefix) {
			return true
		}
	}
	return false
}

// SplitTwoRun splits a two-run link into its runs' URL forms: the first
// run's keys, and the second's (the first's with the with.* keys
// replacing theirs; an empty with.KEY removes KEY). A key that is no
// config key after "with." stays, prefixed, in the second run's form, so
// ParseConfig names it.
func SplitTwoRun(v url.Values) (a, b url.Values) {
	a, b = url.Values{}, url.Values{}
	for k, vals := range v {
		if !strings.HasPrefix(k, WithPrefix) {
			a[k] = slices.Clone(vals)
			b[k] = slices.Clone(vals)
		}
	}
	for k, vals := range v {
		key, ok := strings.CutPrefix(k, WithPrefix)
		if !ok {
			continue
		}
		if !IsConfigKey(key) {
			b[k] = slices.Clone(vals)
			continue
		}
		if len(vals) == 0 || (len(vals) == 1 && vals[0] == "") {
			delete(b, key)
			continue
		}
		b[key] = slices.Clone(vals)
	}
	return a, b
}

// ParseCompare reads a two-run link (a one-run link is its own first run
// and no second: two is false). Each run is read as ParseConfig reads
// one, bad fields left at their defaults; the error joins the first run's
// field errors and the second run's that the first does not share, each
// of those named with the "with." prefix (with.era=4.0: the second run's
// era).
func ParseCompare(v url.Values) (a, b Config, two bool, err error) {
	va, vb := SplitTwoRun(v)
	a, errA := ParseConfig(va)
	if !IsTwoRun(v) {
		return a, Config{}, false, errA
	}
	b, errB := ParseConfig(vb)
	seen := map[string]bool{}
	for _, fe := range FieldErrors(errA) {
		seen[fe.Error()] = true
	}
	errs := []error{errA}
	var other []*sim.FieldError
	for _, fe := range FieldErrors(errB) {
		if seen[fe.Error()] {
			continue
		}
		c := *fe
		if !strings.HasPrefix(c.Field, WithPrefix) {
			c.Field = WithPrefix + c.Field
		}
		if c.Named { // its Msg names the field without the prefix
			c.Msg = "the second run: " + c.Msg
		}
		other = append(other, &c)
	}
	sort.SliceStable(other, func(i, j int) bool { return other[i].Field < other[j].Field })
	for _, fe := range other {
		errs = append(errs, fe)
	}
	return a, b, true, errors.Join(errs...)
}

// Edits are how a comparison's second run differs from its first, as
// `ppsim compare`'s --with-* flags and the comparison page say it: the
// second run is the first with them (Apply). Its scenario, sizes, packets,
// seed and platform are the first run's, and it breaks every rule the
// first does.
type Edits struct {
	Era, Driver string            // "": the first run's
	Knobs       sim.KnobOverrides // set on top of the first run's knobs (--with-set)
	Break       []string          // broken besides the first run's (--with-break)
}

// Apply is a with the edits: the second run (its rules sorted).
func (w Edits) Apply(a Config) Config {
	b := a
	b.Break = slices.Clone(a.Break)
	if w.Era != "" {
		b.Era = w.Era
	}
	if w.Driver != "" {
		b.Driver = w.Driver
	}
	b.Knobs = b.Knobs.Merge(w.Knobs)
	for _, r := range w.Break {
		if !slices.Contains(b.Break, r) {
			b.Break = append(b.Break, r)
		}
	}
	slices.Sort(b.Break)
	return b
}
