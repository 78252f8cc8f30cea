package query

import (
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/query/paywall/x402/x402test"
)

// interopDir holds the npm project of the official x402 client.
const interopDir = "../internal/interop/x402"

// TestX402OfficialClient runs the official TypeScript client (@x402/fetch
// with @x402/evm and viem, under node) against the server over HTTP: it
// reads our 402, signs an EIP-3009 authorization, pays, and gets the data;
// the payment settles on the simulated chain.
func TestX402OfficialClient(t *testing.T) {
	if _, err := os.Stat(filepath.Join(interopDir, "node_modules", "@x402", "fetch")); err != nil {
		t.Fatalf("the x402 TypeScript client is not installed: run scripts/install.d/x402.sh (%v)", err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not installed: run scripts/install.d/x402.sh")
	}
	f := newPayFixture(t, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = f.app.Listener(ln, fiber.ListenConfig{DisableStartupMessage: true}) }()
	t.Cleanup(func() { _ = f.app.Shutdown() })
	url := "http://" + ln.Addr().String() + paidTarget
	cmd := exec.CommandContext(t.Context(), node, "pay.mjs", url, hexutil.Encode(crypto.FromECDSA(f.payer)), x402test.Network, f.chain.Token.Hex())
	cmd.Dir = interopDir
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("node pay.mjs: %v\n%s\n%s", err, out, stderr)
	}
	var got struct {
		Status          int    `json:"status"`
		Body            string `json:"body"`
		PaymentResponse struct {
			Success     bool   `json:"success"`
			Transaction string `json:"transaction"`
			Network     string `json:"network"`
			Payer       string `json:"payer"`
		} `json:"paymentResponse"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("client output %s: %v", out, err)
	}
	if got.Status != 200 || !strings.Contains(got.Body, `"symbol":"BTCUSD"`) {
		t.Fatalf("client got %d %s", got.Status, got.Body)
	}
	pr := got.PaymentResponse
	if !pr.Success || pr.Transaction == "" || pr.Network != x402test.Network ||
		!strings.EqualFold(pr.Payer, crypto.PubkeyToAddress(f.payer.PublicKey).Hex()) {
		t.Fatalf("PAYMENT-RESPONSE seen by the client: %+v", pr)
	}
	payer, payTo := f.balances(t)
	if payer != f.paid-symbolPrice || payTo != symbolPrice {
		t.Fatalf("balances: payer %d, payTo %d", payer, payTo)
	}
}
