package evmcode

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/marketintel/mi/internal/fixtures"
)

const weth9File = "defi/erc20_WETH9_mainnet_0xC02aaA39_runtime_bytecode.hex"

func weth9(tb testing.TB) []byte {
	tb.Helper()
	b, err := os.ReadFile(fixtures.Path(tb, weth9File))
	if err != nil {
		tb.Fatal(err)
	}
	return common.FromHex(strings.TrimSpace(string(b)))
}

func sel(sig string) uint32 {
	h := crypto.Keccak256([]byte(sig))
	return uint32(h[0])<<24 | uint32(h[1])<<16 | uint32(h[2])<<8 | uint32(h[3])
}

// TestWETH9Selectors: the real mainnet WETH9 code. SOURCES.md lists its
// dispatcher's PUSH4 selectors (06fdde03 name ... dd62ed3e allowance);
// every one is found, and no selector of a privileged function is.
func TestWETH9Selectors(t *testing.T) {
	code := weth9(t)
	if h := crypto.Keccak256Hash(code); h.Hex() != "0xd0a06b12ac47863b5c7be4185c2deaad1c61557033f56c7d4ea74429cbb25e23" {
		t.Fatalf("fixture hash %s", h.Hex())
	}
	got := Selectors(code)
	for _, sig := range []string{"name()", "approve(address,uint256)", "totalSupply()", "transferFrom(address,address,uint256)",
		"withdraw(uint256)", "decimals()", "balanceOf(address)", "symbol()", "transfer(address,uint256)", "deposit()", "allowance(address,address)"} {
		if !slices.Contains(got, sel(sig)) {
			t.Errorf("%s (%08x) not found", sig, sel(sig))
		}
	}
	for _, sig := range []string{"mint(address,uint256)", "pause()", "blacklist(address)", "owner()"} {
		if slices.Contains(got, sel(sig)) {
			t.Errorf("%s found in WETH9", sig)
		}
	}
	// The trailer is bzzr0 metadata (a165627a7a72305820…0029): trimmed.
	if tr := TrimMetadata(code); len(tr) != len(code)-0x29-2 {
		t.Fatalf("trimmed %d of %d bytes", len(code)-len(tr), len(code))
	}
}

// TestPushDataSkipped: a selector's bytes inside a PUSH32 constant or
// inside the metadata are not selectors; a PUSH3 of a selector with a
// leading zero byte is.
func TestPushDataSkipped(t *testing.T) {
	mint := sel("mint(address,uint256)") // 40c10f19
	f := func(hexCode string, want bool) {
		t.Helper()
		if got := Has(common.FromHex(hexCode), mint); got != want {
			t.Fatalf("%s: Has(mint) = %v", hexCode, got)
		}
	}
	f("6340c10f1914", true)                                                       // PUSH4 40c10f19 EQ
	f("7f"+strings.Repeat("00", 10)+"6340c10f19"+strings.Repeat("00", 17), false) // inside PUSH32 data
	f("6140c1"+"0f19", false)                                                     // PUSH2 40c1 then 0f 19 as opcodes
	f("00"+"a1"+"6340c10f19"+"0006", false)                                       // bytes in a metadata trailer of 6 bytes
	f("6340c10f", false)                                                          // truncated final push: read as 0x0040c10f
	if !slices.Contains(Selectors(common.FromHex("62fdd58e14")), 0x00fdd58e) {
		t.Fatal("PUSH3 of a selector with a leading zero missed")
	}
}

// TestMinimalProxy reads an EIP-1167 clone's target and refuses others.
func TestMinimalProxy(t *testing.T) {
	impl := common.HexToAddress("0xbebebebebebebebebebebebebebebebebebebebe")
	code := common.FromHex("363d3d373d3d3d363d73" + impl.Hex()[2:] + "5af43d82803e903d91602b57fd5bf3")
	if a, ok := MinimalProxyTarget(code); !ok || a != impl {
		t.Fatalf("target %s %v", a.Hex(), ok)
	}
	if _, ok := MinimalProxyTarget(code[:len(code)-1]); ok {
		t.Fatal("short code accepted")
	}
	if _, ok := MinimalProxyTarget(weth9(t)); ok {
		t.Fatal("WETH9 read as a proxy")
	}
}

func TestHasOpcode(t *testing.T) {
	f := func(hexCode string, op byte, want bool) {
		t.Helper()
		if got := HasOpcode(common.FromHex(hexCode), op); got != want {
			t.Fatalf("%s op %02x: %v", hexCode, op, got)
		}
	}
	f("60ff00", 0xff, false) // PUSH1 ff
	f("6000ff", 0xff, true)  // PUSH1 00 SELFDESTRUCT
	f("f4", 0xf4, true)
	if HasOpcode(weth9(t), 0xff) {
		t.Fatal("WETH9 has no SELFDESTRUCT")
	}
}

// FuzzSelectors: any code scans without panicking, every selector found
// is reported once, and code that is one PUSH4 reports exactly its value.
func FuzzSelectors(f *testing.F) {
	f.Add(weth9(f))
	f.Add(common.FromHex("6340c10f1914"))
	f.Add([]byte{0x7f})
	f.Fuzz(func(t *testing.T, code []byte) {
		s := Selectors(code)
		seen := map[uint32]bool{}
		for _, v := range s {
			if seen[v] {
				t.Fatalf("%08x twice", v)
			}
			seen[v] = true
		}
		_, _ = MinimalProxyTarget(code)
		_ = HasOpcode(code, 0xff)
		if len(code) >= 4 {
			one := append([]byte{0x63}, code[:4]...)
			want := uint32(code[0])<<24 | uint32(code[1])<<16 | uint32(code[2])<<8 | uint32(code[3])
			if len(TrimMetadata(one)) != len(one) {
				return // the value's last bytes read as a metadata trailer
			}
			if got := Selectors(one); len(got) != 1 || got[0] != want {
				t.Fatalf("PUSH4 %x: %v", code[:4], fmt.Sprint(got))
			}
		}
	})
}
