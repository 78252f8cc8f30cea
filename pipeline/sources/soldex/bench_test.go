package soldex

import "testing"

// BenchmarkParseMeta parses the real transaction metadata (11 KB, 45 log
// lines, 5+5 token balances) into its swap. One op is one transaction.
func BenchmarkParseMeta(b *testing.B) {
	raw := readFixture(b)
	pools := map[string]*Pool{meteoraPool.Address: meteoraPool}
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if s, err := ParseMeta(raw, pools); err != nil || len(s) != 1 {
			b.Fatal(err)
		}
	}
}
