package sim

import (
	"errors"
	"strings"
	"testing"
)

// ParseOverrides reads --set's assignments once into values: a later
// assignment of a knob wins, and a bad one is a *FieldError naming the input
// and what is accepted (the message ppsim and the playground show).
func TestParseOverrides(t *testing.T) {
	for _, tc := range []struct {
		name    string
		assigns []string
		want    string // Assignments, space-separated, when it parses
		field   string // the FieldError's field when it does not
		msg     string // in the error
	}{
		{"none", nil, "", "", ""},
		{"one", []string{"pool_size=64"}, "pool_size=64", "", ""},
		{"knob order, not input order", []string{"rx_descs=16", "pool_size=32"}, "pool_size=32 rx_descs=16", "", ""},
		{"a later assignment wins", []string{"bulk=16", "bulk=32"}, "bulk=32", "", ""},
		{"a default value is still set", []string{"nid=-1"}, "nid=-1", "", ""},
		{"spaces around the value", []string{"order= 2 "}, "order=2", "", ""},
		{"out of range", []string{"order=9"}, "", "order", "order=9: want an integer from 0 to 4"},
		{"not a number", []string{"pool_size=abc"}, "", "pool_size", "pool_size=abc: want an integer from 0 to 65536"},
		{"unknown knob", []string{"speed=9"}, "", "set", `unknown knob "speed" (knobs: pool_size, order,`},
		{"no value", []string{"pool_size"}, "", "set", "want knob=value (knobs: pool_size,"},
		{"no name", []string{"=5"}, "", "set", "want knob=value"},
		{"the first bad one", []string{"order=1", "cpus=0", "speed=1"}, "", "cpus", "cpus=0: want an integer from 1 to 8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := ParseOverrides(tc.assigns...)
			if tc.field == "" {
				if err != nil {
					t.Fatal(err)
				}
				if got := o.String(); got != tc.want {
					t.Errorf("parsed %q, want %q", got, tc.want)
				}
				if back, err := ParseOverrides(o.Assignments()...); err != nil || back != o {
					t.Errorf("Assignments %v read back as %v (%v)", o.Assignments(), back, err)
				}
				return
			}
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Field != tc.field || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("error %v, want a FieldError for %q containing %q", err, tc.field, tc.msg)
			}
			if o != (KnobOverrides{}) {
				t.Errorf("a bad assignment returned %v", o)
			}
		})
	}
}

// The overrides are a value: editing a copy leaves the original alone, and
// == compares what is set, not how it was written.
func TestKnobOverrides_AValue(t *testing.T) {
	a := MustOverrides("rx_descs=16", "pool_size=32")
	b := a.With(KnobPoolSize, 64)
	if v, _ := a.Get(KnobPoolSize); v != 32 {
		t.Errorf("With changed its receiver: pool_size=%d", v)
	}
	if a == b || b != MustOverrides("pool_size=64", "rx_descs=16") {
		t.Errorf("== compares the values: %v %v", a, b)
	}
	if c := b.Without(KnobPoolSize, KnobRxDescs); c != (KnobOverrides{}) {
		t.Errorf("Without left %v", c)
	}
	if _, set := a.Without(KnobPoolSize).Get(KnobPoolSize); set {
		t.Error("Without leaves the knob set")
	}
	if m := a.Merge(MustOverrides("pool_size=128", "bulk=8")); m != MustOverrides("rx_descs=16", "pool_size=128", "bulk=8") {
		t.Errorf("Merge: %v", m)
	}
	k := a.Over(DefaultKnobs())
	if k[KnobRxDescs] != 16 || k[KnobPoolSize] != 32 || k[KnobBulk] != KnobBulk.Spec().Default {
		t.Errorf("Over: rx_descs=%d pool_size=%d bulk=%d", k[KnobRxDescs], k[KnobPoolSize], k[KnobBulk])
	}
}

// Check range checks values set in code as the parsers check a user's.
func TestKnobOverrides_Check(t *testing.T) {
	if err := MustOverrides("order=4").Check(); err != nil {
		t.Errorf("in range: %v", err)
	}
	err := KnobOverrides{}.With(KnobOrder, 7).Check()
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field != "order" || fe.Value != "7" || err.Error() != "order=7: want an integer from 0 to 4" {
		t.Errorf("out of range: %v", err)
	}
}

func TestMustOverrides_PanicsOnABadAssignment(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic")
		}
	}()
	MustOverrides("speed=1")
}
