package replay

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"testing"

	"github.com/klauspost/compress/gzip"

	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/pipeline/sidetopic"
	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/schemas"
)

// fuzzParser feeds one unit to a fresh parser: it must not panic, every
// trade must pass schemas.Validate and every reject must carry a reason and
// the input it rejects.
func fuzzParser(t *testing.T, p parser, unit []byte) {
	var out []sources.Record
	out = p.parse(unit, out)
	for _, r := range out {
		if r.Trade != nil {
			if err := schemas.Validate(r.Trade); err != nil {
				t.Fatalf("invalid trade from %q: %v", unit, err)
			}
			continue
		}
		if r.Gap != nil {
			if r.Symbol == "" || r.Gap.FromNs > r.Gap.ToNs || r.Gap.Reason == "" {
				t.Fatalf("bad gap record %+v from %q", r, unit)
			}
			continue
		}
		if r.Side != nil {
			// A pool event must be one the liquidity view applies.
			if v, err := sidetopic.PoolEvents.Decode(r.Side.Value); err != nil {
				t.Fatalf("undecodable side record from %q: %v", unit, err)
			} else if _, err := operators.PoolEventFromProto(v); err != nil {
				t.Fatalf("invalid pool event from %q: %v", unit, err)
			}
			continue
		}
		if r.Reason == "" || (len(r.Raw) == 0 && len(unit) > 0) {
			t.Fatalf("reject without reason or raw from %q", unit)
		}
	}
}

func FuzzBinance(f *testing.F) {
	f.Add([]byte(`1723161254087896568 {"stream":"btcusdt@trade","data":{"e":"trade","E":1723161255343,"s":"BTCUSDT","t":3735683259,"p":"61837.63000000","q":"0.02000000","T":1723161255342,"m":true,"M":true}}`))
	f.Add([]byte(`1723161600650152286 {"stream":"btcusd_perp@trade","data":{"e":"trade","E":1723161601917,"T":1723161601913,"s":"BTCUSD_PERP","t":849716688,"p":"61668.7","q":"4","X":"MARKET","m":false}}`))
	f.Add([]byte(`1680652806996641 {"stream":"btcusdt@aggTrade","data":{"e":"aggTrade","E":1680652807006,"a":1,"s":"BTCUSDT","p":"1","q":"1","T":1680652804962,"m":false}}`))
	f.Add([]byte(`1723161254087891268 {"stream":"btcusdt@bookTicker","data":{"u":50093239212,"s":"BTCUSDT","b":"61837.63000000","B":"3.78826000","a":"61837.64000000","A":"1.54698000"}}`))
	f.Add([]byte(`1723161254206652067 {"lastUpdateId":50093239218,"bids":[["1","2"]],"asks":[]}`))
	f.Add([]byte(`1723161254087896568 {"stream":"btcusdt@trade","data":{"e":"trade","s":"BTCUSDT","t":1,"p":"NaN","q":"x","T":-1,"m":"yes"}}`))
	f.Add([]byte(`1723161254087896568 {"stream":"btcusdt@trade","data":{"e":"tra`))
	f.Fuzz(func(t *testing.T, line []byte) {
		fuzzParser(t, newBinanceCapture(""), line)
		fuzzParser(t, newBinanceCapture("binance_coinm_x"), line)
	})
}

