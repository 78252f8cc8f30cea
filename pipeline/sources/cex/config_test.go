package cex

import (
	"bytes"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/marketintel/mi/pipeline/sources"
)

func TestDefaultConfig(t *testing.T) {
	deploy, err := os.ReadFile("../../../deploy/sources.default.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(deploy, sources.DefaultConfig()) {
		t.Fatal("deploy/sources.default.json differs from the embedded default (pipeline/sources/config_default.json)")
	}
	cfg, err := sources.LoadConfig("")
	if err != nil {
		t.Fatal(err)
	}
	// The other entries (on-chain DEX, rates pollers) belong to packages
	// this one does not import; cmd/mi's TestDefaultConfigOpens opens the
	// whole file.
	exchanges := []string{"coinbase", "binance", "kraken", "bybit", "hyperliquid", "okx"}
	cfg.Sources = slices.DeleteFunc(cfg.Sources, func(s sources.SourceConfig) bool { return !slices.Contains(exchanges, s.Kind) })
	srcs, err := cfg.Open(sources.Env{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range srcs {
		c := s.(*Conn)
		names = append(names, s.Name()+"="+c.Venue()+"@"+c.cfg.URL+strings.Join(c.cfg.Markets, ","))
		_ = s.Close()
	}
	want := []string{
		"ws:coinbase=coinbase@wss://advanced-trade-ws.coinbase.comBTC-USD,ETH-USD",
		"ws:binance=binance@wss://stream.binance.com:9443/streamBTCUSDT,ETHUSDT",
		"ws:kraken=kraken@wss://ws.kraken.com/v2BTC/USD,ETH/USD",
		"ws:bybit=bybit@wss://stream.bybit.com/v5/public/spotBTCUSDT,ETHUSDT",
		"ws:hyperliquid=hyperliquid@wss://api.hyperliquid.xyz/wsBTC,ETH",
		"ws:okx=okx@wss://ws.okx.com:8443/ws/v5/publicBTC-USDT,ETH-USDT,BTC-USDT-SWAP,ETH-USDT-SWAP",
	}
	if strings.Join(names, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(names, "\n"), strings.Join(want, "\n"))
	}
}

func TestConfigErrors(t *testing.T) {
	f := func(cfg, wantErr string) {
		t.Helper()
		c, err := sources.ParseConfig([]byte(cfg))
		if err == nil {
			var srcs []sources.Source
			srcs, err = c.Open(sources.Env{})
			for _, s := range srcs {
				_ = s.Close()
			}
		}
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("%s: error %v, want it to contain %q", cfg, err, wantErr)
		}
	}
	f(`{"sources":[{"kind":"ftx","markets":["BTC-PERP"]}]}`, "accepted kinds: ")
	f(`{"sources":[{"kind":"binance","markets":["BTCUSDT"],"colour":"red"}]}`, `unknown field "colour"`)
	f(`{"sources":[{"kind":"binance"}]}`, "no markets")
	f(`{"sources":[{"kind":"binance","markets":["X"],"pingInterval":"soon"}]}`, "pingInterval")
	f(`{"sources":[{"kind":"bybit","venue":"bybit_options","markets":["X"]}]}`, "accepted bybit, bybit_linear, bybit_inverse")
	f(`{"sources":[{"kind":"binance","name":"a","markets":["X"]},{"kind":"kraken","name":"a","markets":["X"]}]}`, "used twice")
	f(`{"sources":[{"markets":["X"]}]}`, "no kind")
	f(`{"sources":[{"kind":"okx","venue":"okx_swap","markets":["BTC-USDT-SWAP"]}]}`, "leave venue empty")
	f(`{"sources":`, "cannot parse")
	_, err := sources.Config{Sources: []sources.SourceConfig{{Kind: "nope"}}}.Open(sources.Env{})
	if !errors.Is(err, sources.ErrUnknownKind) {
		t.Errorf("err %v, want ErrUnknownKind", err)
	}
}

// The OKX entry's endpoints are configurable, so local servers stand in.
func TestConfigOKXEndpoints(t *testing.T) {
	c, err := sources.ParseConfig([]byte(`{"sources":[{"kind":"okx","name":"ws:okx","url":"ws://127.0.0.1:1/ws/v5/public","instrumentsUrl":"http://127.0.0.1:2/api/v5/public/instruments","markets":["BTC-USDT-SWAP"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	srcs, err := c.Open(sources.Env{})
	if err != nil {
		t.Fatal(err)
	}
	defer srcs[0].Close()
	cfg := srcs[0].(*Conn).cfg
	if cfg.URL != "ws://127.0.0.1:1/ws/v5/public" || cfg.InstrumentsURL != "http://127.0.0.1:2/api/v5/public/instruments" || cfg.HTTP == nil {
		t.Errorf("url %q instrumentsUrl %q http %v", cfg.URL, cfg.InstrumentsURL, cfg.HTTP != nil)
	}
}
