package sim

import "strings"

// ByName returns the element of list whose name is want, or a *FieldError for
// field that names the value and every accepted one, in list order:
//
//	unknown <noun> "<want>" (accepted: a, b, c)
//
// noun is what the message calls one element ("rule" for the field "break").
// It is the one lookup behind EraByName, PlatformByName, RuleByName and the
// drivers' and scenarios' ByName.
func ByName[T any](field, noun string, list []T, name func(T) string, want string) (T, error) {
	i, err := indexByName(field, noun, list, name, want)
	if err != nil {
		var zero T
		return zero, err
	}
	return list[i], nil
}

// indexByName is ByName's lookup, returning the element's index (for a list of
// values whose element is returned by address, as Eras).
func indexByName[T any](field, noun string, list []T, name func(T) string, want string) (int, error) {
	for i, x := range list {
		if name(x) == want {
			return i, nil
		}
	}
	return -1, fieldErr(field, want, "unknown %s %q (accepted: %s)", noun, want, strings.Join(Names(list, name), ", "))
}

// Names lists the names of list's elements, in list order.
func Names[T any](list []T, name func(T) string) []string {
	out := make([]string, len(list))
	for i, x := range list {
		out[i] = name(x)
	}
	return out
}
