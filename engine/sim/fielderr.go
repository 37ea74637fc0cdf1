package sim

import "fmt"

// FieldError is a bad value for one field of a run's configuration. It names
// the field, the value as given and what is accepted, in words that speak of
// the field, not of a command line: the CLI renders it as flags (FlagText),
// the UI shows Msg beside the field's control.
type FieldError struct {
	// Field is the configuration key as the URL form spells it: "scenario",
	// "driver", "era", "platform", "packets", "seed", "break", or a knob's
	// name ("set" when the knob itself is unknown or the assignment malformed).
	Field string
	Value string // the value as given
	Msg   string // what is wrong and what is accepted (a full sentence when Named)
	// Named: Msg already names the field and the value ("unknown era "3.0"
	// (accepted: …)"); otherwise it is what is wanted ("want an integer from
	// 0 to 4").
	Named bool
	// Knob: Field is a knob's name.
	Knob bool
}

func (e *FieldError) Error() string {
	if e.Named {
		return e.Msg
	}
	if e.Knob {
		return fmt.Sprintf("%s=%s: %s", e.Field, e.Value, e.Msg)
	}
	return fmt.Sprintf("%s %s: %s", e.Field, e.Value, e.Msg)
}

// FlagText renders the error as ppsim's flags name the field.
func (e *FieldError) FlagText() string {
	switch {
	case e.Knob:
		return fmt.Sprintf("--set %s=%s: %s", e.Field, e.Value, e.Msg)
	case e.Field == "set":
		return fmt.Sprintf("--set %q: %s", e.Value, e.Msg)
	case e.Field == "break":
		return "--break: " + e.Msg
	case e.Named:
		return e.Msg
	}
	return fmt.Sprintf("--%s %s: %s", e.Field, e.Value, e.Msg)
}

// fieldErr builds a FieldError whose message already names field and value.
func fieldErr(field, value, format string, args ...any) *FieldError {
	return &FieldError{Field: field, Value: value, Msg: fmt.Sprintf(format, args...), Named: true}
}
