package perps

import (
	"encoding/json"
	"fmt"
	"testing"
)

// gen500 builds a metaAndAssetCtxs answer of n perps from the real capture's
// shape: the capture's 228 universe entries and contexts, repeated with
// renamed coins (BTC, BTC2, BTC3, …) until there are n.
func genMetaAndAssetCtxs(tb testing.TB, n int) []byte {
	tb.Helper()
	var top []json.RawMessage
	if err := json.Unmarshal(fixture(tb, "hyperliquid_info_metaAndAssetCtxs_2026-02-06.json"), &top); err != nil {
		tb.Fatal(err)
	}
	var meta map[string]json.RawMessage
	var uni []map[string]any
	var ctxs []json.RawMessage
	if json.Unmarshal(top[0], &meta) != nil || json.Unmarshal(meta["universe"], &uni) != nil || json.Unmarshal(top[1], &ctxs) != nil {
		tb.Fatal("capture shape changed")
	}
	outU := make([]map[string]any, 0, n)
	outC := make([]json.RawMessage, 0, n)
	for i := 0; len(outU) < n; i++ {
		u := map[string]any{}
		for k, v := range uni[i%len(uni)] {
			u[k] = v
		}
		if r := i / len(uni); r > 0 {
			u["name"] = fmt.Sprintf("%s%d", u["name"], r+1)
		}
		outU = append(outU, u)
		outC = append(outC, ctxs[i%len(ctxs)])
	}
	ub, _ := json.Marshal(outU)
	meta["universe"] = ub
	mb, _ := json.Marshal(meta)
	cb, _ := json.Marshal(outC)
	return []byte(`[` + string(mb) + `,` + string(cb) + `]`)
}

// BenchmarkPollCycle500 is the parse-and-build part of one Hyperliquid poll
// over 500 perps: decode metaAndAssetCtxs, build and validate the snapshots
// (the target: < 50 ms).
func BenchmarkPollCycle500(b *testing.B) {
	body := genMetaAndAssetCtxs(b, 500)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		as, rej, err := ParseHyperliquidMetaAndAssetCtxs(body)
		if err != nil || len(as)+len(rej) != 500 {
			b.Fatalf("%d assets, %d rejects, %v", len(as), len(rej), err)
		}
		snaps := BuildHyperliquid(HyperliquidInput{ReadNs: readAt, Assets: as})
		if len(snaps) < 450 {
			b.Fatalf("%d snapshots", len(snaps))
		}
	}
}

// BenchmarkBybitTickers500 parses a tickers answer of 500 perps (the
// capture's four linear tickers repeated under new names) and builds them.
func BenchmarkBybitTickers500(b *testing.B) {
	objs := bybitWSSnapshots(b)
	list := make([]json.RawMessage, 0, 500)
	for i := 0; len(list) < 500; i++ {
		var m map[string]any
		if err := json.Unmarshal(objs[i%len(objs)], &m); err != nil {
			b.Fatal(err)
		}
		if i >= len(objs) {
			m["symbol"] = fmt.Sprintf("C%dUSDT", i)
		}
		x, _ := json.Marshal(m)
		list = append(list, x)
	}
	lb, _ := json.Marshal(list)
	body := []byte(`{"retCode":0,"retMsg":"OK","result":{"category":"linear","list":` + string(lb) + `},"retExtInfo":{},"time":1786310820000}`)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		ts, ns, _, err := ParseBybitTickers(body)
		if err != nil || len(ts) != 500 {
			b.Fatal(err)
		}
		BuildBybit(BybitInput{ReadNs: ns, TimeNs: ns, Tickers: ts})
	}
}
