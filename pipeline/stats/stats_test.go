package stats

import (
	"strings"
	"testing"
)

func TestReasonsTop(t *testing.T) {
	f := func(in []string, n int, want string) {
		t.Helper()
		var r Reasons
		for _, x := range in {
			r.Add(x)
		}
		if got := r.Top(n); got != want {
			t.Fatalf("Top(%d) of %q:\n got %s\nwant %s", n, in, got, want)
		}
		if r.Total() != uint64(len(in)) {
			t.Fatalf("Total %d, want %d", r.Total(), len(in))
		}
	}
	f(nil, 3, "")
	f([]string{"late"}, 3, "late ×1")
	f([]string{"unknown pool: 0xa", "unknown pool: 0xb", "bad time: x"}, 3, `unknown pool ×2 (e.g. "unknown pool: 0xa"); bad time ×1 (e.g. "bad time: x")`)
	// Ties by phrase; the rest summarized.
	f([]string{"b", "a", "c"}, 2, "a ×1; b ×1; 1 more reason")
	f([]string{"b", "a", "c", "d"}, 1, "a ×1; 3 more reasons")
	long := "bad row: " + strings.Repeat("x", 300)
	f([]string{long}, 1, `bad row ×1 (e.g. "`+long[:160]+`…")`)
}

func TestStatsRejectedBy(t *testing.T) {
	s := New()
	s.Reject("replay:a", "unknown pool: 0xa")
	s.Reject("replay:a", "unknown pool: 0xb")
	s.Reject("", "late")
	srcs, dlq := s.Snapshot()
	if len(srcs) != 1 || srcs[0].Rejected != 2 || srcs[0].RejectedBy["unknown pool"] != 2 || dlq["late"] != 1 || dlq["unknown pool"] != 2 {
		t.Fatalf("snapshot %+v %v", srcs, dlq)
	}
	srcs[0].RejectedBy["unknown pool"] = 9 // a copy
	if again, _ := s.Snapshot(); again[0].RejectedBy["unknown pool"] != 2 {
		t.Fatal("Snapshot shares its map with the stats")
	}
}
