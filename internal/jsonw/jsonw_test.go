package jsonw

import (
	"encoding/json"
	"math"
	"testing"
)

func TestAppendFloat(t *testing.T) {
	f := func(v float64, want string) {
		t.Helper()
		if got := string(AppendFloat(nil, v)); got != want {
			t.Fatalf("AppendFloat(%v) = %s, want %s", v, got, want)
		}
		if math.IsNaN(v) || math.IsInf(v, 0) || v == 0 {
			return
		}
		std, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("encoding/json cannot encode %v: %s", v, err)
		}
		if string(std) != want {
			t.Fatalf("AppendFloat(%v) = %s, encoding/json says %s", v, want, std)
		}
	}
	f(0, "0")
	f(math.Copysign(0, -1), "0")
	f(math.NaN(), "0")
	f(math.Inf(1), "0")
	f(math.Inf(-1), "0")
	f(1, "1")
	f(-1.5, "-1.5")
	f(61234.5, "61234.5")
	tenth := 0.1
	f(tenth+0.2, "0.30000000000000004")
	f(1e-6, "0.000001")
	f(1e-7, "1e-7")
	f(-2.5e-10, "-2.5e-10")
	f(1e20, "100000000000000000000")
	f(1e21, "1e+21")
	f(math.MaxFloat64, "1.7976931348623157e+308")
	f(5e-324, "5e-324")
}

func TestAppendString(t *testing.T) {
	f := func(s, want string) {
		t.Helper()
		got := string(AppendString(nil, s))
		if got != want {
			t.Fatalf("AppendString(%q) = %s, want %s", s, got, want)
		}
		var back string
		if err := json.Unmarshal([]byte(got), &back); err != nil {
			t.Fatalf("AppendString(%q) = %s is not a JSON string: %s", s, got, err)
		}
		if wantBack := string([]rune(s)); back != wantBack {
			t.Fatalf("AppendString(%q) reads back as %q, want %q", s, back, wantBack)
		}
	}
	f("", `""`)
	f("BTCUSD", `"BTCUSD"`)
	f(`a"b\c`, `"a\"b\\c"`)
	f("line\nnext\ttab\rret", `"line\nnext\ttab\rret"`)
	f("\x00\x1f", `"\u0000\u001f"`)
	f("<script>&", `"\u003cscript\u003e\u0026"`)
	f("café 🚀", `"café 🚀"`)
	f("bad\xffutf8\xc3", `"bad\ufffdutf8\ufffd"`)
	f("\u2028\u2029", `"\u2028\u2029"`)
}

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "BTCUSD", "a\"b\\c\n", "\x00<>&", "bad\xff\xc3", "\u2028🚀"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b := AppendString(nil, s)
		var back string
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("AppendString(%q) = %s is not a JSON string: %s", s, b, err)
		}
		if want := string([]rune(s)); back != want {
			t.Fatalf("AppendString(%q) reads back as %q, want %q", s, back, want)
		}
	})
}

// FuzzAppendDocument renders documents with arbitrary strings and numbers;
// the output must always be valid JSON of the same shape.
