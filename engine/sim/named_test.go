package sim

import (
	"errors"
	"strings"
	"testing"
)

// TestByName_ErrorsNameFieldValueAndAccepted pins the lookups' errors whole:
// the field (as the URL form spells it: "break" for a rule), the value, the
// message with every accepted name, and the flag text ppsim prints.
func TestByName_ErrorsNameFieldValueAndAccepted(t *testing.T) {
	_, eraErr := EraByName("3.0")
	_, platErr := PlatformByName("vax")
	_, ruleErr := RuleByName("gravity")
	ruleMsg := `unknown rule "gravity" (accepted: ` + strings.Join(RuleNames(), ", ") + `)`
	tests := []struct {
		err          error
		field, value string
		msg, flag    string
	}{
		{eraErr, "era", "3.0", `unknown era "3.0" (accepted: ` + strings.Join(EraNames(), ", ") + `)`, ""},
		{platErr, "platform", "vax", `unknown platform "vax" (accepted: ` + strings.Join(PlatformNames(), ", ") + `)`, ""},
		{ruleErr, "break", "gravity", ruleMsg, "--break: " + ruleMsg},
	}
	for _, tt := range tests {
		var fe *FieldError
		if !errors.As(tt.err, &fe) {
			t.Fatalf("%v: not a *FieldError", tt.err)
		}
		if fe.Field != tt.field || fe.Value != tt.value || !fe.Named || fe.Knob {
			t.Errorf("%v: field %q value %q named %v knob %v", fe, fe.Field, fe.Value, fe.Named, fe.Knob)
		}
		flag := tt.flag
		if flag == "" {
			flag = tt.msg
		}
		if fe.Error() != tt.msg || fe.FlagText() != flag {
			t.Errorf("error %q, flag text %q; want %q, %q", fe.Error(), fe.FlagText(), tt.msg, flag)
		}
	}
	if e, err := EraByName("5.15"); err != nil || e != &Eras[4] {
		t.Errorf("EraByName(5.15) = %p, %v; want &Eras[4]", e, err)
	}
	if r, err := RuleByName("frag-count"); err != nil || r != RuleFragCount {
		t.Errorf("RuleByName(frag-count) = %v, %v", r, err)
	}
}