func FuzzCoinbase(f *testing.F) {
	f.Add([]byte(`{"t":"recv","conn":"COINBASE.ws.2","ts":1786309548.6290078,"data":"{\"channel\":\"market_trades\",\"timestamp\":\"2026-08-09T21:05:48.228568804Z\",\"sequence_num\":0,\"events\":[{\"type\":\"snapshot\",\"trades\":[{\"product_id\":\"BTC-USD\",\"trade_id\":\"1068572090\",\"price\":\"65083.67\",\"size\":\"0.002186\",\"time\":\"2026-08-09T21:05:42.514318Z\",\"side\":\"SELL\"}]}]}"}`))
	f.Add([]byte(`{"t":"recv","conn":"c","ts":1.5,"data":"{\"channel\":\"l2_data\",\"events\":[]}"}`))
	f.Add([]byte(`{"t":"send","conn":"c","ts":1.5,"data":"{}"}`))
	f.Add([]byte(`{"type":"match","trade_id":1568267,"maker_order_id":"a","taker_order_id":"b","side":"sell","size":"1338.3","price":"0.7904","product_id":"SKL-USD","sequence":1,"time":"2021-04-17T16:43:37.056746Z"}`))
	f.Add([]byte(`{"type":"ticker","product_id":"SKL-USD"}`))
	f.Add([]byte(`{"t":"recv","conn":"c","ts":"x","data":"{\"channel\":\"market_trades\",\"events\":[{\"trades\":[{\"price\":\"\\u0031\"}]}]}"}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		fuzzParser(t, newCoinbaseCapture(), line)
	})
}

func FuzzBybit(f *testing.F) {
	f.Add([]byte(`{"t": "connect", "conn": "BYBIT.ws.2", "ts": 1786310818.2235148, "addr": "wss://stream.bybit.com/v5/public/linear"}`))
	f.Add([]byte(`{"t":"recv","conn":"BYBIT.ws.2","ts":1786310819.9656,"data":"{\"topic\":\"publicTrade.BTCUSDT\",\"type\":\"snapshot\",\"ts\":1786310819681,\"data\":[{\"T\":1786310819680,\"s\":\"BTCUSDT\",\"S\":\"Sell\",\"v\":\"0.004\",\"p\":\"65114.20\",\"L\":\"MinusTick\",\"i\":\"a9188a0a-82bc-50de-be60-03eedbe3cdd7\",\"BT\":false}]}"}`))
	f.Add([]byte(`{"t":"recv","conn":"x","ts":1,"data":"{\"topic\":\"tickers.BTCUSDT\",\"data\":{}}"}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		p := newBybitCapture()
		fuzzParser(t, p, []byte(`{"t":"connect","conn":"BYBIT.ws.2","ts":1,"addr":"wss://stream.bybit.com/v5/public/inverse"}`))
		fuzzParser(t, p, line)
	})
}

