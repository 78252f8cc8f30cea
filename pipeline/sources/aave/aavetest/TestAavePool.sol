// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title TestAavePool: the read side of an Aave v3 Pool, for tests
/// @notice Answers getReserveData(address) (selector 0x35ea6a75) with the
/// struct an Aave v3 Pool returns: DataTypes.ReserveDataLegacy of
/// aave-dao/aave-v3-origin (v3.1 and later), whose ABI layout is v3.0's
/// DataTypes.ReserveData. The owner sets each reserve's data; an asset
/// never set answers zeros, as the real Pool does for an unlisted asset.
contract TestAavePool {
    struct ReserveConfigurationMap {
        uint256 data;
    }

    struct ReserveDataLegacy {
        ReserveConfigurationMap configuration;
        uint128 liquidityIndex;
        uint128 currentLiquidityRate;
        uint128 variableBorrowIndex;
        uint128 currentVariableBorrowRate;
        uint128 currentStableBorrowRate;
        uint40 lastUpdateTimestamp;
        uint16 id;
        address aTokenAddress;
        address stableDebtTokenAddress;
        address variableDebtTokenAddress;
        address interestRateStrategyAddress;
        uint128 accruedToTreasury;
        uint128 unbacked;
        uint128 isolationModeTotalDebt;
    }

    address public immutable owner;
    mapping(address => ReserveDataLegacy) internal reserves;

    error Unauthorized(address caller);

    constructor() {
        owner = msg.sender;
    }

    function setReserveData(address asset, ReserveDataLegacy calldata data) external {
        if (msg.sender != owner) revert Unauthorized(msg.sender);
        reserves[asset] = data;
    }

    function getReserveData(address asset) external view returns (ReserveDataLegacy memory) {
        return reserves[asset];
    }
}
