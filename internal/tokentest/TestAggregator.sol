// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title TestAggregator: a Chainlink price feed for the depeg tests
/// @notice Answers AggregatorV3Interface's decimals() and latestRoundData()
/// like a Chainlink feed; the deployer sets each new round's answer.
contract TestAggregator {
    uint8 public immutable decimals;
    string public description;
    address public immutable owner;
    uint80 private round;
    int256 private answer;
    uint256 private updatedAt;

    constructor(uint8 decimals_, string memory description_, int256 answer_) {
        decimals = decimals_;
        description = description_;
        owner = msg.sender;
        _set(answer_);
    }

    function setAnswer(int256 answer_) external {
        require(msg.sender == owner, "not the owner");
        _set(answer_);
    }

    function _set(int256 answer_) internal {
        round++;
        answer = answer_;
        updatedAt = block.timestamp;
    }

    function latestRoundData()
        external
        view
        returns (uint80 roundId, int256 answer_, uint256 startedAt, uint256 updatedAt_, uint80 answeredInRound)
    {
        return (round, answer, updatedAt, updatedAt, round);
    }
}
