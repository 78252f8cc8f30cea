package okx

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/venue/venuetest"
	"github.com/marketintel/mi/schemas"
)

// FuzzInstruments reads arbitrary instruments answers: no panic, and every
// contract it keeps has a positive finite value.
func FuzzInstruments(f *testing.F) {
	var ans struct {
		Code string
		Data []json.RawMessage
	}
	if err := json.Unmarshal(instrumentsAnswer(f), &ans); err != nil {
		f.Fatal(err)
	}
	for i := 0; i+2 <= len(ans.Data) && i < 40; i += 2 {
		b, _ := json.Marshal(map[string]any{"code": "0", "msg": "", "data": ans.Data[i : i+2]})
		f.Add(b)
	}
	f.Add([]byte(`{"code":"51001","msg":"Instrument ID does not exist","data":[]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		cs, _ := ParseInstruments(body)
		for id, c := range cs {
			if !(c.Value > 0) || math.IsInf(c.Value, 0) || id == "" {
				t.Fatalf("contract %q %+v from %q", id, c, body)
			}
		}
	})
}

// FuzzMessage decodes arbitrary messages, live and recorded, with the
// capture's contract values: trades valid, rejections with a reason and
// the input, everything else counted as skipped, and the fast path's
// records those of the general path.
func FuzzMessage(f *testing.F) {
	for i, m := range captureMessages(f) {
		if i < 200 && len(m) < 4<<10 {
			f.Add(m)
		}
	}
	cs, err := ParseInstruments(instrumentsAnswer(f))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		for _, recorded := range []bool{false, true} {
			d := New("fuzz")
			d.contracts = cs // read only while decoding
			var out []sources.Record
			if recorded {
				out = d.Recorded(msg, msg, 1, nil)
			} else {
				out = d.Message(msg, 1, nil)
			}
			if len(out) == 0 && d.Skipped() != 1 {
				t.Fatalf("%q yields nothing and is not counted as skipped", msg)
			}
			g := New("fuzz")
			g.SetFastPath(false)
			g.contracts = cs
			var want []sources.Record
			if recorded {
				want = g.Recorded(msg, msg, 1, nil)
			} else {
				want = g.Message(msg, 1, nil)
			}
			if diff := venuetest.DiffRecords(out, want); diff != "" || d.Skipped() != g.Skipped() {
				t.Fatalf("fast path differs on %q: %s (skipped %d, %d)", msg, diff, d.Skipped(), g.Skipped())
			}
			for _, r := range out {
				if r.Trade != nil {
					if err := schemas.Validate(r.Trade); err != nil {
						t.Fatalf("invalid trade from %q: %v", msg, err)
					}
				} else if r.Reason == "" || len(r.Raw) == 0 && len(msg) > 0 {
					t.Fatalf("reject without reason or raw from %q", msg)
				}
			}
		}
	})
}
