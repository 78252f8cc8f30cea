// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

interface IERC20Like {
    function balanceOf(address) external view returns (uint256);
}

interface IUniswapV2PairLike {
    function getReserves() external view returns (uint112, uint112, uint32);
    function token0() external view returns (address);
    function swap(uint256 amount0Out, uint256 amount1Out, address to, bytes calldata data) external;
}

/// @title TokenSim: a buy and a sell through a Uniswap v2-style pair, run by
/// eth_call as a recent real buyer of the token
/// @notice The token-risk reader (pipeline/sources/token, docs/token.md)
/// overrides the code of the buyer's address with this contract's runtime
/// code and the buyer's balance of the quote token (WETH, USDC, ...) with
/// the amount to spend, then calls simulateV2 at the buyer's address: every
/// transfer is made by the buyer's address itself, so a token that treats
/// that wallet differently (blacklist, honeypot, limits) does so here too.
/// The buy and the sell each run in a call of their own so that a revert is
/// caught with its data and the other figures survive. It keeps no storage
/// (the buyer's own storage, if the buyer is a contract, is left alone).
/// Nothing here is ever deployed: it exists only inside eth_call.
contract TokenSim {
    struct Result {
        bool buyOk;
        bytes buyError;
        uint256 buyExpected; // tokens the pair's reserves promise for quoteIn, before any tax
        uint256 buyReceived; // tokens the buyer's balance grew by
        uint256 buyGas;
        bool sellOk;
        bytes sellError;
        uint256 sellAmount; // tokens sold
        uint256 sellExpected; // quote the pair's reserves promise for sellAmount, before any tax
        uint256 sellReceived; // quote the buyer's balance grew by
        uint256 sellArrived; // tokens that reached the pair out of sellAmount
        uint256 sellGas;
    }

    /// @notice Buys with quoteIn of quote (already in the buyer's balance by
    /// override) then sells what was received; when quoteIn is 0 or the buy
    /// fails, sells tokenSell of the buyer's own balance instead (0: none).
    function simulateV2(address pair, address token, address quote, uint256 quoteIn, uint256 tokenSell)
        external
        returns (Result memory r)
    {
        uint256 amount = tokenSell;
        if (quoteIn > 0) {
            uint256 g = gasleft();
            try TokenSim(address(this)).buyV2(pair, token, quote, quoteIn) returns (uint256 expected, uint256 received) {
                r.buyOk = true;
                r.buyExpected = expected;
                r.buyReceived = received;
                amount = received;
            } catch (bytes memory err) {
                r.buyError = err;
            }
            r.buyGas = spent(g);
        }
        if (amount == 0) return r;
        r.sellAmount = amount;
        uint256 g2 = gasleft();
        try TokenSim(address(this)).sellV2(pair, token, quote, amount) returns (
            uint256 expected, uint256 received, uint256 arrived
        ) {
            r.sellOk = true;
            r.sellExpected = expected;
            r.sellReceived = received;
            r.sellArrived = arrived;
        } catch (bytes memory err) {
            r.sellError = err;
        }
        r.sellGas = spent(g2);
    }

    function buyV2(address pair, address token, address quote, uint256 quoteIn)
        external
        returns (uint256 expected, uint256 received)
    {
        require(msg.sender == address(this), "TokenSim: internal");
        (uint256 rToken, uint256 rQuote, bool tokenIs0) = reserves(pair, token);
        expected = amountOut(quoteIn, rQuote, rToken);
        require(expected > 0, "TokenSim: no output for the buy");
        uint256 before = IERC20Like(token).balanceOf(address(this));
        safeTransfer(quote, pair, quoteIn);
        IUniswapV2PairLike(pair).swap(tokenIs0 ? expected : 0, tokenIs0 ? 0 : expected, address(this), "");
        received = IERC20Like(token).balanceOf(address(this)) - before;
    }

    function sellV2(address pair, address token, address quote, uint256 amount)
        external
        returns (uint256 expected, uint256 received, uint256 arrived)
    {
        require(msg.sender == address(this), "TokenSim: internal");
        (uint256 rToken, uint256 rQuote, bool tokenIs0) = reserves(pair, token);
        expected = amountOut(amount, rToken, rQuote);
        safeTransfer(token, pair, amount);
        // The transfer may have moved the reserves (tokens that swap their
        // fees on sells): price what arrived against the reserves now.
        (rToken, rQuote,) = reserves(pair, token);
        arrived = IERC20Like(token).balanceOf(pair) - rToken;
        uint256 out = amountOut(arrived, rToken, rQuote);
        require(out > 0, "TokenSim: no output for the sell");
        uint256 before = IERC20Like(quote).balanceOf(address(this));
        IUniswapV2PairLike(pair).swap(tokenIs0 ? 0 : out, tokenIs0 ? out : 0, address(this), "");
        received = IERC20Like(quote).balanceOf(address(this)) - before;
    }

    /// @notice Gas used since gasleft() read before, 0 if the node reports
    /// more gas left than before (seen on geth's eth_call when a sub-call
    /// clears a storage slot it set: the figure is informational only).
    function spent(uint256 before) internal view returns (uint256) {
        uint256 left = gasleft();
        return left < before ? before - left : 0;
    }

    function reserves(address pair, address token) internal view returns (uint256 rToken, uint256 rQuote, bool tokenIs0) {
        (uint112 r0, uint112 r1,) = IUniswapV2PairLike(pair).getReserves();
        tokenIs0 = IUniswapV2PairLike(pair).token0() == token;
        (rToken, rQuote) = tokenIs0 ? (uint256(r0), uint256(r1)) : (uint256(r1), uint256(r0));
    }

    /// @notice Uniswap v2's getAmountOut with its 0.3 % fee.
    function amountOut(uint256 amountIn, uint256 reserveIn, uint256 reserveOut) internal pure returns (uint256) {
        if (amountIn == 0 || reserveIn == 0 || reserveOut == 0) return 0;
        uint256 inWithFee = amountIn * 997;
        return inWithFee * reserveOut / (reserveIn * 1000 + inWithFee);
    }

    /// @notice transfer that accepts tokens returning nothing (USDT).
    function safeTransfer(address token, address to, uint256 value) internal {
        (bool ok, bytes memory ret) = token.call(abi.encodeWithSelector(0xa9059cbb, to, value));
        if (!ok) {
            assembly {
                revert(add(ret, 32), mload(ret))
            }
        }
        require(ret.length == 0 || abi.decode(ret, (bool)), "TokenSim: transfer returned false");
    }
}
