package venue

import (
	"strings"
	"testing"
	"time"

	"github.com/marketintel/mi/schemas"
)

// refRFC3339 is RFC3339Ns as it was before its fast path: time.Parse only.
func refRFC3339(b []byte) (int64, bool) {
	if len(b) < 20 || len(b) > 40 {
		return 0, false
	}
	t, err := time.Parse(time.RFC3339Nano, string(b))
	if err != nil || t.Year() < 1970 || t.Year() > 2200 {
		return 0, false
	}
	return t.UnixNano(), true
}

func checkRFC3339(t *testing.T, s string) {
	got, ok := RFC3339Ns([]byte(s))
	want, wok := refRFC3339([]byte(s))
	if ok != wok || got != want {
		t.Fatalf("RFC3339Ns(%q) = %v %v, time.Parse: %v %v", s, got, ok, want, wok)
	}
}

var timeSeeds = []string{"2026-08-09T21:05:42.514318Z", "2024-08-08T23:54:14.250Z", "2024-02-29T00:00:00Z", "2023-02-29T00:00:00Z",
	"2024-08-08T24:00:00Z", "2024-08-08T23:60:00Z", "2024-08-08T23:59:60Z", "2024-13-01T00:00:00Z", "1969-12-31T23:59:59.9Z",
	"2200-12-31T23:59:59.999999999Z", "2201-01-01T00:00:00Z", "2024-08-08T23:54:14.1234567891Z", "2024-08-08T23:54:14.Z",
	"2024-08-08T23:54:14+02:00", "2024-08-08t23:54:14Z", "2024-04-31T00:00:00Z", "2000-02-29T12:00:00Z", "1900-02-29T00:00:00Z"}

func TestTimeAndSide(t *testing.T) {
	for _, s := range timeSeeds {
		checkRFC3339(t, s)
	}
	for _, s := range []string{"Buy", "BUY", "buy", "bUy", "B", "b", "bid", "BID", "Sell", "SELL", "sell", "S", "s", "A", "a",
		"ask", "Ask", "", "unknown", "UNKNOWN", "x", "buyer"} {
		got, ok := ParseSide([]byte(s))
		want, wok := refSide(s)
		if got != want || ok != wok {
			t.Errorf("ParseSide(%q) = %v %v, want %v %v", s, got, ok, want, wok)
		}
	}
}

// refSide is ParseSide as it was: lower-case, then match.
func refSide(s string) (schemas.Side, bool) {
	switch strings.ToLower(s) {
	case "buy", "b", "bid":
		return schemas.Side_SIDE_BUY, true
	case "sell", "s", "a", "ask":
		return schemas.Side_SIDE_SELL, true
	case "", "unknown":
		return schemas.Side_SIDE_UNKNOWN, true
	}
	return schemas.Side_SIDE_UNKNOWN, false
}

// RFC3339Ns (with its fast path) agrees with time.Parse on every input.
func FuzzRFC3339(f *testing.F) {
	for _, s := range timeSeeds {
		f.Add(s)
	}
	f.Fuzz(checkRFC3339)
}

// DateTimeNs agrees with time.Parse("2006-01-02 15:04:05") on every
// input it takes, and takes the plain form of every date of its years.
func FuzzDateTime(f *testing.F) {
	for _, s := range []string{"2024-01-05 00:00:23", "2024-02-29 23:59:59", "2023-02-29 00:00:00", "2024-01-05 24:00:00",
		"1900-01-01 00:00:00", "2200-12-31 23:59:59", "2024-01-05T00:00:23", "2024-01-05 00:00:23.5", "2024-1-05 00:00:23"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ns, ok := DateTimeNs(b)
		ts, err := time.Parse("2006-01-02 15:04:05", string(b))
		if ok && (err != nil || ts.UnixNano() != ns) {
			t.Fatalf("DateTimeNs(%q) = %d; time.Parse = %v, %v", b, ns, ts, err)
		}
		if !ok && err == nil && ts.Year() >= 1900 && ts.Year() <= 2200 && ts.Format("2006-01-02 15:04:05") == string(b) {
			t.Fatalf("DateTimeNs(%q) refused a plain date time.Parse reads", b)
		}
	})
}