func FuzzHyperliquid(f *testing.F) {
	f.Add([]byte(`1737918844167767000 {"channel":"trades","data":[{"coin":"BTC","hash":"0xde","px":"105056.0","side":"B","sz":"0.00219","tid":121451470284048,"time":1737918794873,"users":["0xe9","0x68"]}]}`))
	f.Add([]byte(`1737918843893903000 {"channel":"l2Book","data":{"coin":"BTC","levels":[[],[]]}}`))
	f.Add([]byte(`1737918844167767000 {"channel":"trades","data":[{"coin":"kPEPE","px":"1e3","side":"A","sz":"1","tid":"1","time":1,"users":[]}]}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		fuzzParser(t, newHyperliquidCapture(), line)
	})
}

func FuzzTardis(f *testing.F) {
	f.Add([]byte(`binance-futures,BTCUSDT,1582329602111000,1582329602418379,42377944,buy,9682,0.132`))
	f.Add([]byte(`bitmex,XBTUSD,1583020803145000,1583020803307160,ccc3c1fa-212c-e8b0-1706-9b9c4f3d5ecf,sell,8531.5,2152`))
	f.Add([]byte(`bitmex,ETHUSD,1583020803145000,,x,unknown,1,1`))
	f.Add([]byte(`exchange,symbol,timestamp,local_timestamp,id,side,price,amount`))
	f.Fuzz(func(t *testing.T, line []byte) {
		p, err := newTardisParser(tardisColumns)
		if err != nil {
			t.Fatal(err)
		}
		fuzzParser(t, p, line)
	})
}

func FuzzUniswapLog(f *testing.F) {
	f.Add([]byte(`18937382,2024-01-05 00:00:23,0x0bb5e0dc49ae0b5a1949beabadc64522dd5615415a168650a3b592a84ae5ee05,33,169,"['0xc42079f94a6350d7e6235f29174924f928cc2ac818eb64fed8004e115fbcca67', '0x0000000000000000000000003fc91a3afd70395cd496c647d5a6cc9d4b2b7fad', '0x0000000000000000000000003fc91a3afd70395cd496c647d5a6cc9d4b2b7fad']",0xfffffffffffffffffffffffffffffffffffffffffffffffffffffffffea5d662000000000000000000000000000000000000000000000000002386f26fc1000000000000000000000000000000000000000051fdf2fd9b2526872a9b723450f2000000000000000000000000000000000000000000000000acd43e0e7cf808c50000000000000000000000000000000000000000000000000000000000030985`), false)
	f.Add([]byte(`{"address":"0x88e6a0c2ddd26feeb64f039a2c41296fcb3f5640","topics":["0xc42079f94a6350d7e6235f29174924f928cc2ac818eb64fed8004e115fbcca67","0x0000000000000000000000003fc91a3afd70395cd496c647d5a6cc9d4b2b7fad","0x0000000000000000000000003fc91a3afd70395cd496c647d5a6cc9d4b2b7fad"],"data":"0xfffffffffffffffffffffffffffffffffffffffffffffffffffffffffea5d662000000000000000000000000000000000000000000000000002386f26fc1000000000000000000000000000000000000000051fdf2fd9b2526872a9b723450f2000000000000000000000000000000000000000000000000acd43e0e7cf808c50000000000000000000000000000000000000000000000000000000000030985","blockNumber":"0x120f626","blockTimestamp":"0x65974697","transactionHash":"0x0bb5","transactionIndex":"0x21","logIndex":"0xa9","removed":false}`), true)
	f.Add([]byte(`{"address":"0x88e6a0c2ddd26feeb64f039a2c41296fcb3f5640","topics":["0x7a53080ba414158be7ec69b987b5fb7d07dee101fe85488f0853ae16239d0bde"],"data":"0x","blockTimestamp":"0x1","logIndex":"0x1"}`), true)
	f.Add([]byte(`1,2024-01-05 00:00:23,0x0,1,1,"['0xc42079f94a6350d7e6235f29174924f928cc2ac818eb64fed8004e115fbcca67', '0x00', '0x00']",0x00`), false)
	f.Add([]byte(`1,2024-02-29 23:59:59,0xAB,x,4294967295,"['0xC42079F94A6350D7E6235F29174924F928CC2AC818EB64FED8004E115FBCCA67','0x01']",0x`), false)
	f.Add([]byte(`{"address":"0x88E6A0C2DDD26FEEB64F039A2C41296FCB3F5640","topics":[],"data":"0x","blockTimestamp":"0x10000000000","transactionHash":"0xAB","logIndex":"0xffffffff","removed":true}`), true)
	f.Add([]byte(`18937382,2024-01-05 00:00:23+00:00,0x0bb5e0dc49ae0b5a1949beabadc64522dd5615415a168650a3b592a84ae5ee05,33,169,"['0xc42079f94a6350d7e6235f29174924f928cc2ac818eb64fed8004e115fbcca67', '0x0000000000000000000000003fc91a3afd70395cd496c647d5a6cc9d4b2b7fad', '0x0000000000000000000000003fc91a3afd70395cd496c647d5a6cc9d4b2b7fad']",0xfffffffffffffffffffffffffffffffffffffffffffffffffffffffffea5d662000000000000000000000000000000000000000000000000002386f26fc1000000000000000000000000000000000000000051fdf2fd9b2526872a9b723450f2000000000000000000000000000000000000000000000000acd43e0e7cf808c50000000000000000000000000000000000000000000000000000000000030985`), false)
	f.Fuzz(func(t *testing.T, unit []byte, json bool) {
		pool := KnownPools[0].Address
		if json {
			pool = ""
		}
		fast, general := uniswapPair(t, pool)
		fuzzParser(t, fast, unit)
		// The row scanners and the fixed-width Swap decoder give the
		// records of the reference rows (with the fixed-width decoder)
		// and of the general path (reference rows, ABI).
		fast, _ = uniswapPair(t, pool)
		rows, _ := uniswapPair(t, pool)
		rows.rowsGeneral = true
		a := fast.parse(unit, nil)
		if d := diffRecords(a, rows.parse(unit, nil)); d != "" {
			t.Fatalf("row scanners and reference rows differ: %s", d)
		}
		if d := diffRecords(a, general.parse(unit, nil)); d != "" {
			t.Fatalf("fast and general paths differ: %s", d)
		}
		if fast.Skipped() != general.Skipped() || rows.Skipped() != general.Skipped() {
			t.Fatalf("skipped %d, %d, %d", fast.Skipped(), rows.Skipped(), general.Skipped())
		}
		// A log the scanner takes is read by the reference into the same
		// fields.
		scanner, reference := uniswapPair(t, pool)
		if _, d := scanDiff(scanner, reference, unit); d != "" {
			t.Fatalf("row scanner and reference differ: %s", d)
		}
	})
}

func FuzzGenericCSV(f *testing.F) {
	f.Add([]byte(`2024-08-08T23:54:15.5Z,binance,BTCUSDT,61837.63,0.02,buy,1,cex,,,,,`))
	f.Add([]byte(`1723161255500000000,uniswap_v3,ETHUSD,1,1,sell,"0xa,b",onchain_dex,ethereum,0x88e6,1.5,0xw,7`))
	f.Add([]byte(`x,y,z,NaN,Inf,?,,,,,,,`))
	f.Fuzz(func(t *testing.T, line []byte) {
		cols := append(append([]string(nil), genericRequired...), genericOptional...)
		p, err := newGenericCSVParser(cols)
		if err != nil {
			t.Fatal(err)
		}
		fuzzParser(t, p, line)
	})
}

func FuzzGenericNDJSON(f *testing.F) {
	f.Add([]byte(`{"time":"2024-08-08T23:54:15.5Z","venue":"binance","symbol":"BTCUSDT","price":"61837.63","size":"0.02","side":"BUY","trade_id":"1"}`))
	f.Add([]byte(`{"time":1723161255500000000,"venue":"v","symbol":"ETHUSD","price":1,"size":1,"side":"sell","trade_id":7,"log_index":3,"venue_kind":"onchain_dex","notional_usd":"2"}`))
	f.Add([]byte(`{"time":"\u0032","venue":"\ud83d\ude00","symbol":null,"price":"1e400"}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		fuzzParser(t, newGenericJSONParser(), line)
	})
}

