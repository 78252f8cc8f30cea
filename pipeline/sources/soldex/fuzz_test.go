package soldex

import (
	"errors"
	"testing"
)

// FuzzParseMeta: any metadata JSON is swaps or an error of the package's
// kinds, never a panic; a swap's vault deltas have opposite signs; the
// scanning decoder, when it does not decline, gives the general decoder's
// swaps or error, with the pools in order of appearance or given.
func FuzzParseMeta(f *testing.F) {
	f.Add(readFixture(f))
	f.Add([]byte(`{"err":null,"preTokenBalances":[],"postTokenBalances":[]}`))
	f.Add([]byte(`{"preTokenBalances":[{"accountIndex":14,"mint":"7i5KKsX2weiTkry7jA4ZwSuXGhs5eJBEjY8vVxR4pfRx","owner":"BMCheVSdKZ6rxsoJ1MChA5HQRtk5pz4QkCLs7MXFkvZJ","uiTokenAmount":{"amount":"5","decimals":9}}]}`))
	pools := map[string]*Pool{meteoraPool.Address: meteoraPool, solPool.Address + "x": &solPool}
	src, err := New(Config{RPC: "x", Pools: []Pool{solPool}})
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte(`{"postTokenBalances":[{"accountIndex":1,"mint":"m","owner":"BMCheVSdKZ6rxsoJ1MChA5HQRtk5pz4QkCLs7MXFkvZJ","uiTokenAmount":{"amount":"7","decimals":9}}],"preTokenBalances":[{"accountIndex":1,"mint":"m","uiTokenAmount":{"amount":"5"}}],"err":null}`))
	order := []string{solPool.Address + "x", meteoraPool.Address, "nope"}
	f.Fuzz(func(t *testing.T, raw []byte) {
		sameSwaps(t, raw, pools, nil)
		sameSwaps(t, raw, pools, order)
		swaps, err := ParseMeta(raw, pools)
		if err != nil {
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrFailed) && !errors.Is(err, ErrNotSwap) {
				t.Fatalf("unexpected error kind: %v", err)
			}
			return
		}
		for _, s := range swaps {
			if s.BaseDelta.Sign() == s.QuoteDelta.Sign() || s.BaseDelta.Sign() == 0 {
				t.Fatalf("swap with deltas %v %v", s.BaseDelta, s.QuoteDelta)
			}
		}
		for _, r := range src.Records("sig", 1_700_000_000, raw) {
			if r.Trade == nil && r.Reason == "" {
				t.Fatal("rejection without a reason")
			}
		}
	})
}
