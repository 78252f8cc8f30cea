package assess

import (
	"github.com/ethereum/go-ethereum/crypto"
)

// FunctionClass is a class of privileged functions the bytecode scan looks
// for, by the selectors of their common signatures.
type FunctionClass struct {
	// Check is the check's name; What names the class in details.
	Check, What string
	// Signatures are the function signatures whose selectors are looked
	// for.
	Signatures []string
}

// FunctionClasses are the classes scanned, in report order. The lists hold
// the signatures of OpenZeppelin's extensions and of the token templates
// seen in the wild (GoPlus and honeypot.is flag the same capabilities).
var FunctionClasses = []FunctionClass{
	{"mint_function", "mint", []string{"mint(address,uint256)", "mint(uint256)", "mintTo(address,uint256)", "_mint(address,uint256)", "issue(uint256)", "generateTokens(address,uint256)"}},
	{"blacklist_function", "blacklist", []string{"setBlacklist(address,bool)", "blacklist(address)", "blacklistAddress(address,bool)", "addToBlacklist(address)",
		"addBlacklist(address)", "setBots(address[],bool)", "addBots(address[])", "setBot(address,bool)", "blockBots(address[])", "addToBlackList(address[])",
		"blacklist(address,bool)", "setIsBlacklisted(address,bool)", "freeze(address)", "addBlackList(address)", "setBlackList(address,bool)"}},
	{"pause_function", "pause", []string{"pause()", "setPaused(bool)", "pauseTrading()", "pauseTransfers()"}},
	{"fee_setter", "fee setter", []string{"setFees(uint256,uint256)", "setFee(uint256)", "setTaxFee(uint256)", "setTaxFeePercent(uint256)", "setBuyFee(uint256)",
		"setSellFee(uint256)", "setBuyTax(uint256)", "setSellTax(uint256)", "updateFees(uint256,uint256)", "setTaxes(uint256,uint256)", "updateBuyFees(uint256,uint256,uint256)",
		"updateSellFees(uint256,uint256,uint256)", "setLiquidityFeePercent(uint256)", "setFee(uint256,uint256)", "setBuyFees(uint256,uint256,uint256)",
		"setSellFees(uint256,uint256,uint256)", "reduceFee(uint256)"}},
	{"limit_function", "max-transaction or max-wallet limit", []string{"setMaxTxAmount(uint256)", "setMaxTxPercent(uint256)", "setMaxWalletSize(uint256)",
		"setMaxWallet(uint256)", "setMaxWalletAmount(uint256)", "updateMaxTxnAmount(uint256)", "updateMaxWalletAmount(uint256)", "setMaxTransactionAmount(uint256)",
		"setMaxTx(uint256)", "removeLimits()", "setLimits(uint256,uint256)"}},
	{"trading_switch", "trading switch", []string{"openTrading()", "enableTrading()", "setTrading(bool)", "setTradingEnabled(bool)", "startTrading()",
		"setTradingOpen(bool)", "tradingStatus(bool)", "enableTrading(bool)", "setSwapEnabled(bool)", "launch()"}},
}

// Selector is the 4-byte selector of a function signature.
func Selector(sig string) uint32 {
	h := crypto.Keccak256([]byte(sig))
	return uint32(h[0])<<24 | uint32(h[1])<<16 | uint32(h[2])<<8 | uint32(h[3])
}

// ScanFunctions returns, per class check, the signatures whose selectors
// are among sels (a code's pushed selectors, evmcode.Selectors).
func ScanFunctions(sels []uint32) map[string][]string {
	have := make(map[uint32]bool, len(sels))
	for _, s := range sels {
		have[s] = true
	}
	out := map[string][]string{}
	for _, cl := range FunctionClasses {
		for _, sig := range cl.Signatures {
			if have[Selector(sig)] {
				out[cl.Check] = append(out[cl.Check], sig)
			}
		}
	}
	return out
}