// decodeHexInto agrees with encoding/hex.Decode on every even-length input.
func FuzzDecodeHexInto(f *testing.F) {
	for _, s := range []string{"", "00", "0123456789abcdefABCDEF0123456789", "0123456789abcdeg", "ff\x80f", "0123456789abcdef01"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src)%2 != 0 {
			src = src[:len(src)-1]
		}
		want := make([]byte, len(src)/2)
		_, err := hex.Decode(want, src)
		got := make([]byte, len(src)/2)
		if ok := decodeHexInto(got, src); ok != (err == nil) || ok && !bytes.Equal(got, want) {
			t.Fatalf("decodeHexInto(%q) = %x, %v; hex.Decode = %x, %v", src, got, ok, want, err)
		}
	})
}

// seedLines adds up to max lines of a real capture to f's corpus, every
// line that contains must first.
func seedLines(f *testing.F, path, must string, max int) {
	b, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	if bytes.HasPrefix(b, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			f.Fatal(err)
		}
		if b, err = io.ReadAll(zr); err != nil {
			f.Fatal(err)
		}
	}
	n := 0
	for _, pass := range []bool{true, false} {
		for _, line := range bytes.Split(b, []byte{'\n'}) {
			if n >= max {
				return
			}
			if bytes.Contains(line, []byte(must)) == pass && len(line) < 8<<10 {
				f.Add(append([]byte(nil), line...))
				n++
			}
		}
	}
}

func FuzzOKX(f *testing.F) {
	seedLines(f, okxFormat1, `"channel":"trades"`, 120)
	seedLines(f, okxFormat2, `trades`, 60)
	f.Add([]byte(`pong`))
	f.Add([]byte(`1652459225507260300 {"arg":{"channel":"trades","instId":"BTC-USDT"},"data":[{"instId":"BTC-USDT","tradeId":"1","px":"1","sz":"1","side":"buy","ts":"1"}]}`))
	f.Add([]byte(`https://www.okx.com/api/v5/public/instruments?instType=SWAP -> 1652458996.5258555: {"code":"0","data":[{"instId":"UNI-USD-SWAP","ctVal":"10","ctMult":"1","ctValCcy":"USD"}]}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		p := newOKXCapture()
		fuzzParser(t, p, []byte(`{"t":"http","conn":"OKX.http.sync","ts":1,"url":"https://www.okx.com/api/v5/public/instruments?instType=SWAP","data":"{\"code\":\"0\",\"data\":[{\"instId\":\"UNI-USD-SWAP\",\"ctVal\":\"10\",\"ctMult\":\"1\",\"ctValCcy\":\"USD\"},{\"instId\":\"BTC-USDT-SWAP\",\"ctVal\":\"0.01\",\"ctMult\":\"1\",\"ctValCcy\":\"BTC\"}]}"}`))
		fuzzParser(t, p, line)
	})
}

func FuzzKrakenREST(f *testing.F) {
	// Small pages of the real page's entries (the whole page, 90 KB, is
	// too large a seed for the mutator; TestKrakenRESTPage reads it).
	page, err := os.ReadFile(krakenPage1)
	if err != nil {
		f.Fatal(err)
	}
	var p struct {
		Result struct{ XBTUSDT []json.RawMessage }
		Last   string
	}
	if err := json.Unmarshal(page, &p); err != nil {
		f.Fatal(err)
	}
	for i := 0; i+3 <= len(p.Result.XBTUSDT) && i < 60; i += 3 {
		b, _ := json.Marshal(map[string]any{"error": []string{}, "result": map[string]any{"XBTUSDT": p.Result.XBTUSDT[i : i+3], "last": "1762820035982277754"}})
		f.Add(b)
	}
	f.Add([]byte(`{"error":["EGeneral:Too many requests"]}`))
	f.Add([]byte(`{"error":[],"result":{"XXBTZUSD":[["6650.00000","0.00100000",1535271158.4026,"b","m",""]],"last":"1535290179989384853"}}`))
	f.Fuzz(func(t *testing.T, unit []byte) {
		p := newKrakenPages()
		fuzzParser(t, p, unit)
		fuzzParser(t, p, unit) // the same page again: duplicates
	})
}
