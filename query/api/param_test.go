package api

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/marketintel/mi/schemas"
)

// window is the window parameter of the live routes.
var window = Enum{Name: "window", Values: schemas.Windows, Default: "5m"}

func parseWindow(raw string) (string, *ParamError) { return window.parse(raw) }

func parseLimit(raw string, def, max int) (int, *ParamError) {
	n, e := Int{Name: "limit", Min: 1, Max: int64(max), Default: int64(def)}.parse(raw)
	return int(n), e
}

func parseSymbol(raw string) (string, *ParamError) { return ParseSymbol(raw) }

func TestParseWindow(t *testing.T) {
	f := func(raw, want string, wantErr bool) {
		t.Helper()
		got, err := parseWindow(raw)
		if (err != nil) != wantErr || got != want {
			t.Fatalf("parseWindow(%q) = %q, %v; want %q, error %v", raw, got, err, want, wantErr)
		}
		if err != nil && (err.Param != "window" || !slices.Equal(err.Accepted, []string{"1m", "5m", "15m"})) {
			t.Fatalf("parseWindow(%q) error %+v does not name the window and its values", raw, err)
		}
	}
	f("", "5m", false)
	f("1m", "1m", false)
	f("5m", "5m", false)
	f("15m", "15m", false)
	f("1h", "", true)
	f("5M", "", true)
	f(" 5m", "", true)
	f("15", "", true)
}

func TestParseLimit(t *testing.T) {
	f := func(raw string, want int, wantErr bool) {
		t.Helper()
		got, err := parseLimit(raw, 20, 100)
		if (err != nil) != wantErr || got != want {
			t.Fatalf("parseLimit(%q) = %d, %v; want %d, error %v", raw, got, err, want, wantErr)
		}
		if err != nil && (err.Param != "limit" || err.Range != "integer 1 to 100" || err.Accepted != nil) {
			t.Fatalf("parseLimit(%q) error %+v does not name the limit and its range", raw, err)
		}
	}
	f("", 20, false)
	f("1", 1, false)
	f("100", 100, false)
	f("020", 20, false)
	f("0", 0, true)
	f("101", 0, true)
	f("-1", 0, true)
	f("+1", 0, true)
	f("1.0", 0, true)
	f(" 1", 0, true)
	f("99999", 0, true)
	f("18446744073709551617", 0, true)
}

func TestParseSymbol(t *testing.T) {
	f := func(raw, want string, wantErr bool) {
		t.Helper()
		got, err := parseSymbol(raw)
		if (err != nil) != wantErr || got != want {
			t.Fatalf("parseSymbol(%q) = %q, %v; want %q, error %v", raw, got, err, want, wantErr)
		}
	}
	f("BTCUSD", "BTCUSD", false)
	f("btcusd", "BTCUSD", false)
	f("brk.b", "BRK.B", false)
	f("1000-pepe_usd", "1000-PEPE_USD", false)
	f(strings.Repeat("a", 32), strings.Repeat("A", 32), false)
	f("", "", true)
	f(strings.Repeat("a", 33), "", true)
	f("BTC USD", "", true)
	f("BTC/USD", "", true)
	f("é", "", true)
}

// FuzzParseLimit checks that an accepted limit is in range and is the
// decimal value of the input, and that a rejection is a 400 body.
func FuzzParseLimit(f *testing.F) {
	for _, s := range []string{"", "1", "100", "0", "101", "-5", "+5", "1e2", "0100", "9999999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		n, err := parseLimit(raw, 20, 100)
		if err != nil {
			if n != 0 || !strings.Contains(string(err.AppendBody(nil)), `"parameter":"limit"`) {
				t.Fatalf("parseLimit(%q) rejected with n=%d body %s", raw, n, err.AppendBody(nil))
			}
			return
		}
		if n < 1 || n > 100 {
			t.Fatalf("parseLimit(%q) accepted %d, out of 1..100", raw, n)
		}
		if raw == "" {
			if n != 20 {
				t.Fatalf("default limit %d, want 20", n)
			}
			return
		}
		if v, perr := strconv.ParseUint(raw, 10, 64); perr != nil || v != uint64(n) {
			t.Fatalf("parseLimit(%q) = %d, but the decimal value is %d (%v)", raw, n, v, perr)
		}
	})
}

// FuzzParseSymbol checks that an accepted symbol is upper case, 1..32
// characters of the allowed set, and equal to the input up to case.
func FuzzParseSymbol(f *testing.F) {
	for _, s := range []string{"BTCUSD", "btcusd", "brk.b", "", "a b", "é", "\x00", strings.Repeat("x", 40)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		sym, err := parseSymbol(raw)
		if err != nil {
			return
		}
		if len(sym) < 1 || len(sym) > 32 || sym != strings.ToUpper(sym) || !strings.EqualFold(sym, raw) {
			t.Fatalf("parseSymbol(%q) accepted %q", raw, sym)
		}
		for _, c := range []byte(sym) {
			if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_') {
				t.Fatalf("parseSymbol(%q) accepted %q with %q", raw, sym, c)
			}
		}
	})
}

// FuzzParseWindow checks that only the known windows (or empty) are accepted.
func FuzzParseWindow(f *testing.F) {
	for _, s := range []string{"", "1m", "5m", "15m", "1h", "5M"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		w, err := parseWindow(raw)
		if err != nil {
			return
		}
		if _, ok := schemas.WindowSeconds(w); !ok || (raw != "" && w != raw) || (raw == "" && w != "5m") {
			t.Fatalf("parseWindow(%q) accepted %q", raw, w)
		}
	})
}
