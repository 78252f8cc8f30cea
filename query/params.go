package query

import (
	"strconv"
	"strings"

	"github.com/marketintel/mi/schemas"
)

// Parameter defaults and bounds (spec §4, §8).
const (
	defaultWindow    = "5m"
	defaultListLimit = 20
	maxListLimit     = 100
	maxSymbolLen     = 32
)

// parseWindow validates the window parameter: one of schemas.Windows; empty
// (absent) means the default 5m. The result never aliases raw.
func parseWindow(raw string) (string, *paramError) {
	if raw == "" {
		return defaultWindow, nil
	}
	for _, w := range schemas.Windows {
		if raw == w {
			return w, nil
		}
	}
	return "", &paramError{
		param:        "window",
		message:      "window must be one of 1m, 5m, 15m",
		acceptedList: schemas.Windows,
	}
}

// parseLimit validates a limit parameter: a decimal integer from 1 to max
// without sign; empty (absent) means def.
func parseLimit(raw string, def, max int) (int, *paramError) {
	if raw == "" {
		return def, nil
	}
	n := 0
	ok := len(raw) <= 4
	for i := 0; ok && i < len(raw); i++ {
		c := raw[i]
		if c < '0' || c > '9' {
			ok = false
			break
		}
		n = n*10 + int(c-'0')
	}
	if !ok || n < 1 || n > max {
		r := "integer 1 to " + strconv.Itoa(max)
		return 0, &paramError{param: "limit", message: "limit must be an " + r, acceptedRange: r}
	}
	return n, nil
}

// parseSymbol normalizes the symbol path parameter to upper case and checks
// it is 1 to 32 characters of letters, digits, '.', '-' and '_'. The result
// never aliases raw, so it may be retained.
func parseSymbol(raw string) (string, *paramError) {
	ok := len(raw) >= 1 && len(raw) <= maxSymbolLen
	for i := 0; ok && i < len(raw); i++ {
		c := raw[i]
		ok = c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_'
	}
	if !ok {
		const r = "1 to 32 characters: letters, digits, '.', '-', '_' (case-insensitive)"
		return "", &paramError{param: "symbol", message: "symbol must be " + r, acceptedRange: r}
	}
	return strings.Clone(strings.ToUpper(raw)), nil
}
