// Package chain reads EVM chains over JSON-RPC for on-demand and polled
// reads (Aave rates, tokenized treasury supplies, token flow and token
// risk): one Client per configured chain, collected in a Set.
//
// A Client offers the reads those need — eth_call with an optional block
// and state overrides (balances, code, storage: geth's third eth_call
// parameter), eth_getLogs split into ranges the node accepts, eth_getCode,
// eth_getStorageAt, eth_blockNumber, block headers, and batches — with:
//
//   - request sharing: identical concurrent reads (same method and
//     parameters) make one JSON-RPC call whose answer every caller gets
//     (singleflight); Cache adds "reads within a TTL share one answer";
//   - a per-chain token bucket shared by every caller in the process;
//   - a timeout per request;
//   - backoff: after a transport failure (refused, timed out, HTTP 5xx or
//     429) the chain is left alone for a jittered, doubling delay, during
//     which reads fail at once with ErrUnavailable instead of piling up;
//   - reverts decoded into *RevertError (Error(string), Panic(uint256),
//     custom errors by selector), distinct from failures to reach the node;
//   - freshness in a sources.Registry ("chain:<name>"), so /status shows
//     a failing chain as stale while the others answer.
//
// It uses go-ethereum's rpc client underneath; values are go-ethereum's
// types (ethereum.CallMsg, ethereum.FilterQuery, ethereum.OverrideAccount,
// types.Log). chaintest starts a simulated chain behind a JSON-RPC server
// for tests. Configuration: the "chains" section of the sources file
// (sources.ChainConfig, docs/sources.md).
package chain
