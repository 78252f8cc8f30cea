package e2e

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/marketintel/mi/internal/fixtures"
	"github.com/marketintel/mi/pipeline"
	"github.com/marketintel/mi/schemas"
)

// TestKcatReadsTrades consumes mi.trades.v1 from the embedded broker with
// kcat (librdkafka, read_committed) and decodes what it read with protoc from
// schemas/mi.proto: neither tool shares code with us.
func TestKcatReadsTrades(t *testing.T) {
	for _, tool := range []string{"kcat", "protoc"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not installed: run `make tools` (make test does it)", tool)
		}
	}
	h := startPipeline(t, t.TempDir(), "replay:"+fixtures.Path(t, "trades/binance_spot_BTCUSDT_ws_raw_2024-08-08.txt.gz"))
	waitDone(t, h.brokers, 2*time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// The replay's end records (kind: end, empty value) are not trades.
	ours := slices.DeleteFunc(readAll(ctx, h.brokers, schemas.TopicTrades), pipeline.IsEnd)
	if len(ours) < 9000 {
		t.Fatalf("expected the capture's ~9,757 trades on %s, found %d", schemas.TopicTrades, len(ours))
	}

	// %R is the payload length as a big-endian int32, then the payload.
	out, err := exec.CommandContext(ctx, "kcat", "-b", h.brokers[0], "-C", "-t", schemas.TopicTrades,
		"-o", "beginning", "-e", "-q", "-f", `%R%s`).Output()
	if err != nil {
		t.Fatalf("kcat: %v", err)
	}
	var batch []byte // a TradeBatch: field 1, one length-delimited Trade per message
	n := 0
	for len(out) > 0 {
		if len(out) < 4 {
			t.Fatalf("kcat output truncated")
		}
		l := int(int32(binary.BigEndian.Uint32(out)))
		out = out[4:]
		if l < 0 || l > len(out) {
			t.Fatalf("bad length %d from kcat", l)
		}
		if l == 0 {
			continue // an end record: a trade is never empty
		}
		batch = protowire.AppendTag(batch, 1, protowire.BytesType)
		batch = protowire.AppendBytes(batch, out[:l])
		out = out[l:]
		n++
	}
	if n != len(ours) {
		t.Fatalf("kcat read %d trades, we committed %d", n, len(ours))
	}

	dir := t.TempDir()
	wrapper := "syntax = \"proto3\";\nimport \"mi.proto\";\nmessage TradeBatch { repeated mi.v1.Trade trades = 1; }\n"
	if err := os.WriteFile(filepath.Join(dir, "batch.proto"), []byte(wrapper), 0o644); err != nil {
		t.Fatal(err)
	}
	schemaDir, _ := filepath.Abs("../../schemas")
	cmd := exec.CommandContext(ctx, "protoc", "--decode=TradeBatch", "-I", dir, "-I", schemaDir, filepath.Join(dir, "batch.proto"))
	cmd.Stdin = bytes.NewReader(batch)
	text, err := cmd.Output()
	if err != nil {
		t.Fatalf("protoc --decode: %v", err)
	}
	prices := regexp.MustCompile(`(?m)^  price: (\S+)$`).FindAllSubmatch(text, -1)
	symbols := regexp.MustCompile(`(?m)^  symbol: "BTCUSD"$`).FindAll(text, -1)
	sides := regexp.MustCompile(`(?m)^  side: SIDE_(BUY|SELL)$`).FindAll(text, -1)
	if len(prices) != n || len(symbols) != n || len(sides) != n {
		t.Fatalf("protoc decoded %d prices, %d BTCUSD symbols, %d sides for %d trades", len(prices), len(symbols), len(sides), n)
	}
	// The messages kcat delivered, in partition order, carry the same prices
	// as the trades we read ourselves.
	want := map[float64]int{}
	for _, r := range ours {
		var tr schemas.Trade
		if err := proto.Unmarshal(r.Value, &tr); err != nil {
			t.Fatal(err)
		}
		want[tr.Price]++
	}
	for _, m := range prices {
		p, err := strconv.ParseFloat(string(m[1]), 64)
		if err != nil {
			t.Fatalf("protoc printed price %q: %v", m[1], err)
		}
		want[p]--
	}
	for p, c := range want {
		if c != 0 {
			t.Fatalf("price %v: kcat/protoc and our reader disagree by %d", p, c)
		}
	}
}
