// Pays one call of the mi server with the official x402 TypeScript client.
// Usage: node pay.mjs URL PRIVATE_KEY NETWORK ASSET
// ASSET (the test token) is allowed explicitly, capped at 1 USDC per call,
// since the client only pays known default assets unless told otherwise.
// Prints one JSON line: {status, body, paymentResponse}.
import { wrapFetchWithPaymentFromConfig, decodePaymentResponseHeader } from "@x402/fetch";
import { ExactEvmScheme } from "@x402/evm";
import { privateKeyToAccount } from "viem/accounts";

const [url, key, network, asset] = process.argv.slice(2);
const account = privateKeyToAccount(key);
const fetchWithPayment = wrapFetchWithPaymentFromConfig(fetch, {
  schemes: [{ network, client: new ExactEvmScheme(account) }],
  spendControls: { allowedAssets: [{ network, asset, maxAmountPerPayment: "1000000" }] },
  paymentRequirementsSelector: (_version, accepts) => accepts.find((a) => a.network === network) ?? accepts[0],
});
try {
  const resp = await fetchWithPayment(url, { method: "GET" });
  const body = await resp.text();
  const h = resp.headers.get("PAYMENT-RESPONSE");
  const paymentResponse = h ? decodePaymentResponseHeader(h) : null;
  console.log(JSON.stringify({ status: resp.status, body, paymentResponse }));
} catch (e) {
  console.log(JSON.stringify({ status: 0, error: String(e && e.stack || e) }));
  process.exit(1);
}
